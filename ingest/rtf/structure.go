package rtf

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// layout makes chapters of the paragraphs at their headings: the
// shallowest heading level that occurs more than once makes the chapters
// (a level used once is the document's title), and the next level present
// below it the sections; deeper headings stay in the text. Paragraphs
// before the first chapter heading are a chapter of their own, named by a
// heading among them if there is one.
func layout(pars []par) []doc.Chapter {
	count := map[int]int{}
	for _, p := range pars {
		if p.level > 0 {
			count[p.level]++
		}
	}
	chapterLevel, sectionLevel := 0, 0
	for l := 1; l <= 9; l++ {
		if count[l] > 1 || (count[l] == 1 && chapterLevel == 0 && len(count) == 1) {
			chapterLevel = l
			break
		}
	}
	for l := chapterLevel + 1; chapterLevel > 0 && l <= 9; l++ {
		if count[l] > 0 {
			sectionLevel = l
			break
		}
	}

	var out []doc.Chapter
	var ch *doc.Chapter
	var sec *doc.Section
	leadTitled := false // the lead chapter's title heading is yet to come
	newChapter := func(title string, line int) {
		out = append(out, doc.Chapter{Title: title, Anchor: anchor(line)})
		ch = &out[len(out)-1]
		ch.Sections = append(ch.Sections, doc.Section{Anchor: anchor(line)})
		sec = &ch.Sections[0]
	}
	for i, p := range pars {
		switch {
		case p.level > 0 && p.level == chapterLevel:
			newChapter(p.text, p.line)
			leadTitled = false
			continue
		case p.level > 0 && p.level == sectionLevel && ch != nil:
			ch.Sections = append(ch.Sections, doc.Section{Title: p.text, Anchor: anchor(p.line)})
			sec = &ch.Sections[len(ch.Sections)-1]
			continue
		case ch == nil:
			newChapter(leadTitle(pars[i:], chapterLevel), p.line)
			leadTitled = ch.Title != ""
		}
		if leadTitled && p.level > 0 && p.text == ch.Title {
			leadTitled = false
			continue
		}
		sec.Blocks = append(sec.Blocks, doc.Block{Kind: p.kind, Text: p.text, Line: p.line})
	}
	return prune(out)
}

// leadTitle names the text before the first chapter heading by its first
// heading, if it has one.
func leadTitle(pars []par, chapterLevel int) string {
	for _, p := range pars {
		if p.level == chapterLevel && chapterLevel > 0 {
			break
		}
		if p.level > 0 {
			return p.text
		}
	}
	return ""
}

// prune drops sections and chapters without text. A chapter that is only
// its heading keeps the heading as its text, rather than vanish.
func prune(chs []doc.Chapter) []doc.Chapter {
	out := chs[:0]
	for _, c := range chs {
		secs := c.Sections[:0]
		for _, s := range c.Sections {
			if len(s.Blocks) > 0 {
				secs = append(secs, s)
			} else if s.Title != "" {
				// A section heading with nothing under it (a subtitle)
				// is text of the section before it.
				b := doc.Block{Kind: doc.Paragraph, Text: s.Title, Line: lineOf(s.Anchor)}
				if len(secs) > 0 {
					secs[len(secs)-1].Blocks = append(secs[len(secs)-1].Blocks, b)
				} else {
					secs = append(secs, doc.Section{Anchor: s.Anchor, Blocks: []doc.Block{b}})
				}
			}
		}
		if len(secs) == 0 && c.Title != "" {
			secs = append(secs, doc.Section{Anchor: c.Anchor, Blocks: []doc.Block{{Kind: doc.Paragraph, Text: c.Title, Line: lineOf(c.Anchor)}}})
		}
		if len(secs) > 0 {
			c.Sections = secs
			out = append(out, c)
		}
	}
	return out
}

func anchor(line int) string {
	if line <= 0 {
		return ""
	}
	return "L" + strconv.Itoa(line)
}

// lineOf reads the line back from an anchor.
func lineOf(anchor string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(anchor, "L"))
	return n
}

// sameTitle compares titles by their letters and digits only.
func sameTitle(a, b string) bool {
	key := func(s string) string {
		var sb strings.Builder
		for _, r := range s {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				sb.WriteRune(unicode.ToLower(r))
			}
		}
		return sb.String()
	}
	return key(a) == key(b)
}
