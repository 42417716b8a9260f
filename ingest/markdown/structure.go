package markdown

import "github.com/grimoire-search/grimoire/ingest/doc"

// item is one top-level piece of the document in source order: either a
// heading (which may become a chapter or a section) or a block of text.
type item struct {
	heading bool
	level   int // heading level 1–6
	title   string
	line    int
	block   doc.Block
}

// introTitle names a preamble when the document has no title of its own to
// lend it.
const introTitle = "Introduction"

// outline is the heading levels chosen for a document.
type outline struct {
	titleIdx     int // index in items of the heading used as the document title, or -1
	chapterLevel int // 0 when there are no structural headings
	sectionLevel int // 0 when chapters have no sub-headings
}

// chooseOutline picks chapter and section levels from the headings present.
// Books vary: an mdBook chapter file is "# Chapter" over "## Sections", a
// sub-chapter file starts at "##", a docs page may use only "###". Taking the
// levels that occur, rather than fixed ones, gives every such file a real
// outline. A single leading H1 is the document's name, not a chapter: the
// chapters are the headings under it.
func chooseOutline(items []item) outline {
	o := outline{titleIdx: -1}
	first, h1 := -1, 0
	for i, it := range items {
		if !it.heading {
			continue
		}
		if first < 0 {
			first = i
		}
		if it.level == 1 {
			h1++
		}
	}
	if first < 0 {
		return o
	}
	if h1 == 1 && items[first].level == 1 {
		o.titleIdx = first
	}
	var present [7]bool
	for i, it := range items {
		if it.heading && i != o.titleIdx {
			present[it.level] = true
		}
	}
	for lv := 1; lv <= 6; lv++ {
		if !present[lv] {
			continue
		}
		switch {
		case o.chapterLevel == 0:
			o.chapterLevel = lv
		case o.sectionLevel == 0:
			o.sectionLevel = lv
		}
	}
	return o
}

// documentTitle is the front matter title, else the only H1, else the first
// heading.
func documentTitle(items []item, fmTitle string) string {
	if fmTitle != "" {
		return fmTitle
	}
	var h1s []string
	first := ""
	for _, it := range items {
		if !it.heading {
			continue
		}
		if first == "" {
			first = it.title
		}
		if it.level == 1 {
			h1s = append(h1s, it.title)
		}
	}
	if len(h1s) == 1 {
		return h1s[0]
	}
	return first
}

// buildChapters turns the items into chapters and sections, and returns them
// with the document title. Text is never dropped: what comes before the first
// chapter heading becomes a chapter of its own, and headings too deep to be
// sections stay in their section as text. Headings with nothing under them
// are dropped, so no chapter or section is empty.
func buildChapters(items []item, fmTitle string) ([]doc.Chapter, string) {
	o := chooseOutline(items)
	title := documentTitle(items, fmTitle)

	preamble := introTitle
	switch {
	case o.titleIdx >= 0:
		preamble = items[o.titleIdx].title
	case fmTitle != "":
		preamble = fmTitle
	}

	var chapters []doc.Chapter
	startChapter := func(title string, line int) {
		chapters = append(chapters, doc.Chapter{Title: title, Anchor: anchor(line)})
	}
	current := func() *doc.Chapter { return &chapters[len(chapters)-1] }
	startSection := func(title string, line int) {
		ch := current()
		ch.Sections = append(ch.Sections, doc.Section{Title: title, Anchor: anchor(line)})
	}
	addBlock := func(b doc.Block) {
		if len(chapters) == 0 {
			startChapter(preamble, b.Line)
		}
		ch := current()
		if len(ch.Sections) == 0 {
			ch.Sections = append(ch.Sections, doc.Section{Anchor: ch.Anchor})
		}
		s := &ch.Sections[len(ch.Sections)-1]
		s.Blocks = append(s.Blocks, b)
	}

	for i, it := range items {
		switch {
		case !it.heading:
			addBlock(it.block)
		case i == o.titleIdx:
			// Text under the title heading belongs to the preamble, which
			// may already have started with text above the heading.
			if len(chapters) == 0 {
				startChapter(preamble, it.line)
			}
		case it.level == o.chapterLevel:
			startChapter(it.title, it.line)
		case it.level == o.sectionLevel:
			if len(chapters) == 0 {
				startChapter(preamble, it.line)
			}
			startSection(it.title, it.line)
		default:
			addBlock(doc.Block{Kind: doc.Paragraph, Text: it.title, Line: it.line})
		}
	}
	return prune(chapters), title
}

// prune drops sections without blocks and then chapters without sections.
func prune(chapters []doc.Chapter) []doc.Chapter {
	out := chapters[:0]
	for _, ch := range chapters {
		secs := ch.Sections[:0]
		for _, s := range ch.Sections {
			if len(s.Blocks) > 0 {
				secs = append(secs, s)
			}
		}
		if len(secs) == 0 {
			continue
		}
		ch.Sections = secs
		out = append(out, ch)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
