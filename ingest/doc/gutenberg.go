package doc

import (
	"regexp"
	"strings"
)

// Project Gutenberg wraps every book in a header and a licence, whatever
// the format: a plain text file between "*** START OF …" and "*** END OF
// …" lines, an EPUB with the header in its first file and the licence in
// its last, or as a file of its own. These rules say where the book
// proper starts and ends, for every format: the text parser applies them to
// a file's lines before it finds the structure, and the ingest pipeline to
// every parsed document (DropGutenberg).
//
// The markers changed over the decades; these cover the "*** START OF
// THE/THIS PROJECT GUTENBERG EBOOK … ***" family, the 1990s "*END*THE
// SMALL PRINT!" header, the "End of [the] Project Gutenberg …" line that
// precedes (or, in old files, replaces) the END marker, and the heading of
// the full licence, which some EPUBs carry without an END marker. Each is
// taken only at the start of a line: a book that quotes them mid-sentence
// keeps them.
var (
	pgStart      = regexp.MustCompile(`(?i)^\*{3}\s*START OF (?:THE |THIS )?PROJECT GUTENBERG`)
	pgSmallPrint = regexp.MustCompile(`(?i)^\*END\*?\s*THE SMALL PRINT`)
	pgEnd        = regexp.MustCompile(`(?i)^(?:\*{3}\s*END OF (?:THE |THIS )?PROJECT GUTENBERG|END OF (?:THE |THIS )?PROJECT GUTENBERG)`)
	pgLicence    = regexp.MustCompile(`(?i)^(?:\*{0,5}\s*START: FULL LICEN[CS]E|THE FULL PROJECT GUTENBERG(?:™|-tm)? LICEN[CS]E)`)
)

// maxFraming is the most text, in bytes, that a header or a footer may
// hold: the longest in Gutenberg's files, the 1990s "small print" header
// and the full licence, are under 20,000. A marker with more before it
// (as a START) or after it (as an END) frames something else and is not
// taken: nothing of a book is lost.
const maxFraming = 40000

// GutenbergFrame is where the book proper lies in a run of lines.
type GutenbergFrame struct {
	// Header is the line of the START (or small print) marker, -1 when
	// there is none; Start is the book's first line, End is just past its
	// last.
	Header, Start, End int
}

// Found reports whether the frame found a header or a footer in n lines.
func (f GutenbergFrame) Found(n int) bool { return f.Header >= 0 || f.End < n }

// FindGutenberg locates the book between a Project Gutenberg header and
// footer. Without a START marker the book starts at the first line;
// without an END marker it runs to the last. Books joined in one file keep
// all their text: a START marker after a footer does not open the header,
// and an END marker before a further header does not close the book.
func FindGutenberg(lines []string) GutenbergFrame {
	f := GutenbergFrame{Header: -1, Start: 0, End: len(lines)}
	lastHeader := -1
	for i, l := range lines {
		if t := strings.TrimLeft(l, " \t"); strings.HasPrefix(t, "*") && isHeader(t) {
			lastHeader = i
		}
	}
	before := 0 // bytes before line i
	for i, l := range lines {
		if before > maxFraming {
			break
		}
		before += len(l) + 1
		t := strings.TrimLeft(l, " \t")
		if isFooter(t) {
			break
		}
		if !strings.HasPrefix(t, "*") {
			continue
		}
		if pgStart.MatchString(t) {
			f.Header = i
			break
		}
		if f.Header < 0 && pgSmallPrint.MatchString(t) {
			// Keep looking: a later START marker is the better boundary.
			f.Header = i
		}
	}
	if f.Header >= 0 {
		f.Start = f.Header + 1
		// A long title can wrap the marker over a few lines; the marker
		// ends at the line that closes it with "***".
		if !strings.HasSuffix(strings.TrimSpace(lines[f.Header]), "***") {
			for j := f.Header + 1; j < len(lines) && j <= f.Header+3; j++ {
				if strings.HasSuffix(strings.TrimSpace(lines[j]), "***") {
					f.Start = j + 1
					break
				}
			}
		}
	}
	from := max(f.Start, lastHeader+1)
	after := 0 // bytes from line i to the end
	for _, l := range lines[from:] {
		after += len(l) + 1
	}
	for i := from; i < len(lines); i++ {
		if after <= maxFraming && isFooter(strings.TrimLeft(lines[i], " \t")) {
			f.End = i
			break
		}
		after -= len(lines[i]) + 1
	}
	return f
}

func isHeader(t string) bool { return pgStart.MatchString(t) || pgSmallPrint.MatchString(t) }

func isFooter(t string) bool {
	if t == "" {
		return false
	}
	switch t[0] {
	case '*', 'E', 'e', 'S', 's', 'T', 't':
		return pgEnd.MatchString(t) || pgLicence.MatchString(t)
	}
	return false
}

// DropGutenberg removes a Project Gutenberg header and footer from d, as
// FindGutenberg frames the lines of its titles and blocks, and the short
// notes about Project Gutenberg just before the footer. It also removes a
// section that is only a Gutenberg header without markers (an EPUB's
// "Copyright Page" with the licence sentence and the Title:, Author: and
// Release Date: lines). Chapters and sections it empties go too. It reports
// whether it removed anything.
func (d *Document) DropGutenberg() bool {
	type place struct{ c, s, b, l int } // b < 0: a chapter's or section's title
	var lines []string
	var places []place
	for ci, c := range d.Chapters {
		lines, places = append(lines, c.Title), append(places, place{ci, -1, -1, 0})
		for si, s := range c.Sections {
			lines, places = append(lines, s.Title), append(places, place{ci, si, -1, 0})
			for bi, b := range s.Blocks {
				for li, l := range strings.Split(b.Text, "\n") {
					lines, places = append(lines, l), append(places, place{ci, si, bi, li})
				}
			}
		}
	}
	f := FindGutenberg(lines)
	framed := f.Found(len(lines))

	// drop[c][s][b]: the block goes; keep holds the lines kept of blocks
	// the frame cuts through.
	drop := make([][][]bool, len(d.Chapters))
	for ci, c := range d.Chapters {
		drop[ci] = make([][]bool, len(c.Sections))
		for si, s := range c.Sections {
			drop[ci][si] = make([]bool, len(s.Blocks))
		}
	}
	type blockRef struct{ c, s, b int }
	kept := make(map[blockRef][]string)
	cut := make(map[blockRef]bool)
	// A chapter or section whose title lies outside the frame goes when
	// its blocks do, even if it had none.
	titleOut := make(map[[2]int]bool)
	for i, p := range places {
		in := i >= f.Start && i < f.End
		if p.b < 0 {
			titleOut[[2]int{p.c, p.s}] = !in
			continue
		}
		r := blockRef{p.c, p.s, p.b}
		if in {
			kept[r] = append(kept[r], lines[i])
		} else {
			cut[r] = true
		}
	}
	changed := false
	var last []blockRef // the blocks left before the footer, in order
	for ci, c := range d.Chapters {
		for si, s := range c.Sections {
			for bi := range s.Blocks {
				r := blockRef{ci, si, bi}
				if !cut[r] {
					last = append(last, r)
					continue
				}
				changed = true
				text := strings.TrimSpace(strings.Join(kept[r], "\n"))
				if text == "" {
					drop[ci][si][bi] = true
					continue
				}
				s.Blocks[bi].Text = text
				last = append(last, r)
			}
		}
	}
	if framed && f.End < len(lines) {
		// Old files put a line or two about the licence or the file's
		// name just before the footer.
		for len(last) > 0 {
			r := last[len(last)-1]
			if !GutenbergFooterNote(d.Chapters[r.c].Sections[r.s].Blocks[r.b].Text) {
				break
			}
			drop[r.c][r.s][r.b] = true
			last = last[:len(last)-1]
			changed = true
		}
	}
	for ci, c := range d.Chapters {
		for si, s := range c.Sections {
			if isGutenbergHeader(s) {
				for bi := range s.Blocks {
					drop[ci][si][bi] = true
				}
				titleOut[[2]int{ci, si}] = true
				changed = true
			}
		}
	}
	if !changed {
		return false
	}
	chapters := d.Chapters[:0]
	for ci, c := range d.Chapters {
		sections := c.Sections[:0]
		for si, s := range c.Sections {
			blocks := s.Blocks[:0]
			for bi, b := range s.Blocks {
				if !drop[ci][si][bi] {
					blocks = append(blocks, b)
				}
			}
			if len(blocks) == 0 && (len(s.Blocks) > 0 || titleOut[[2]int{ci, si}]) {
				continue
			}
			s.Blocks = blocks
			sections = append(sections, s)
		}
		if len(sections) == 0 && (len(c.Sections) > 0 || titleOut[[2]int{ci, -1}]) {
			continue
		}
		c.Sections = sections
		chapters = append(chapters, c)
	}
	d.Chapters = chapters
	return true
}

// GutenbergFooterNote reports whether a paragraph is a short note about
// Project Gutenberg or the file ("End of Project Gutenberg's Etext of …",
// "This file should be named …"), of the kind old files put just before
// their footer.
func GutenbergFooterNote(text string) bool {
	if len(text) > 200 || strings.Count(text, "\n") > 2 {
		return false
	}
	t := strings.ToLower(text)
	return strings.Contains(t, "project gutenberg") || strings.Contains(t, "this file should be named")
}

// pgHeaderLine matches the lines of a Gutenberg header: the title line, the
// sentence every header has, the fields, the producers.
var (
	pgHeaderLine  = regexp.MustCompile(`(?i)^(?:the project gutenberg(?:['’]s)? e-?(?:book|text) of |this e-?(?:book|text) is for the use of anyone anywhere|(?:title|author|authors|editor|translator|illustrator|release date|posting date|last updated|most recently updated|first posted|language|character set encoding|credits|produced by)\s*:|produced by )`)
	pgUseSentence = regexp.MustCompile(`(?i)^this e-?(?:book|text) is for the use of anyone anywhere`)
)

// isGutenbergHeader reports whether a section holds nothing but a
// Gutenberg header: every paragraph opens like a header's lines, and one
// of them is the sentence every header has.
func isGutenbergHeader(s Section) bool {
	sentence := false
	for _, b := range s.Blocks {
		for _, p := range strings.Split(b.Text, "\n\n") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if !pgHeaderLine.MatchString(p) {
				return false
			}
			sentence = sentence || pgUseSentence.MatchString(p)
		}
	}
	return sentence
}
