// Package text parses plain-text books (Project Gutenberg files and the
// like) into the format-neutral tree of package doc.
//
// Plain text has no markup, so everything is inferred: the encoding, where
// the Gutenberg licence ends and the book begins, and which lines are
// chapter headings. The heading heuristics are deliberately conservative: a
// missed heading costs a coarser outline, a false one splits a chapter in
// the middle of a sentence, so every rule prefers the former.
package text

import (
	"context"
	"fmt"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// Parse reads a plain-text book. The errors it returns wrap ErrBinary (the
// bytes are not text), doc.ErrNoText (there is no text, or none outside the
// Gutenberg licence), or the context's error.
//
// Title, Authors and Language come from a Project Gutenberg header when
// there is one; otherwise the title is guessed from a short first line, or
// left empty. Every Block's Line and every heading's Anchor ("L40") count
// lines of the decoded text, which are the lines of the file.
func Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, _, err := Decode(data)
	if err != nil {
		return nil, err
	}
	// isBlank judges a line; the file's line breaks are whitespace too.
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: the file is empty or holds only whitespace", doc.ErrNoText)
	}
	lines := strings.Split(s, "\n")
	pg := findGutenberg(lines)
	ps, err := paragraphs(ctx, lines[pg.start:pg.end], pg.start+1)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 && pg.found {
		return nil, fmt.Errorf("%w: nothing between the Project Gutenberg header and footer", doc.ErrNoText)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("%w: nothing but blank lines and separators", doc.ErrNoText)
	}
	if pg.found {
		// The footer's "End of the Project Gutenberg EBook of …" line is
		// caught as the end marker; drop what else old files put there.
		ps = trimTrailingBoilerplate(ps)
	}
	lay := measure(ps)
	ps, err = structure(ctx, ps)
	if err != nil {
		return nil, err
	}
	d := &doc.Document{
		Title:      pg.meta.title,
		Authors:    pg.meta.authors,
		Language:   pg.meta.language,
		SourceType: doc.Text,
		Chapters:   build(ps, lay),
	}
	if !pg.found && d.Title == "" {
		d.Title, d.Authors = guessTitle(ps)
	}
	if len(d.Chapters) == 0 {
		return nil, fmt.Errorf("%w: nothing but blank lines and separators", doc.ErrNoText)
	}
	return d, nil
}

// trimTrailingBoilerplate drops trailing paragraphs that only name the file
// or point at the licence ("***** This file should be named …"), as
// doc.GutenbergFooterNote tells them.
func trimTrailingBoilerplate(ps []para) []para {
	for len(ps) > 0 {
		rows := ps[len(ps)-1].rows
		lines := make([]string, len(rows))
		for i, r := range rows {
			lines[i] = strings.TrimSpace(r.text)
		}
		if !doc.GutenbergFooterNote(strings.Join(lines, "\n")) {
			break
		}
		ps = ps[:len(ps)-1]
	}
	return ps
}

// layout is what the book's lines look like as a whole, against which a
// paragraph's shape is judged.
type layout struct {
	base int // the indentation of ordinary lines
	wrap int // the width the text is hard-wrapped at
}

func measure(ps []para) layout {
	var indents [33]int
	var widths [257]int
	total := 0
	for _, p := range ps {
		for _, r := range p.rows {
			indents[min(indent(r.text), 32)]++
			widths[min(len(strings.TrimSpace(r.text)), 256)]++
			total++
		}
	}
	var lay layout
	for i, n := range indents {
		if n > indents[lay.base] {
			lay.base = i
		}
	}
	// The wrap width is where the longest tenth of the lines begins.
	seen := 0
	for w := len(widths) - 1; w > 0; w-- {
		seen += widths[w]
		if seen*10 >= total {
			lay.wrap = w
			break
		}
	}
	return lay
}

func indent(s string) int {
	n := 0
	for n < len(s) && (s[n] == ' ' || s[n] == '\t') {
		n++
	}
	return n
}

// build assembles the document tree from the structure decisions.
func build(ps []para, lay layout) []doc.Chapter {
	first := -1
	for i, p := range ps {
		if p.role == roleHeading && p.keep {
			first = i
			break
		}
	}
	if first < 0 {
		if ch, ok := untitled(ps, lay); ok {
			return []doc.Chapter{ch}
		}
		return fallback(ps, lay)
	}
	var chapters []doc.Chapter
	// Text before the first heading is front matter: title-page lines are
	// dropped, but prose (a preface without a heading) is kept.
	if front := ps[:first]; hasProse(front) {
		if ch, ok := untitled(front, lay); ok {
			chapters = append(chapters, ch)
		}
	}
	var ch *doc.Chapter
	var sec *doc.Section
	for _, p := range ps[first:] {
		switch p.role {
		case roleHeading:
			if !p.keep {
				continue
			}
			anchor := fmt.Sprintf("L%d", p.rows[0].line)
			if p.level == 0 || ch == nil {
				chapters = append(chapters, doc.Chapter{Title: p.title, Anchor: anchor})
				ch = &chapters[len(chapters)-1]
				sec = nil
				continue
			}
			ch.Sections = append(ch.Sections, doc.Section{Title: p.title, Anchor: anchor})
			sec = &ch.Sections[len(ch.Sections)-1]
		case roleContent:
			if sec == nil {
				// Text right under the chapter heading.
				ch.Sections = append(ch.Sections, doc.Section{Anchor: ch.Anchor})
				sec = &ch.Sections[len(ch.Sections)-1]
			}
			sec.Blocks = append(sec.Blocks, makeBlock(p, lay))
		}
	}
	return prune(chapters)
}

// untitled makes one chapter of all the text in ps.
func untitled(ps []para, lay layout) (doc.Chapter, bool) {
	n := 0
	for _, p := range ps {
		if p.role == roleContent {
			n++
		}
	}
	blocks := make([]doc.Block, 0, n)
	for _, p := range ps {
		if p.role == roleContent {
			blocks = append(blocks, makeBlock(p, lay))
		}
	}
	if n == 0 {
		return doc.Chapter{}, false
	}
	anchor := fmt.Sprintf("L%d", blocks[0].Line)
	return doc.Chapter{Anchor: anchor, Sections: []doc.Section{{Anchor: anchor, Blocks: blocks}}}, true
}

// fallback keeps a text that is nothing but headings or contents entries:
// better an odd chapter than losing the file.
func fallback(ps []para, lay layout) []doc.Chapter {
	all := make([]para, 0, len(ps))
	for _, p := range ps {
		if p.role != roleRule {
			p.role = roleContent
			all = append(all, p)
		}
	}
	if ch, ok := untitled(all, lay); ok {
		return []doc.Chapter{ch}
	}
	return nil
}

// prune removes sections without blocks and chapters without sections, so
// the tree keeps the invariants doc promises.
func prune(chapters []doc.Chapter) []doc.Chapter {
	out := chapters[:0]
	for _, c := range chapters {
		secs := c.Sections[:0]
		for _, s := range c.Sections {
			if len(s.Blocks) > 0 {
				secs = append(secs, s)
			}
		}
		c.Sections = secs
		if len(c.Sections) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// hasProse reports whether front matter holds a real sentence, not only
// title, author and edition lines.
func hasProse(ps []para) bool {
	for _, p := range ps {
		if p.role != roleContent {
			continue
		}
		words := 0
		for _, r := range p.rows {
			words += countWords(r.text)
		}
		if words >= 10 && endsSentence(p.rows[len(p.rows)-1].text) {
			return true
		}
	}
	return false
}

// guessTitle takes a short first line as the title of a text without a
// Gutenberg header, and a "by …" line after it as the author. A credit line
// ("Produced by …") before it is passed over.
func guessTitle(ps []para) (string, []string) {
	for len(ps) > 0 && len(ps[0].rows) == 1 && isCredit(ps[0].rows[0].text) {
		ps = ps[1:]
	}
	if len(ps) < 2 || len(ps[0].rows) != 1 || ps[0].role != roleContent {
		return "", nil
	}
	s := strings.TrimSpace(ps[0].rows[0].text)
	if len(s) > 80 || len(strings.Fields(s)) > 12 || !titleLine(s) || strings.HasSuffix(s, ".") || strings.HasSuffix(s, ":") {
		return "", nil
	}
	title := normalizeMeta(cleanTitle(s))
	if len(ps[1].rows) == 1 {
		by := strings.TrimSpace(ps[1].rows[0].text)
		if len(by) > 3 && len(by) <= 80 && strings.EqualFold(by[:3], "by ") {
			return title, splitAuthors(by[3:])
		}
	}
	return title, nil
}

func isCredit(line string) bool {
	s := strings.ToLower(strings.TrimSpace(line))
	for _, p := range []string{"produced by", "prepared by", "transcribed by", "e-text prepared by", "etext prepared by"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
