package epub

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// ctxCheckEvery is how many tokens are handled between two looks at the
// context: often enough to stop a 25 MB document promptly, rarely enough to
// cost nothing.
const ctxCheckEvery = 1024

// maxStack bounds the open elements the converter tracks. Real books nest a
// few dozen deep; past the bound, tags still shape nothing but their text is
// kept, so hostile nesting costs linear time.
const maxStack = 512

type pieceKind uint8

const (
	pieceBlock pieceKind = iota
	pieceHeading
	// pieceMark is the position of an element id that the table of
	// contents points to: where a chapter or section begins.
	pieceMark
)

// piece is one item of a converted document, in reading order.
type piece struct {
	kind  pieceKind
	bkind doc.BlockKind // of a block
	level int           // of a heading, 1 to 6
	text  string        // of a block or heading
	// anchor is the block's or heading's citation, "path#id" or "path".
	anchor string
	id     string // of a mark
}

// role says what an open element does to the text when it closes.
type role uint8

const (
	roleInline role = iota
	roleBlock
	roleSkip
	roleTitle
	roleHeading
	roleList
	roleItem
	roleQuote
	rolePre
	roleTable
	roleRow
	roleCell
)

type frame struct {
	name string
	role role
}

// skippedElement reports elements whose content is not text of the book:
// metadata, scripts, graphics, media fallbacks, ruby readings.
func skippedElement(s string) bool {
	switch s {
	case "head", "script", "style", "template", "noscript", "svg", "rt", "rp", "select",
		"datalist", "audio", "video", "iframe", "canvas", "button", "epub:case", "annotation",
		"annotation-xml":
		return true
	}
	return false
}

// rawTextElement reports elements that the tokenizer reads as raw text:
// when one of them is too deep to be tracked, its content must still be
// dropped.
func rawTextElement(s string) bool {
	switch s {
	case "script", "style", "noscript", "iframe", "xmp", "noembed", "noframes":
		return true
	}
	return false
}

// blockElement reports elements that end the paragraph before them and
// start a new one.
func blockElement(s string) bool {
	switch s {
	case "html", "body", "address", "article", "aside", "center", "details", "dialog", "div",
		"fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup", "legend", "main",
		"nav", "p", "section", "summary", "caption", "thead", "tbody", "tfoot", "output",
		"object", "epub:switch", "epub:default":
		return true
	}
	return false
}

// converter turns one XHTML content document into pieces. It reads the
// token stream rather than a parsed tree: the HTML5 tree builder would treat
// XHTML's self-closing <a id="x"/> as an open element and clone it into the
// paragraphs that follow, moving ids away from where they stand.
type converter struct {
	ctx  context.Context
	path string
	// targets are the ids the table of contents points to in this
	// document; each becomes a mark where its element starts.
	targets map[string]bool
	out     []piece
	title   strings.Builder // the <title> in <head>
	lastID  string

	stack    []frame
	skipping int // open skipped elements
	inHead   bool
	inTitle  bool
	dropRaw  bool // drop the next text token (raw content of an untracked element)

	text      inline
	heading   int // level of the open heading, 0 when none
	headMarks []string
	box       *box
}

// convertXHTML converts a content document to pieces, and returns its <title>
// too.
func convertXHTML(ctx context.Context, path string, data []byte, targets map[string]bool) ([]piece, string, error) {
	c := &converter{ctx: ctx, path: path, targets: targets}
	if err := c.run(toUTF8(data)); err != nil {
		return nil, "", err
	}
	return c.out, unquote(cleanText(c.title.String())), nil
}

// unquote drops quotes around a whole title, as some tools write the
// <title> of a cover page: "Cover".
func unquote(s string) string {
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}} {
		if len(s) > len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			return strings.TrimSpace(s[len(q[0]) : len(s)-len(q[1])])
		}
	}
	return s
}

func (c *converter) run(data []byte) error {
	z := newTokenizer(data)
	for tok := 0; ; tok++ {
		if tok%ctxCheckEvery == 0 {
			if err := c.ctx.Err(); err != nil {
				return fmt.Errorf("epub: %w", err)
			}
		}
		switch z.Next() {
		case html.ErrorToken:
			// The only error a reader over a byte slice gives is io.EOF.
			for len(c.stack) > 0 {
				c.pop()
			}
			c.flushInline()
			return nil
		case html.TextToken:
			switch {
			case c.dropRaw:
				c.dropRaw = false
			case c.inTitle:
				c.title.Write(z.Text())
			case c.skipping == 0:
				c.text.write(z.Text(), c.lastID)
			}
		case html.StartTagToken:
			c.start(z, false)
		case html.SelfClosingTagToken:
			selfClosed(z)
			c.start(z, true)
		case html.EndTagToken:
			name, _ := z.TagName()
			c.end(tagName(name))
		}
	}
}

func tagName(b []byte) string {
	if a := atom.Lookup(b); a != 0 {
		return a.String()
	}
	return string(b)
}

// tag is what the converter needs of a start tag.
type tag struct {
	name    string
	id      string
	alt     string
	alttext string
	hidden  bool
	// pagebreak marks a printed page number, which would only interrupt
	// the sentence around it.
	pagebreak bool
	start     int // <ol start> or <li value>, 0 when absent
}

func readTag(z *html.Tokenizer) tag {
	name, more := z.TagName()
	t := tag{name: tagName(name)}
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch {
		case string(k) == "id" || string(k) == "xml:id":
			t.id = strings.TrimSpace(string(v))
		case string(k) == "name" && t.name == "a" && t.id == "":
			// EPUB 2 books still anchor with <a name="...">.
			t.id = strings.TrimSpace(string(v))
		case string(k) == "alt":
			t.alt = string(v)
		case string(k) == "alttext":
			t.alttext = string(v)
		case string(k) == "hidden":
			t.hidden = true
		case string(k) == "start" || string(k) == "value":
			t.start, _ = strconv.Atoi(strings.TrimSpace(string(v)))
		case bytes.HasSuffix(k, []byte(":type")) || string(k) == "role":
			for _, f := range bytes.Fields(v) {
				if s := string(f); s == "pagebreak" || s == "doc-pagebreak" {
					t.pagebreak = true
				}
			}
		}
	}
	return t
}

func (c *converter) start(z *html.Tokenizer, selfClosing bool) {
	t := readTag(z)
	void := voidElement(t.name)
	if c.skipping > 0 {
		if !selfClosing && !void && len(c.stack) < maxStack {
			r := roleInline
			if t.name == "title" && c.inHead {
				r, c.inTitle = roleTitle, true
			}
			c.stack = append(c.stack, frame{t.name, r})
		}
		return
	}
	if t.id != "" {
		c.seeID(t.id)
	}
	if void {
		c.void(t)
		return
	}
	if t.name == "math" && !selfClosing {
		m := &node{name: "math", attrs: []html.Attribute{{Key: "alttext", Val: t.alttext}}}
		budget := maxTreeNodes
		buildTree(c.ctx, z, m, "math", &budget, false)
		c.text.writeString(mathText(m), c.lastID)
		return
	}
	if len(c.stack) >= maxStack {
		if rawTextElement(t.name) {
			c.dropRaw = true
		}
		return
	}
	r := c.open(t)
	c.stack = append(c.stack, frame{t.name, r})
	if selfClosing {
		c.pop()
	}
}

// void handles an element that has no content: a line break, a rule, an
// image, which speaks through its alt text.
func (c *converter) void(t tag) {
	switch t.name {
	case "br":
		if c.inFlow() {
			c.text.soft()
		} else {
			c.text.lineBreak()
		}
	case "hr":
		c.breakBlock()
	case "img":
		if alt := strings.TrimSpace(t.alt); alt != "" {
			c.text.writeString(alt, c.lastID)
		}
	}
}

// inFlow reports whether structure is being flattened: inside a heading or
// a table cell everything is one run of text.
func (c *converter) inFlow() bool {
	return c.heading > 0 || (c.box != nil && c.box.cell)
}

// open applies a start tag and returns the role its end tag will play.
func (c *converter) open(t tag) role {
	if t.hidden || t.pagebreak || skippedElement(t.name) {
		c.skipping++
		if t.name == "head" {
			c.inHead = true
		}
		return roleSkip
	}
	b := c.box
	switch t.name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		if c.inFlow() || b != nil {
			c.breakBlock()
			return roleBlock
		}
		c.flushInline()
		c.heading = int(t.name[1] - '0')
		return roleHeading
	case "ul", "ol", "dl", "menu", "dir":
		if c.inFlow() {
			c.text.soft()
			return roleBlock
		}
		c.breakBlock()
		if b == nil {
			b = newBox(roleList, len(c.stack))
			c.box = b
		}
		first := 1
		if t.start != 0 {
			first = t.start
		}
		b.lists = append(b.lists, list{ordered: t.name == "ol", next: first})
		return roleList
	case "li", "dt", "dd":
		if c.inFlow() || b == nil || len(b.lists) == 0 {
			c.breakBlock()
			return roleBlock
		}
		c.flushInline()
		l := &b.lists[len(b.lists)-1]
		switch t.name {
		case "li":
			if t.start != 0 {
				l.next = t.start
			}
			if l.ordered {
				b.marker = strconv.Itoa(l.next) + ". "
			} else {
				b.marker = "- "
			}
			l.next++
			l.item = true
		case "dt":
			b.marker, l.item = "", false
		case "dd":
			b.marker, l.item = "", true
		}
		return roleItem
	case "blockquote":
		if c.inFlow() {
			c.text.soft()
			return roleBlock
		}
		c.breakBlock()
		if b == nil {
			b = newBox(roleQuote, len(c.stack))
			c.box = b
		}
		b.gap = true
		return roleQuote
	case "pre", "listing", "xmp", "plaintext":
		if c.inFlow() {
			c.text.soft()
			return roleBlock
		}
		c.breakBlock()
		if b == nil {
			b = newBox(rolePre, len(c.stack))
			c.box = b
		}
		b.pres++
		c.text.pre, c.text.dropLF = true, true
		return rolePre
	case "table":
		if c.heading > 0 {
			c.text.soft()
			return roleBlock
		}
		c.breakBlock()
		if b == nil {
			b = newBox(roleTable, len(c.stack))
			c.box = b
		}
		b.tables++
		return roleTable
	case "tr":
		if b == nil || b.tables != 1 || b.cell {
			c.breakBlock()
			return roleBlock
		}
		c.flushInline()
		return roleRow
	case "td", "th":
		if b == nil || b.tables != 1 || b.cell {
			c.breakBlock()
			return roleBlock
		}
		c.flushInline()
		b.cell = true
		return roleCell
	}
	if blockElement(t.name) {
		c.breakBlock()
		return roleBlock
	}
	return roleInline
}

// end closes the innermost open element named name and everything opened
// inside it; an end tag that matches nothing is ignored, as browsers do.
func (c *converter) end(name string) {
	for i := len(c.stack) - 1; i >= 0; i-- {
		if c.stack[i].name == name {
			for len(c.stack) > i {
				c.pop()
			}
			return
		}
	}
}

// pop closes the innermost open element.
func (c *converter) pop() {
	f := c.stack[len(c.stack)-1]
	c.stack = c.stack[:len(c.stack)-1]
	b := c.box
	switch f.role {
	case roleSkip:
		c.skipping--
		if f.name == "head" {
			c.inHead = false
		}
	case roleTitle:
		c.inTitle = false
	case roleBlock:
		c.breakBlock()
	case roleHeading:
		c.endHeading()
	case roleList:
		c.flushInline()
		if len(b.lists) > 0 {
			b.lists = b.lists[:len(b.lists)-1]
		}
		b.marker = ""
	case roleItem:
		c.flushInline()
		b.marker = ""
		if len(b.lists) > 0 {
			b.lists[len(b.lists)-1].item = false
		}
	case roleQuote:
		c.flushInline()
		b.gap = true
	case rolePre:
		c.flushInline()
		b.pres--
		c.text.pre = b.pres > 0
	case roleTable:
		if b.tables == 1 {
			c.endRow()
		}
		b.tables--
	case roleRow:
		c.endRow()
	case roleCell:
		text, anchor := c.text.take()
		b.row = append(b.row, text)
		if b.rowAnchor == "" && text != "" {
			b.rowAnchor = anchor
		}
		b.cell = false
	}
	if b != nil && len(c.stack) == b.depth {
		c.closeBox()
	}
}

// breakBlock ends the current paragraph; inside a heading or a table cell it
// only separates words.
func (c *converter) breakBlock() {
	if c.inFlow() {
		c.text.soft()
		return
	}
	c.flushInline()
	if b := c.box; b != nil && b.kind == doc.Quote && len(b.lists) == 0 {
		b.gap = true
	}
}

// flushInline turns the text gathered so far into a paragraph, or into lines
// of the open list, table, quote or preformatted block.
func (c *converter) flushInline() {
	text, anchor := c.text.take()
	if text == "" {
		return
	}
	if c.box != nil {
		c.box.addLine(text, anchor)
		return
	}
	c.out = append(c.out, piece{kind: pieceBlock, bkind: doc.Paragraph, text: text, anchor: c.ref(anchor)})
}

func (c *converter) endHeading() {
	text, anchor := c.text.take()
	for _, id := range c.headMarks {
		c.out = append(c.out, piece{kind: pieceMark, id: id})
	}
	c.headMarks = c.headMarks[:0]
	if text != "" {
		c.out = append(c.out, piece{kind: pieceHeading, level: c.heading, text: text, anchor: c.ref(anchor)})
	}
	c.heading = 0
}

// seeID notes an element id. One that the table of contents points to
// becomes a mark: the text before it is cut off, so that it belongs to the
// previous entry. A heading or a table row is not cut: the mark moves to
// its start.
func (c *converter) seeID(id string) {
	c.lastID = id
	if !c.targets[id] {
		return
	}
	switch {
	case c.heading > 0:
		c.headMarks = append(c.headMarks, id)
	case c.box != nil && c.box.tables > 0:
		c.box.rowMarks = append(c.box.rowMarks, id)
	default:
		c.flushInline()
		if c.box != nil {
			c.emitBox()
		}
		c.out = append(c.out, piece{kind: pieceMark, id: id})
	}
}

// endRow turns the cells gathered for a table row into one line.
func (c *converter) endRow() {
	b := c.box
	c.flushInline()
	if len(b.rowMarks) > 0 {
		c.emitBox()
		for _, id := range b.rowMarks {
			c.out = append(c.out, piece{kind: pieceMark, id: id})
		}
	}
	last := len(b.row)
	for last > 0 && b.row[last-1] == "" {
		last--
	}
	if last > 0 {
		b.addLine(strings.Join(b.row[:last], " | "), b.rowAnchor)
	}
	b.row, b.rowAnchor, b.rowMarks = b.row[:0], "", b.rowMarks[:0]
}

func (c *converter) closeBox() {
	b := c.box
	c.flushInline()
	if b.tables > 0 || len(b.row) > 0 || len(b.rowMarks) > 0 {
		c.endRow()
	}
	c.emitBox()
	c.box = nil
	c.text.pre = false
}

// emitBox emits what the open list, table, quote or preformatted block holds
// so far as one block; the box stays open for what follows.
func (c *converter) emitBox() {
	b := c.box
	for len(b.lines) > 0 && b.lines[len(b.lines)-1] == "" {
		b.lines = b.lines[:len(b.lines)-1]
	}
	if len(b.lines) > 0 {
		c.out = append(c.out, piece{kind: pieceBlock, bkind: b.kind, text: strings.Join(b.lines, "\n"), anchor: c.ref(b.anchor)})
	}
	b.lines, b.anchor, b.started, b.gap = b.lines[:0], "", false, false
}

// ref is the citation of a place in this document.
func (c *converter) ref(id string) string {
	if id == "" {
		return c.path
	}
	return c.path + "#" + id
}

// box gathers a list, table, block quote or preformatted text, with all that
// is nested in it, into one block of lines.
type box struct {
	kind  doc.BlockKind
	depth int // stack index of the element that opened the box
	lines []string
	// anchor is the citation id of the first line; started says whether
	// there is one yet.
	anchor  string
	started bool

	lists  []list
	marker string // list marker for the next line
	pres   int    // open <pre> elements
	gap    bool   // a blank line is due before the next line

	tables    int
	cell      bool
	row       []string
	rowAnchor string
	rowMarks  []string
}

type list struct {
	ordered bool
	next    int
	item    bool // an item is open: its further lines are indented
}

func newBox(r role, depth int) *box {
	b := &box{depth: depth}
	switch r {
	case roleList:
		b.kind = doc.List
	case roleTable:
		b.kind = doc.Table
	case roleQuote:
		b.kind = doc.Quote
	case rolePre:
		b.kind = doc.Code
	}
	return b
}

// addLine adds text (which may hold line breaks) with the indentation and
// list marker of where it stands.
func (b *box) addLine(text, anchor string) {
	if !b.started {
		b.started, b.anchor = true, anchor
	}
	if b.gap && len(b.lines) > 0 && b.lines[len(b.lines)-1] != "" {
		b.lines = append(b.lines, "")
	}
	b.gap = false
	indent := ""
	if n := len(b.lists); n > 1 {
		indent = strings.Repeat("  ", n-1)
	}
	for i, line := range strings.Split(text, "\n") {
		prefix := indent
		switch {
		case i == 0 && b.marker != "":
			prefix += b.marker
			b.marker = ""
		case len(b.lists) > 0 && b.lists[len(b.lists)-1].item:
			prefix += "  "
		}
		if strings.TrimSpace(line) == "" {
			b.lines = append(b.lines, "")
			continue
		}
		b.lines = append(b.lines, prefix+line)
	}
}
