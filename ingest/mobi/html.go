package mobi

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"strings"
	"unicode/utf8"

	nethtml "golang.org/x/net/html"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// ctxCheckEvery is how many tokens are read between two looks at the
// context.
const ctxCheckEvery = 1024

// maxSkipDepth bounds the nesting of skipped elements that is tracked;
// deeper, their end tags still close them, so hostile nesting costs linear
// time.
const maxSkipDepth = 256

type pieceKind uint8

const (
	pieceBlock pieceKind = iota
	pieceHeading
	// pieceMark is where a TOC entry starts.
	pieceMark
)

// piece is one item of the converted HTML, in reading order.
type piece struct {
	kind  pieceKind
	bkind doc.BlockKind
	level int // of a heading, 1 to 6
	text  string
	at    int // offset in the HTML where the block's text starts
	entry int // of a mark: index in the TOC
}

// converter turns a book's HTML into pieces. It reads the token stream and
// counts the bytes of each token, so that every piece knows its offset:
// MOBI6's filepos links and the TOC's positions are byte offsets.
type converter struct {
	ctx    context.Context
	cp1252 bool
	marks  []tocEntry // sorted by at
	next   int        // the next mark to place

	out   []piece
	text  strings.Builder
	at    int // offset of the current block's first text, -1 before it
	space bool

	skip    []string // open skipped elements
	heading int      // level of the open heading, 0 when none
	pre     int
	quote   int
	list    int
	table   int
	cells   int // cells so far in the table's row
}

// maxHeading is the longest text, in characters, taken as a heading.
const maxHeading = 300

// convertHTML converts html, in Windows-1252 when cp1252 is set and UTF-8
// otherwise, to pieces, with a mark where each TOC entry starts.
func convertHTML(ctx context.Context, src []byte, cp1252 bool, toc []tocEntry) ([]piece, error) {
	c := &converter{ctx: ctx, cp1252: cp1252, marks: toc, at: -1}
	z := nethtml.NewTokenizer(bytes.NewReader(src))
	offset := 0
	for tok := 0; ; tok++ {
		if tok%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("mobi: %w", err)
			}
		}
		tt := z.Next()
		raw := z.Raw()
		pos := offset
		offset += len(raw)
		if tt == nethtml.ErrorToken {
			break
		}
		c.placeMarks(pos)
		switch tt {
		case nethtml.TextToken:
			if len(c.skip) == 0 {
				c.write(raw, pos)
			}
		case nethtml.StartTagToken, nethtml.SelfClosingTagToken:
			name, _ := z.TagName()
			c.start(string(name), tt == nethtml.SelfClosingTagToken)
		case nethtml.EndTagToken:
			name, _ := z.TagName()
			c.end(string(name))
		}
	}
	c.placeMarks(offset)
	c.flush()
	for c.next < len(c.marks) {
		c.out = append(c.out, piece{kind: pieceMark, entry: c.next, at: offset})
		c.next++
	}
	return c.out, nil
}

// placeMarks ends the block before a TOC entry that starts at or before
// pos, and marks the entry.
func (c *converter) placeMarks(pos int) {
	for c.next < len(c.marks) && c.marks[c.next].at <= pos {
		if c.heading == 0 {
			c.flush()
		}
		c.out = append(c.out, piece{kind: pieceMark, entry: c.next, at: c.marks[c.next].at})
		c.next++
	}
}

// write adds a text token's raw bytes to the current block.
func (c *converter) write(raw []byte, pos int) {
	var s string
	if c.cp1252 {
		s = decodeCP1252(raw)
	} else {
		s = strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	s = html.UnescapeString(s)
	if c.pre > 0 {
		if c.at < 0 && strings.TrimSpace(s) != "" {
			c.at = pos
		}
		c.text.WriteString(strings.ReplaceAll(s, "\r\n", "\n"))
		return
	}
	if s == "" {
		return
	}
	if r, _ := utf8.DecodeRuneInString(s); isSpace(r) {
		c.space = true
	}
	for _, f := range strings.FieldsFunc(s, isSpace) {
		if c.at < 0 {
			c.at = pos
		}
		if c.space && c.text.Len() > 0 {
			if t := c.text.String(); !strings.HasSuffix(t, " ") && !strings.HasSuffix(t, "\n") {
				c.text.WriteByte(' ')
			}
		}
		c.text.WriteString(f)
		c.space = true
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	c.space = isSpace(r)
}

func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\u00a0':
		return true
	}
	return false
}

// start applies a start tag.
func (c *converter) start(name string, selfClosing bool) {
	if len(c.skip) > 0 {
		if !selfClosing && len(c.skip) < maxSkipDepth && name == c.skip[len(c.skip)-1] {
			c.skip = append(c.skip, name)
		}
		return
	}
	open := !selfClosing
	switch name {
	case "head", "script", "style", "title", "svg", "noscript", "template", "guide", "audio", "video":
		if open {
			c.skip = append(c.skip, name)
		}
	case "html", "body":
		// A new file of a KF8 book: nothing stays open across it.
		c.flush()
		c.heading, c.pre, c.quote, c.list, c.table = 0, 0, 0, 0, 0
	case "br":
		c.lineBreak()
	case "h1", "h2", "h3", "h4", "h5", "h6":
		if c.heading > 0 || c.table > 0 || !open {
			c.breakBlock()
			return
		}
		c.flush()
		c.heading = int(name[1] - '0')
	case "td", "th":
		if c.table > 0 {
			if c.cells > 0 {
				c.text.WriteString(" | ")
				c.space = false
			}
			c.cells++
		}
	case "tr":
		if c.table > 0 {
			c.lineBreak()
			c.cells = 0
			return
		}
		c.breakBlock()
	case "table":
		c.breakBlock()
		if open {
			c.table++
			c.cells = 0
		}
	case "pre":
		c.breakBlock()
		if open {
			c.pre++
		}
	case "blockquote":
		c.breakBlock()
		if open {
			c.quote++
		}
	case "ul", "ol", "dl":
		c.breakBlock()
		if open {
			c.list++
		}
	case "li", "dt", "dd":
		c.breakBlock()
		if name == "li" && c.heading == 0 && c.table == 0 {
			c.text.WriteString("- ")
		}
	default:
		if blockElement(name) {
			c.breakBlock()
		}
	}
}

// end applies an end tag.
func (c *converter) end(name string) {
	if len(c.skip) > 0 {
		if name == c.skip[len(c.skip)-1] {
			c.skip = c.skip[:len(c.skip)-1]
		}
		return
	}
	switch name {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		if c.heading == 0 {
			c.breakBlock()
			return
		}
		t := strings.TrimSpace(c.text.String())
		if utf8.RuneCountInString(t) > maxHeading {
			// Not a heading but a paragraph in heading tags (or an
			// unclosed one): text, not a title.
			c.heading = 0
			c.flush()
			return
		}
		if t != "" {
			c.out = append(c.out, piece{kind: pieceHeading, level: c.heading, text: t, at: max(c.at, 0)})
		}
		c.reset()
		c.heading = 0
	case "body":
		c.flush()
		c.heading, c.pre, c.quote, c.list, c.table = 0, 0, 0, 0, 0
	case "table":
		if c.table == 1 {
			c.flush()
		}
		c.table = max(c.table-1, 0)
	case "pre":
		c.breakBlock()
		c.pre = max(c.pre-1, 0)
	case "blockquote":
		c.breakBlock()
		c.quote = max(c.quote-1, 0)
	case "ul", "ol", "dl":
		c.breakBlock()
		c.list = max(c.list-1, 0)
	case "li", "dt", "dd":
		c.breakBlock()
	case "tr":
		if c.table == 0 {
			c.breakBlock()
		}
	default:
		if blockElement(name) {
			c.breakBlock()
		}
	}
}

// blockElement reports elements that end the text before them and start a
// new block.
func blockElement(name string) bool {
	switch name {
	case "p", "div", "body", "html", "section", "article", "aside", "header", "footer", "nav",
		"center", "address", "figure", "figcaption", "hr", "caption", "mbp:pagebreak", "mbp:section":
		return true
	}
	return false
}

// breakBlock ends the current block, except inside a heading or a table,
// which are one block each.
func (c *converter) breakBlock() {
	if c.heading > 0 || c.table > 0 {
		c.space = true
		return
	}
	c.flush()
}

// lineBreak starts a new line inside the current block.
func (c *converter) lineBreak() {
	if c.heading > 0 {
		c.space = true
		return
	}
	if c.text.Len() > 0 && !strings.HasSuffix(c.text.String(), "\n") {
		c.text.WriteByte('\n')
	}
	c.space = false
}

// flush ends the current block.
func (c *converter) flush() {
	t := strings.TrimSpace(c.text.String())
	if t != "" && t != "-" {
		kind := doc.Paragraph
		switch {
		case c.heading > 0:
		case c.pre > 0:
			kind = doc.Code
			t = strings.Trim(c.text.String(), "\n")
		case c.table > 0:
			kind = doc.Table
		case c.list > 0:
			kind = doc.List
		case c.quote > 0:
			kind = doc.Quote
		}
		c.out = append(c.out, piece{kind: pieceBlock, bkind: kind, text: t, at: max(c.at, 0)})
	}
	c.reset()
}

func (c *converter) reset() {
	c.text.Reset()
	c.at = -1
	c.space = false
}
