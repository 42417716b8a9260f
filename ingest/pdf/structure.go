package pdf

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// mark is where a chapter (level 1) or a section (level 2) starts: the
// index of its first block. Deeper outline levels fold into their section.
type mark struct {
	level int
	title string
	start int
}

// frontMatter titles the chapter made of the text before the first
// outline destination (a title page, a preface without an entry).
const frontMatter = "Front matter"

// outlineMarks places outline entries in the text. An entry starts at its
// heading when the title is found on its destination page, else at the
// first block below the destination's top, else at the top of its page.
// Entries whose place would go back before the previous one's (outlines
// out of page order) start where the previous one does, so they end up
// empty rather than reshuffling the text.
func outlineMarks(entries []outlineEntry, blocks []block, pages []framedPage) []mark {
	entries = promoteSingleRoot(entries)
	// Where each page's blocks start.
	first := make([]int, len(pages)+1)
	bi := 0
	for pi := range pages {
		for bi < len(blocks) && blocks[bi].page < pi {
			bi++
		}
		first[pi] = bi
	}
	first[len(pages)] = len(blocks)
	var marks []mark
	last := 0
	for i, e := range entries {
		level := min(e.level, 3)
		if level == 3 {
			continue
		}
		if e.page < 0 || e.page >= len(pages) {
			// An entry without a destination starts with its first child
			// that has one.
			for _, c := range entries[i+1:] {
				if c.level <= e.level {
					break
				}
				if c.page >= 0 && c.page < len(pages) {
					e.page, e.hasX, e.hasY, e.x, e.y = c.page, c.hasX, c.hasY, c.x, c.y
					break
				}
			}
			if e.page < 0 || e.page >= len(pages) {
				continue
			}
		}
		start := locate(e, blocks, first, pages)
		start = max(start, last)
		last = start
		marks = append(marks, mark{level: level, title: e.title, start: start})
	}
	return marks
}

// promoteSingleRoot drops an outline's lone top entry (the document's own
// title, with every chapter below it) and lifts its children a level.
func promoteSingleRoot(entries []outlineEntry) []outlineEntry {
	tops, kids := 0, 0
	for _, e := range entries {
		switch e.level {
		case 1:
			tops++
		case 2:
			kids++
		}
	}
	if tops != 1 || kids < 2 || entries[0].level != 1 {
		return entries
	}
	out := make([]outlineEntry, 0, len(entries)-1)
	for _, e := range entries[1:] {
		e.level--
		out = append(out, e)
	}
	return out
}

// locate finds the block an entry starts at.
func locate(e outlineEntry, blocks []block, first []int, pages []framedPage) int {
	a, b := first[e.page], first[e.page+1]
	if a == b {
		// Nothing on the page (an image); the next text belongs to it.
		return a
	}
	want := titleKey(e.title)
	ty, hasY := 0.0, false
	if pg := pages[e.page]; e.hasY && pg.h > 0 && !pg.rotated {
		ty, hasY = pg.top-e.y, true
	}
	if want != "" {
		best, bestD := -1, math.Inf(1)
		for i := a; i < b; i++ {
			if !titleMatches(want, blocks[i]) {
				continue
			}
			d := 0.0
			if hasY {
				d = math.Abs(blocks[i].y0 - ty)
			}
			if d < bestD {
				best, bestD = i, d
			}
		}
		if best >= 0 {
			return best
		}
	}
	if hasY {
		tol := 6.0
		if e.hasX {
			x := e.x - pages[e.page].left
			for i := a; i < b; i++ {
				bl := blocks[i]
				if bl.y1 > ty-tol && x >= bl.x0-2*tol && x <= bl.x1 {
					return i
				}
			}
		}
		for i := a; i < b; i++ {
			if blocks[i].y1 > ty-tol {
				return i
			}
		}
		return b
	}
	return a
}

// titleKey reduces a title to lower-case letters and digits separated by
// single spaces.
func titleKey(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		} else {
			space = true
		}
	}
	return b.String()
}

// titleMatches reports a block that starts with the title, perhaps after
// a number the outline leaves out ("1 INTRODUCTION" for "Introduction"),
// or a heading block that the title continues past (a title broken over
// two blocks).
func titleMatches(want string, b block) bool {
	text := b.text
	if len(text) > 4*len(want)+400 {
		text = text[:4*len(want)+400]
	}
	got := titleKey(text)
	if got == "" {
		return false
	}
	if strings.HasPrefix(got, want) {
		return true
	}
	if g := stripNumber(got); g != got && strings.HasPrefix(g, stripNumber(want)) && stripNumber(want) != "" {
		return true
	}
	if w := stripNumber(want); w != want && strings.HasPrefix(got, w) && len(w) >= 4 {
		return true
	}
	if len(got) >= 6 && len(got) < len(want) && strings.HasPrefix(want, got) {
		return true
	}
	// A short heading that spells its number out ("CHAPTER THIRTEEN:
	// Eldred" for "13: Eldred").
	w := stripNumber(want)
	return b.lines <= 3 && len(got) <= 2*len(want)+24 && len(w) >= 4 && strings.HasSuffix(got, w)
}

// stripNumber drops a leading section number ("2 1 ", "iv ", "a ").
func stripNumber(s string) string {
	for {
		w, rest, ok := strings.Cut(s, " ")
		if !ok {
			return s
		}
		if allDigits(w) || isRoman(w) || len(w) == 1 || w == "chapter" || w == "part" || w == "section" || w == "appendix" {
			s = rest
			continue
		}
		return s
	}
}

func allDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

// inferHeadings finds headings in a document without an outline: short
// blocks set clearly larger than the body text, at a size used for at
// least two of them. The largest such size gives chapters, the next
// sections. It errs on the side of finding none: a missed heading makes a
// coarser outline, a false one cuts a chapter mid-argument.
func inferHeadings(blocks []block, bodySize float64) []mark {
	if bodySize <= 0 {
		return nil
	}
	sizeCount := map[float64]int{}
	cands := make([]bool, len(blocks))
	for i, b := range blocks {
		if !headingLike(b, bodySize) {
			continue
		}
		cands[i] = true
		sizeCount[roundSize(b.size)]++
	}
	var sizes []float64
	for s, n := range sizeCount {
		if n >= 2 {
			sizes = append(sizes, s)
		}
	}
	if len(sizes) == 0 {
		return nil
	}
	slices.Sort(sizes)
	slices.Reverse(sizes)
	level := func(s float64) int {
		for i, v := range sizes {
			if i > 1 {
				break
			}
			if v == s {
				return i + 1
			}
		}
		return 0
	}
	var marks []mark
	for i, b := range blocks {
		if !cands[i] {
			continue
		}
		lv := level(roundSize(b.size))
		if lv == 0 {
			continue
		}
		title := b.text
		// "Chapter 3" over "The Title": one heading.
		if n := len(marks); n > 0 && marks[n-1].level == lv && marks[n-1].start == i-1 && cands[i-1] {
			marks[n-1].title += " " + title
			continue
		}
		marks = append(marks, mark{level: lv, title: title, start: i})
	}
	chapters := 0
	for _, m := range marks {
		if m.level == 1 {
			chapters++
		}
	}
	if chapters < 2 {
		// One big heading is the title; its sections, if any, become the
		// chapters.
		var out []mark
		for _, m := range marks {
			if m.level == 2 {
				m.level = 1
				out = append(out, m)
			}
		}
		if len(out) < 2 {
			return nil
		}
		marks = out
	}
	return marks
}

func roundSize(s float64) float64 { return math.Round(s*2) / 2 }

func headingLike(b block, bodySize float64) bool {
	if b.lines > 3 || b.kind != doc.Paragraph || b.size < 1.15*bodySize {
		return false
	}
	t := b.text
	if len([]rune(t)) > 120 {
		return false
	}
	letters := 0
	for _, r := range t {
		if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters < 2 {
		return false
	}
	first := []rune(t)[0]
	if !unicode.IsUpper(first) && !unicode.IsDigit(first) && !unicode.Is(unicode.Han, first) && unicode.IsLower(first) {
		return false
	}
	return !strings.ContainsAny(t[len(t)-1:], ",;")
}

// bodySize is the font size of most of the text, weighted by characters.
func bodySize(pages []framedPage) float64 {
	count := map[float64]int{}
	for _, p := range pages {
		for _, l := range p.lines {
			count[roundSize(l.size)] += l.glyphs
		}
	}
	best, bestN := 0.0, 0
	for s, n := range count {
		if n > bestN || n == bestN && s < best {
			best, bestN = s, n
		}
	}
	return best
}

// chapters cuts the blocks at the marks into chapters and sections. Text
// before the first mark becomes a front-matter chapter; a chapter's text
// before its first section an untitled section. Chapters without text are
// left out.
func chapters(blocks []block, marks []mark, wholeTitle string) []doc.Chapter {
	toDoc := func(bs []block) []doc.Block {
		out := make([]doc.Block, 0, len(bs))
		for _, b := range bs {
			out = append(out, doc.Block{Kind: b.kind, Text: b.text, Page: b.page + 1})
		}
		return out
	}
	if len(marks) == 0 {
		if len(blocks) == 0 {
			return nil
		}
		return []doc.Chapter{{Title: wholeTitle, Sections: []doc.Section{{Blocks: toDoc(blocks)}}}}
	}
	var out []doc.Chapter
	var cur *doc.Chapter
	secStart, secTitle := 0, ""
	closeSection := func(end int) {
		if cur != nil && end > secStart {
			cur.Sections = append(cur.Sections, doc.Section{Title: secTitle, Blocks: toDoc(blocks[secStart:end])})
		}
	}
	closeChapter := func(end int) {
		closeSection(end)
		if cur != nil && len(cur.Sections) > 0 {
			out = append(out, *cur)
		}
		cur = nil
	}
	if marks[0].start > 0 || marks[0].level != 1 {
		cur = &doc.Chapter{Title: frontMatter}
		secStart, secTitle = 0, ""
	}
	for _, m := range marks {
		switch m.level {
		case 1:
			closeChapter(m.start)
			cur = &doc.Chapter{Title: m.title}
			secStart, secTitle = m.start, ""
		default:
			closeSection(m.start)
			secStart, secTitle = m.start, m.title
		}
	}
	closeChapter(len(blocks))
	return out
}
