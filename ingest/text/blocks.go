package text

import (
	"strings"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// makeBlock turns a paragraph into a block. Prose that was hard-wrapped is
// joined into one line; lists, indented passages (letters, quotations) and
// verse keep their line breaks, which carry meaning there.
func makeBlock(p para, lay layout) doc.Block {
	b := doc.Block{Kind: doc.Paragraph, Line: p.rows[0].line}
	rows := p.rows
	if len(rows) == 1 {
		b.Text = collapse(strings.TrimSpace(rows[0].text))
		return b
	}
	minIndent := -1
	for _, r := range rows {
		if n := indent(r.text); minIndent < 0 || n < minIndent {
			minIndent = n
		}
	}
	switch {
	case isList(rows):
		b.Kind = doc.List
		b.Text = keepLines(rows, minIndent)
	case minIndent > lay.base+1, isVerse(rows, lay):
		b.Kind = doc.Quote
		b.Text = keepLines(rows, minIndent)
	default:
		b.Text = joinProse(rows)
	}
	return b
}

// isVerse reports lines kept well short of the wrap width, which in a
// hard-wrapped text means the line breaks are the author's.
func isVerse(rows []row, lay layout) bool {
	if lay.wrap < 40 {
		return false
	}
	for _, r := range rows[:len(rows)-1] {
		if len(strings.TrimSpace(r.text))*10 >= lay.wrap*6 {
			return false
		}
	}
	return true
}

func isList(rows []row) bool {
	marked := 0
	for i, r := range rows {
		m := listMarker(strings.TrimSpace(r.text))
		if i == 0 && !m {
			return false
		}
		if m {
			marked++
		}
	}
	return marked*2 >= len(rows)
}

func listMarker(s string) bool {
	for _, m := range []string{"- ", "* ", "• ", "+ "} {
		if strings.HasPrefix(s, m) {
			return true
		}
	}
	n := 0
	for n < len(s) && n < 3 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n > 0 && n+1 < len(s) && (s[n] == '.' || s[n] == ')') && s[n+1] == ' '
}

// keepLines joins rows with newlines, removing their common indentation.
func keepLines(rows []row, common int) string {
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimRight(r.text[common:], " \t"))
	}
	return b.String()
}

// joinProse joins hard-wrapped lines with single spaces. A line ending in a
// hyphen or dash joins the next without a space: Gutenberg texts break
// lines after the hyphen of a compound ("Thunder-ten-" / "tronckh") and
// after dashes, never inside a word.
func joinProse(rows []row) string {
	n := 0
	for _, r := range rows {
		n += len(r.text) + 1
	}
	var b strings.Builder
	b.Grow(n)
	prev := ""
	for i, r := range rows {
		t := strings.TrimSpace(r.text)
		if i > 0 && !joinsTight(prev) {
			b.WriteByte(' ')
		}
		writeCollapsed(&b, t)
		prev = t
	}
	return b.String()
}

func joinsTight(prev string) bool {
	last, size := utf8.DecodeLastRuneInString(prev)
	switch last {
	case '—', '–':
		return true
	case '-':
		before, _ := utf8.DecodeLastRuneInString(prev[:len(prev)-size])
		return before != ' ' && before != utf8.RuneError
	}
	return false
}

// collapse replaces runs of spaces and tabs with one space.
func collapse(s string) string {
	if !needsCollapse(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	writeCollapsed(&b, s)
	return b.String()
}

func needsCollapse(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\t' || (s[i] == ' ' && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t')) {
			return true
		}
	}
	return false
}

// writeCollapsed writes s with each run of spaces and tabs as one space. It
// is one forward pass, so a book that is a single 2 MB line costs no more
// than one made of short lines.
func writeCollapsed(b *strings.Builder, s string) {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != ' ' && c != '\t' {
			continue
		}
		if c == ' ' && (i+1 == len(s) || (s[i+1] != ' ' && s[i+1] != '\t')) {
			continue // a single space stays as it is
		}
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		b.WriteString(s[start:i])
		b.WriteByte(' ')
		start = j
		i = j - 1
	}
	b.WriteString(s[start:])
}
