package eval

import (
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// chapterPath is a gold chapter as the book's own table of contents names
// it, outermost entry first, each entry as its words.
type chapterPath [][]string

// parseChapterPath splits a gold chapter ("BOOK TWELVE: 1812 › CHAPTER
// XIII") into its entries.
func parseChapterPath(s string) chapterPath {
	var p chapterPath
	for _, part := range strings.Split(s, "›") {
		if w := titleWords(part); len(w) > 0 {
			p = append(p, w)
		}
	}
	return p
}

// titleWords returns a title's words, normalised and case-folded: only
// letters and digits count, so punctuation and typographic quotes
// ("Alice’s Evidence", "CHAPITRE XXX.") do not.
func titleWords(s string) []string {
	s = cases.Fold().String(norm.NFKC.String(s))
	return strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) })
}

// names reports whether a title names a gold entry: the same words, or,
// when the shorter has at least two words, the shorter's words in a row
// inside the longer's. Editions title one chapter differently ("CHAPITRE
// XXX." and "CHAPITRE XXX. Conclusion.", "Advice From A Caterpillar" and
// "CHAPTER V. Advice from a Caterpillar"); one word alone ("I.") says too
// little to be found inside another title.
func names(title, entry []string) bool {
	short, long := title, entry
	if len(short) > len(long) {
		short, long = long, short
	}
	if len(short) == 0 {
		return false
	}
	if len(short) == len(long) || len(short) >= 2 {
		for i := 0; i+len(short) <= len(long); i++ {
			if equalWords(short, long[i:i+len(short)]) {
				return true
			}
		}
	}
	return false
}

func equalWords(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// deepest returns the depth (1-based) of the deepest gold entry a title
// names, or 0.
func (p chapterPath) deepest(title []string) int {
	for i := len(p) - 1; i >= 0; i-- {
		if names(title, p[i]) {
			return i + 1
		}
	}
	return 0
}

// holds reports whether a hit whose chapter and section carry these
// titles lies in the gold chapter. The engine's outline has two levels and
// may start lower than the book's (no "Part I" above "Chapter 10") or
// stop higher (no "3.2.1" below "3.2"), so the rule is: the hit's titles
// must name the gold path down to its second entry (its only one when it
// has one). A section title may be a path itself ("Variables and
// Mutability › Declaring Constants" below an mdBook's top chapter); each
// of its entries counts below an entry named before it, or as the first
// entry when none was named: "BOOK TWELVE: 1812 › CHAPTER XIII" is not
// "BOOK NINE: 1812 › CHAPTER XIII", but "Hans Christian Andersen › 194 THE
// NIGHTINGALE" is "194 THE NIGHTINGALE".
func (p chapterPath) holds(chapter, section string) bool {
	if len(p) == 0 {
		return false
	}
	cw := titleWords(chapter)
	depth := p.deepest(cw)
	last := cw
	for _, part := range strings.Split(section, "›") {
		sw := titleWords(part)
		if len(sw) == 0 || equalWords(sw, last) {
			continue
		}
		if d := p.deepest(sw); d > depth && (depth > 0 || d == 1) {
			depth = d
		}
		last = sw
	}
	return depth >= min(len(p), 2)
}
