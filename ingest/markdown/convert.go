package markdown

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// maxIndent bounds the indentation that nesting adds to list lines. Past a
// few levels more spaces say nothing to a reader, and an unbounded indent
// would let a tiny file of deeply nested lists expand quadratically.
const maxIndent = 24

// converter turns goldmark's AST into items and blocks.
type converter struct {
	src   []byte
	lines lineIndex
}

// collect converts the top-level nodes in order. Only top-level headings are
// structure: a heading inside a quote or a list item is part of that block.
func (c *converter) collect(ctx context.Context, root ast.Node) ([]item, error) {
	var items []item
	last := 1 // lines never go backwards, even for a node goldmark gave no position
	i := 0
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("markdown: %w", err)
			}
		}
		i++
		line := c.nodeLine(n)
		if line < last {
			line = last
		}
		last = line
		if h, ok := n.(*ast.Heading); ok {
			title := oneLine(c.inline(h))
			if title == "" {
				continue // a bare "#" names nothing
			}
			items = append(items, item{heading: true, level: min(max(h.Level, 1), 6), title: title, line: line})
			continue
		}
		if b, ok := c.block(n); ok {
			b.Line = line
			items = append(items, item{block: b})
		}
	}
	return items, nil
}

// block converts one top-level node, all but its line; ok is false when it
// holds no text.
func (c *converter) block(n ast.Node) (b doc.Block, ok bool) {
	switch n := n.(type) {
	case *ast.ThematicBreak, *ast.LinkReferenceDefinition:
		return b, false
	case *ast.Paragraph, *ast.TextBlock:
		b.Kind, b.Text = doc.Paragraph, strings.TrimSpace(c.inline(n))
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		b.Kind, b.Text = doc.Code, strings.TrimRight(c.rawLines(n), "\n")
	case *ast.HTMLBlock:
		b.Kind, b.Text = doc.Paragraph, strings.TrimSpace(htmlText(c.htmlSource(n), false))
	case *ast.List:
		b.Kind, b.Text = doc.List, c.render(n)
	case *ast.Blockquote:
		b.Kind, b.Text = doc.Quote, c.render(n)
	case *east.Table:
		b.Kind, b.Text = doc.Table, c.render(n)
	default:
		b.Kind, b.Text = doc.Paragraph, c.render(n)
	}
	if strings.TrimSpace(b.Text) == "" {
		return b, false
	}
	if !utf8.ValidString(b.Text) {
		// Input is made valid up front; this guards against a parser bug
		// ever reaching the index.
		b.Text = strings.ToValidUTF8(b.Text, "\uFFFD")
	}
	return b, true
}

// render writes a container block as lines of text.
func (c *converter) render(n ast.Node) string {
	var w textWriter
	c.write(&w, n, "", true)
	return trimBlank(string(w.buf))
}

// nodeLine is the file line where n starts: its own position when goldmark
// recorded one, else that of its first line or first child.
func (c *converter) nodeLine(n ast.Node) int {
	for depth := 0; n != nil && depth < 64; depth++ {
		if p := n.Pos(); p >= 0 {
			return c.lines.line(p)
		}
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			return c.lines.line(n.Lines().At(0).Start)
		}
		n = n.FirstChild()
	}
	return 0
}

// rawLines is the verbatim content of a code block.
func (c *converter) rawLines(n ast.Node) string {
	lines := n.Lines()
	var sb strings.Builder
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		sb.Write(seg.Value(c.src))
	}
	return sb.String()
}

// htmlSource is the raw text of an HTML block, closing line included.
func (c *converter) htmlSource(n *ast.HTMLBlock) string {
	s := c.rawLines(n)
	if n.HasClosure() {
		s += string(n.ClosureLine.Value(c.src))
	}
	return s
}

// textWriter accumulates the lines of a multi-line block.
type textWriter struct {
	buf []byte
	// marker, when set, replaces the indentation of the next line written:
	// it is how a list item's "- " lands on the item's first line whatever
	// kind of block that line comes from.
	marker    string
	hasMarker bool
}

func (w *textWriter) line(indent, s string) {
	p := indent
	if w.hasMarker {
		p, w.hasMarker = w.marker, false
	} else if s == "" {
		p = ""
	}
	w.buf = append(w.buf, p...)
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '\n')
}

// lines writes each line of s; blank lines are kept only when keepBlank.
func (w *textWriter) lines(indent, s string, keepBlank bool) {
	for s != "" {
		ln, rest, _ := strings.Cut(s, "\n")
		s = rest
		if !keepBlank && strings.TrimSpace(ln) == "" {
			continue
		}
		w.line(indent, strings.TrimRight(ln, " \t"))
	}
}

// blank separates paragraphs inside a quote.
func (w *textWriter) blank() {
	if n := len(w.buf); n > 0 && !(n >= 2 && w.buf[n-1] == '\n' && w.buf[n-2] == '\n') {
		w.buf = append(w.buf, '\n')
	}
}

// write renders a block node as lines of plain text. loose says whether
// sibling blocks are separated by blank lines, as in a quote; inside lists
// they are not, so that every item stays on consecutive lines.
func (c *converter) write(w *textWriter, n ast.Node, indent string, loose bool) {
	switch n := n.(type) {
	case *ast.ThematicBreak, *ast.LinkReferenceDefinition:
	case *ast.Paragraph, *ast.TextBlock, *ast.Heading:
		w.lines(indent, strings.TrimSpace(c.inline(n)), false)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		w.lines(indent, strings.TrimRight(c.rawLines(n), "\n"), true)
	case *ast.HTMLBlock:
		w.lines(indent, htmlText(c.htmlSource(n), false), false)
	case *ast.List:
		c.writeList(w, n, indent)
	case *east.Table:
		c.writeTable(w, n, indent)
	default:
		// Blockquotes, and any container an extension might add.
		first := true
		for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
			if ch.Type() != ast.TypeBlock {
				// A container with inline content that is not one of the
				// kinds above: keep its text rather than lose it.
				w.lines(indent, strings.TrimSpace(c.inline(n)), false)
				return
			}
			if loose && !first {
				w.blank()
			}
			before := len(w.buf)
			c.write(w, ch, indent, loose)
			if len(w.buf) > before {
				first = false
			}
		}
	}
}

func (c *converter) writeList(w *textWriter, l *ast.List, indent string) {
	num := l.Start
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		m := "- "
		if l.IsOrdered() {
			m = strconv.Itoa(num) + ". "
			num++
		}
		if w.hasMarker {
			// An item whose first content is itself a list: "- - x".
			w.marker = growIndent(w.marker, m)
		} else {
			w.marker = growIndent(indent, m)
		}
		w.hasMarker = true
		inner := growIndent(indent, strings.Repeat(" ", len(m)))
		for ch := it.FirstChild(); ch != nil; ch = ch.NextSibling() {
			c.write(w, ch, inner, false)
		}
		// An empty item writes nothing; its marker must not leak onto the
		// next line.
		w.hasMarker = false
	}
}

// growIndent appends more to indent unless that would pass maxIndent.
func growIndent(indent, more string) string {
	if len(indent)+len(more) > maxIndent {
		if len(more) > maxIndent {
			return more[:maxIndent]
		}
		return indent[:maxIndent-len(more)] + more
	}
	return indent + more
}

func (c *converter) writeTable(w *textWriter, t *east.Table, indent string) {
	var cells []string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		cells = cells[:0]
		empty := true
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			s := oneLine(c.inline(cell))
			if s != "" {
				empty = false
			}
			cells = append(cells, s)
		}
		if !empty {
			w.line(indent, strings.TrimRight(strings.Join(cells, " | "), " "))
		}
	}
}

// oneLine collapses all runs of white space, line breaks included, to single
// spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// trimBlank drops blank lines at both ends and trailing white space, but
// keeps the indentation of the first line, which in code is content.
func trimBlank(s string) string {
	s = strings.TrimRight(s, " \t\n")
	for {
		ln, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(ln) != "" {
			return s
		}
		s = rest
	}
}
