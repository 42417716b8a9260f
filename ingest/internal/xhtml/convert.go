// Package xhtml turns an HTML or XHTML document into the pieces a parser
// lays out as a book: blocks of plain text (paragraphs, lists, tables,
// quotes, preformatted text), headings with their levels, and marks where
// the element ids a caller asks for stand. EPUB content documents and
// saved web pages both go through it, so the two read markup the same way.
//
// Input is untrusted: nesting past a bound shapes nothing but keeps its
// text, trees are bounded in nodes and depth, and every byte sequence comes
// out as valid UTF-8.
package xhtml

import (
	"bytes"
	"context"
	"math"
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

// Kind says what a piece is.
type Kind uint8

const (
	// Block is a block of text.
	Block Kind = iota
	// Heading is an h1 to h6 heading outside lists and tables.
	Heading
	// Mark is the position of an element id that the caller asked for
	// (one a table of contents points to): where a chapter or section
	// begins.
	Mark
)

// Piece is one item of a converted document, in reading order.
type Piece struct {
	Kind  Kind
	Block doc.BlockKind // of a block
	Level int           // of a heading, 1 to 6
	Text  string        // of a block or heading; never empty
	// Anchor is the block's or heading's citation: "path#id" with the
	// nearest element id before it, else "path".
	Anchor string
	ID     string // of a mark at an element id
	// Offset is, with Options.Offsets, the byte offset in the document
	// where a block's or heading's text starts, or a mark's position.
	Offset int
	// Entry is the index in Options.Positions of a mark placed there.
	Entry int
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
	// roleMain is a page's main content: a block that text counts in.
	roleMain
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

// Options say how to read a document.
type Options struct {
	// Path starts every anchor: "OEBPS/ch1.xhtml" gives
	// "OEBPS/ch1.xhtml#id" and "OEBPS/ch1.xhtml"; empty gives "#id" and "".
	Path string
	// Targets are the element ids that become marks.
	Targets map[string]bool
	// Page reads a saved web page rather than a book's chapter: only its
	// main content counts. Navigation, banners, asides, page headers and
	// footers (those outside an article or section) and ARIA landmarks of
	// those kinds are left out, and when the page marks its main content
	// (<main>, role="main") only that is read.
	Page bool
	// Offsets reads the document as it is, without re-encoding it, and
	// gives every piece its byte offset (Piece.Offset) instead of an
	// anchor: Kindle books cite by offset. Decode then turns the bytes of
	// each text into UTF-8 (nil: invalid UTF-8 is replaced), and each of
	// Positions, byte offsets in ascending order, becomes a mark.
	Offsets   bool
	Decode    func([]byte) string
	Positions []int
	// Plain reads hidden elements and printed page numbers as text, and
	// numbers no list items, as calibre's text of a Kindle book does.
	Plain bool
	// Taken is the bytes of text the book's documents before this one
	// hold: Convert stops with doc.ErrTooLarge once they and this one's
	// pass doc.MaxText.
	Taken int64
}

// Result is a converted document.
type Result struct {
	Pieces []Piece
	// Title is the document's <title>, white space collapsed.
	Title string
	// Lang is the lang or xml:lang of the <html> element, as written.
	Lang string
	// Meta are the document's <meta> elements that have a name or a
	// property, in order, names lower-cased.
	Meta []Meta
}

// Meta is one <meta name="..." content="..."> (or property="...").
type Meta struct {
	Name, Content string
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
	out     []Piece
	size    int64           // bytes of text in out, and Options.Taken
	title   strings.Builder // the <title> in <head>
	lastID  string
	lang    string
	meta    []Meta

	// page is Options.Page. mainOnly is set when the page marks its main
	// content: text counts only while a main element (mains) is open.
	page     bool
	mainOnly bool
	mains    int

	stack    []frame
	skipping int // open skipped elements
	inHead   bool
	inTitle  bool
	dropRaw  bool // drop the next text token (raw content of an untracked element)

	text      inline
	heading   int // level of the open heading, 0 when none
	headMarks []Piece
	box       *box

	// With Options.Offsets: offset is where the next token starts, pos
	// where the current one does, next the first position not yet marked.
	offsets   bool
	decode    func([]byte) string
	positions []int
	plain     bool
	offset    int
	pos       int
	next      int
}

// Convert converts a document, in any encoding a browser would read it in,
// to pieces. It fails with ctx's error when it is done, and with
// doc.ErrTooLarge's failure once the text passes doc.MaxText (see
// Options.Taken).
func Convert(ctx context.Context, data []byte, opts Options) (Result, error) {
	if opts.Offsets {
		return convertAtOffsets(ctx, data, opts)
	}
	data = ToUTF8(data)
	c := &converter{ctx: ctx, path: opts.Path, targets: opts.Targets, page: opts.Page, size: opts.Taken}
	if opts.Page {
		main, err := marksMain(ctx, data)
		if err != nil {
			return Result{}, err
		}
		c.mainOnly = main
	}
	if err := c.run(data); err != nil {
		return Result{}, err
	}
	if c.mainOnly && len(c.out) == 0 {
		// A main element without text (markup too broken to nest, a
		// page whose scripts fill it) must not hide the rest.
		c = &converter{ctx: ctx, path: opts.Path, targets: opts.Targets, page: true, size: opts.Taken}
		if err := c.run(data); err != nil {
			return Result{}, err
		}
	}
	return Result{Pieces: c.out, Title: unquote(CleanText(c.title.String())), Lang: c.lang, Meta: c.meta}, nil
}

// convertAtOffsets is Convert with Options.Offsets. The converter then
// keeps, as the anchor of each block, the offset of the token its first
// character came from; it becomes the piece's Offset.
func convertAtOffsets(ctx context.Context, data []byte, opts Options) (Result, error) {
	c := &converter{ctx: ctx, targets: opts.Targets, offsets: true, decode: opts.Decode, positions: opts.Positions, plain: opts.Plain, size: opts.Taken}
	if c.decode == nil {
		c.decode = func(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }
	}
	if err := c.run(data); err != nil {
		return Result{}, err
	}
	for i := range c.out {
		p := &c.out[i]
		if p.Kind != Mark {
			p.Offset, _ = strconv.Atoi(strings.TrimPrefix(p.Anchor, "#"))
			p.Anchor = ""
		}
	}
	return Result{Pieces: c.out, Title: unquote(CleanText(c.title.String())), Lang: c.lang, Meta: c.meta}, nil
}

// here is where text now read starts: the current element id, or with
// Options.Offsets the current token's offset.
func (c *converter) here() string {
	if c.offsets {
		return strconv.Itoa(c.pos)
	}
	return c.lastID
}

// textOf is the current text token's text, entities decoded.
func (c *converter) textOf(z *html.Tokenizer) []byte {
	if c.decode == nil {
		return z.Text()
	}
	return []byte(html.UnescapeString(c.decode(z.Raw())))
}

// placeMarks marks the positions at or before pos.
func (c *converter) placeMarks(pos int) {
	for c.next < len(c.positions) && c.positions[c.next] <= pos {
		c.mark(Piece{Kind: Mark, Offset: c.positions[c.next], Entry: c.next})
		c.next++
	}
}

// marksMain reports whether a page marks its main content with a <main>
// element or role="main".
func marksMain(ctx context.Context, data []byte) (bool, error) {
	z := newTokenizer(data)
	for tok := 0; ; tok++ {
		if tok%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		switch z.Next() {
		case html.ErrorToken:
			return false, nil
		case html.StartTagToken, html.SelfClosingTagToken:
			if t := readTag(z); isMain(t) {
				return true, nil
			}
		}
	}
}

func isMain(t tag) bool {
	return t.name == "main" || t.role == "main"
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
				return err
			}
			if err := doc.CheckText(c.size); err != nil {
				return err
			}
		}
		tt := z.Next()
		if c.offsets {
			c.pos = c.offset
			c.offset += len(z.Raw())
			c.placeMarks(c.pos)
		}
		switch tt {
		case html.ErrorToken:
			// The only error a reader over a byte slice gives is io.EOF.
			for len(c.stack) > 0 {
				c.pop()
			}
			c.flushInline()
			c.placeMarks(math.MaxInt)
			return doc.CheckText(c.size)
		case html.TextToken:
			switch {
			case c.dropRaw:
				c.dropRaw = false
			case c.inTitle:
				c.title.Write(c.textOf(z))
			case c.reading():
				c.text.write(c.textOf(z), c.here())
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

	role       string // the role attribute, lower case
	ariaHidden bool
	// notes marks an element that holds footnotes or endnotes (by its
	// role, epub:type or class), which a page keeps even in an aside.
	notes       bool
	lang        string
	metaName    string // a <meta>'s name or property
	metaContent string
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
		case bytes.HasSuffix(k, []byte(":type")) || string(k) == "role" || string(k) == "class":
			for _, f := range bytes.Fields(v) {
				switch s := strings.ToLower(string(f)); {
				case string(k) == "class":
					t.notes = t.notes || notesWord(s)
				case s == "pagebreak" || s == "doc-pagebreak":
					t.pagebreak = true
				default:
					t.notes = t.notes || notesWord(s)
				}
			}
			if string(k) == "role" {
				t.role = strings.ToLower(strings.TrimSpace(string(v)))
			}
		case string(k) == "aria-hidden":
			t.ariaHidden = strings.EqualFold(strings.TrimSpace(string(v)), "true")
		case string(k) == "lang" || string(k) == "xml:lang":
			t.lang = strings.TrimSpace(string(v))
		case t.name == "meta" && (string(k) == "name" || string(k) == "property"):
			t.metaName = strings.ToLower(strings.TrimSpace(string(v)))
		case t.name == "meta" && string(k) == "content":
			t.metaContent = string(v)
		}
	}
	return t
}

func (c *converter) start(z *html.Tokenizer, selfClosing bool) {
	t := readTag(z)
	void := voidElement(t.name)
	switch {
	case t.name == "html" && c.lang == "":
		c.lang = t.lang
	case t.name == "meta" && t.metaName != "":
		c.meta = append(c.meta, Meta{Name: t.metaName, Content: CleanText(t.metaContent)})
	}
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
	// A formula is read as a tree, past tokens whose offsets would be
	// lost; with offsets its text is read as any other.
	if t.name == "math" && !selfClosing && !c.offsets {
		m := &Node{Name: "math", Attrs: []html.Attribute{{Key: "alttext", Val: t.alttext}}}
		budget := maxTreeNodes
		buildTree(c.ctx, z, m, "math", &budget, false)
		if c.reading() {
			c.text.writeString(mathText(m), c.here())
		}
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
	case "hr", "mbp:pagebreak":
		c.breakBlock()
	case "img":
		if alt := strings.TrimSpace(t.alt); alt != "" && c.reading() {
			if c.decode != nil {
				alt = c.decode([]byte(alt))
			}
			c.text.writeString(alt, c.here())
		}
	}
}

// reading reports whether text here counts: it is in no skipped element,
// and in the main content when the page marks it.
func (c *converter) reading() bool {
	return c.skipping == 0 && (!c.mainOnly || c.mains > 0)
}

// notesWord reports the roles, types and classes of elements that hold a
// document's notes.
func notesWord(s string) bool {
	switch strings.TrimPrefix(s, "doc-") {
	case "footnote", "footnotes", "endnote", "endnotes", "rearnote", "rearnotes", "notes":
		return true
	}
	return false
}

// furniture reports the parts of a saved web page around its content:
// navigation, asides, the page's own header and footer, and landmarks of
// those kinds. A header or footer inside an article or a section belongs
// to it.
func (c *converter) furniture(t tag) bool {
	switch {
	case t.ariaHidden:
		return true
	case t.notes:
		return false
	}
	switch t.role {
	case "navigation", "banner", "contentinfo", "complementary", "search":
		return true
	}
	switch t.name {
	case "nav", "aside":
		return true
	case "header", "footer":
		for _, f := range c.stack {
			if f.name == "article" || f.name == "section" || f.name == "main" {
				return false
			}
		}
		return true
	}
	return false
}

// inFlow reports whether structure is being flattened: inside a heading or
// a table cell everything is one run of text.
func (c *converter) inFlow() bool {
	return c.heading > 0 || (c.box != nil && c.box.cell)
}

// open applies a start tag and returns the role its end tag will play.
func (c *converter) open(t tag) role {
	if (!c.plain && (t.hidden || t.pagebreak)) || skippedElement(t.name) || (c.page && c.furniture(t)) {
		c.skipping++
		if t.name == "head" {
			c.inHead = true
		}
		return roleSkip
	}
	if c.page && isMain(t) {
		c.breakBlock()
		c.mains++
		return roleMain
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
			if l.ordered && !c.plain {
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
	case roleMain:
		c.breakBlock()
		c.mains--
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
	c.out = append(c.out, Piece{Kind: Block, Block: doc.Paragraph, Text: text, Anchor: c.ref(anchor)})
	c.size += int64(len(text))
}

func (c *converter) endHeading() {
	text, anchor := c.text.take()
	c.out = append(c.out, c.headMarks...)
	c.headMarks = c.headMarks[:0]
	if text != "" {
		c.out = append(c.out, Piece{Kind: Heading, Level: c.heading, Text: text, Anchor: c.ref(anchor)})
		c.size += int64(len(text))
	}
	c.heading = 0
}

// seeID notes an element id. One that the table of contents points to
// becomes a mark.
func (c *converter) seeID(id string) {
	c.lastID = id
	if c.targets[id] {
		c.mark(Piece{Kind: Mark, ID: id})
	}
}

// mark places a mark: the text before it is cut off, so that it belongs
// to the previous entry. A heading or a table row is not cut: the mark
// moves to its start.
func (c *converter) mark(m Piece) {
	switch {
	case c.heading > 0:
		c.headMarks = append(c.headMarks, m)
	case c.box != nil && c.box.tables > 0:
		c.box.rowMarks = append(c.box.rowMarks, m)
	default:
		c.flushInline()
		if c.box != nil {
			c.emitBox()
		}
		c.out = append(c.out, m)
	}
}

// endRow turns the cells gathered for a table row into one line.
func (c *converter) endRow() {
	b := c.box
	c.flushInline()
	if len(b.rowMarks) > 0 {
		c.emitBox()
		c.out = append(c.out, b.rowMarks...)
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
		c.out = append(c.out, Piece{Kind: Block, Block: b.kind, Text: strings.Join(b.lines, "\n"), Anchor: c.ref(b.anchor)})
		c.size += int64(len(c.out[len(c.out)-1].Text))
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
	rowMarks  []Piece
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
