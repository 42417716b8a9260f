package retrieve

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/passage"
)

// excerptKey is how many letters of a question's word an excerpt matches
// on: "sharpened" holds "sharpen", "whales" "whale".
const excerptKey = 5

// Excerpt returns at most n runes of a passage, where it holds the most of
// the question's words: the window that starts at the passage's start or
// at a sentence's, and holds the most distinct words of four letters or
// more of the question (matched on their first five letters, accents and
// case set aside), the earliest of equals. A cut is marked "…". A
// passage's answer is often past its first lines, which are all a short
// excerpt from its start would show.
func Excerpt(text, question string, n int) string {
	r := []rune(text)
	if len(r) <= n {
		return text
	}
	keys := make(map[string]bool)
	for _, w := range distinctWords(index.FoldTerm(question), 0) {
		if utf8.RuneCountInString(w) >= 4 {
			keys[prefix(w, excerptKey)] = true
		}
	}
	// The words of the passage that match a key, by where they start.
	type word struct {
		at, end int
		key     string
	}
	var words []word
	starts := []int{0}
	for i := 0; i < len(r); {
		if !passage.IsWordRune(r[i]) {
			if strings.ContainsRune(".?!\n", r[i]) && i+1 < len(r) {
				j := i + 1
				for j < len(r) && unicode.IsSpace(r[j]) {
					j++
				}
				if j > i+1 && j < len(r) {
					starts = append(starts, j)
				}
			}
			i++
			continue
		}
		j := i
		for j < len(r) && passage.IsWordRune(r[j]) {
			j++
		}
		if k := prefix(index.FoldTerm(string(r[i:j])), excerptKey); keys[k] {
			words = append(words, word{i, j, k})
		}
		i = j
	}
	best, bestScore := 0, -1
	for _, s := range starts {
		if s > 0 && len(r)-s < n/2 {
			break // a window this late would show less than the cut allows
		}
		seen := make(map[string]bool)
		for _, w := range words {
			// Whole, and before the marks of the cuts.
			if w.at >= s && w.end <= s+n-2 {
				seen[w.key] = true
			}
		}
		if len(seen) > bestScore {
			best, bestScore = s, len(seen)
		}
	}
	if best == 0 {
		return CutAtWord(text, n)
	}
	return "…" + CutAtWord(string(r[best:]), n-1)
}

// prefix is the first n runes of w.
func prefix(w string, n int) string {
	for i := range w {
		if n == 0 {
			return w[:i]
		}
		n--
	}
	return w
}

// CutAtWord returns s cut to at most n runes, at the last space before
// the cut when there is one in its second half, with "…" in place of the
// rest.
func CutAtWord(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := n - 1
	for i := cut; i > n/2; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " ") + "…"
}
