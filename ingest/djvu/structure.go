package djvu

import (
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// pageLine is a line of the document with its 1-based page.
type pageLine struct {
	line
	page int
}

// entry is an outline entry placed on a page: level 0 entries are
// chapters, deeper ones sections.
type entry struct {
	title string
	level int
	page  int
}

// flatten lists the outline's entries in order with their pages, leaving
// out those that name no page of the document or go back before the entry
// before them (the text is read in page order).
func flatten(bs []bookmark, pageOf map[string]int, pages int) []entry {
	var out []entry
	last := 0
	var walk func(bs []bookmark, level int)
	walk = func(bs []bookmark, level int) {
		for _, b := range bs {
			p := target(b.url, pageOf, pages)
			if p > 0 && p >= last && b.title != "" {
				out = append(out, entry{title: b.title, level: level, page: p})
				last = p
			}
			walk(b.children, level+1)
		}
	}
	walk(bs, 0)
	return out
}

// chapters lays the lines out under the outline: each entry starts at the
// line of its page that shows its title, else at its page's first line
// (or where the entry before it started, on the same page). Without an
// outline the document is one untitled chapter.
func chapters(lines []pageLine, entries []entry) []doc.Chapter {
	type cut struct {
		entry
		at int // first line of the entry
	}
	var cuts []cut
	cursor := 0
	for _, e := range entries {
		first := cursor
		for first < len(lines) && lines[first].page < e.page {
			first++
		}
		at, found := first, false
		t := norm(e.title)
		for i := first; i < len(lines) && lines[i].page == e.page && t != ""; i++ {
			if n := norm(lines[i].text); strings.HasPrefix(n, t) && (len(t) >= 3 || n == t) {
				at, found = i, true
				break
			}
		}
		if !found && first < len(lines) && lines[first].page != e.page {
			// The page has no text: the entry starts where the next page
			// does.
			at = first
		}
		cuts = append(cuts, cut{entry: e, at: at})
		cursor = at
	}

	var out []doc.Chapter
	// A heading's line stays in the text, as on the page (and as PDF
	// pages keep theirs).
	add := func(title string, level int, ls []pageLine) {
		blocks := toBlocks(ls)
		if level == 0 || len(out) == 0 {
			out = append(out, doc.Chapter{Title: title})
			if len(blocks) > 0 {
				out[len(out)-1].Sections = []doc.Section{{Blocks: blocks}}
			}
			return
		}
		if len(blocks) == 0 {
			return
		}
		ch := &out[len(out)-1]
		ch.Sections = append(ch.Sections, doc.Section{Title: title, Blocks: blocks})
	}
	start := len(lines)
	if len(cuts) > 0 {
		start = cuts[0].at
	}
	if start > 0 {
		add("", 0, lines[:start])
	}
	for i, c := range cuts {
		end := len(lines)
		if i+1 < len(cuts) {
			end = cuts[i+1].at
		}
		add(c.title, c.level, lines[c.at:end])
	}
	// A chapter whose entry held no text of its own is left out; the
	// sections after it keep theirs.
	kept := out[:0]
	for _, ch := range out {
		if len(ch.Sections) > 0 {
			kept = append(kept, ch)
		}
	}
	return kept
}

// toBlocks groups lines into paragraphs: consecutive lines of one page and
// one paragraph, kept on their own lines.
func toBlocks(ls []pageLine) []doc.Block {
	var out []doc.Block
	var sb strings.Builder
	for i, l := range ls {
		if i > 0 && (l.page != ls[i-1].page || l.paragraph != ls[i-1].paragraph) {
			out = append(out, doc.Block{Kind: doc.Paragraph, Text: sb.String(), Page: ls[i-1].page})
			sb.Reset()
		}
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(l.text)
	}
	if sb.Len() > 0 {
		out = append(out, doc.Block{Kind: doc.Paragraph, Text: sb.String(), Page: ls[len(ls)-1].page})
	}
	return out
}
