package retrieve

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/index"
)

// A question may misspell the word its answer uses ("the Chesire Cat"). The
// ranking forgives that (sub-words), but the no-match verdict read such a
// word as one the library never uses, or as a name it never mentions, and
// said the library held no answer while the best passage was the answer.
// So a word of the question that no chunk holds is read as a word of the
// best passages one edit away (a letter left out, added, changed, or two
// neighbours swapped), when it is long enough that one edit rarely turns
// a word into another: "Byron" is one letter from "baron".
const respellMinRunes = 6

// passageWords are the words of some passages, folded as the index folds
// them: each passage's, and those a misspelled word could stand for,
// grouped by their length in runes, in the passages' order.
type passageWords struct {
	of     []map[string]bool
	byLen  map[int][]spelling
	chunks int // in the library
}

type spelling struct {
	word    string
	passage int
}

// spellings returns the words of hits' headings, contexts and texts.
func spellings(hits []Hit, chunks int) passageWords {
	pw := passageWords{byLen: make(map[int][]spelling), chunks: chunks}
	seen := make(map[string]bool)
	for i, h := range hits {
		words := make(map[string]bool)
		text := index.FoldTerm(h.Heading + " " + h.Context + " " + h.Text)
		for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !isWordRune(r) }) {
			words[w] = true
			n := utf8.RuneCountInString(w)
			if n < respellMinRunes-1 || seen[w] || strings.ContainsFunc(w, unicode.IsDigit) {
				continue
			}
			seen[w] = true
			pw.byLen[n] = append(pw.byLen[n], spelling{w, i})
		}
		pw.of = append(pw.of, words)
	}
	return pw
}

// respell returns, for each of words (lower case, as queryWords gives
// them) that no chunk holds, the first word of the passages one edit away
// from it, in a passage that also holds another word of the question, one
// that tells passages apart (in fewer than half of the chunks) and is not
// the word it stands for: "Chesire" is "cheshire" in a passage that says
// "cat"; "creatine" asked alone is not "creative". stems and df are the
// words' terms and their chunk counts (wordDocs). Words with digits are
// codes, where one character makes another thing ("H3", "H4"), and are
// left as they are.
func respell(words []string, stems map[string]string, df map[string]int, near func() passageWords) map[string]string {
	var pw passageWords
	var telling []string
	supported := func(passage int, typo, word string) bool {
		for _, w := range telling {
			if w != typo && w != word && pw.of[passage][w] {
				return true
			}
		}
		return false
	}
	var out map[string]string
	for _, w := range words {
		if t, ok := stems[w]; ok && df[t] > 0 {
			continue
		}
		folded := index.FoldTerm(w)
		runes := []rune(folded)
		if len(runes) < respellMinRunes || strings.ContainsFunc(w, unicode.IsDigit) {
			continue
		}
		if pw.of == nil {
			pw = near()
			for _, w := range words {
				if t, ok := stems[w]; ok && df[t] > 0 && 2*df[t] <= pw.chunks {
					telling = append(telling, index.FoldTerm(w))
				}
			}
		}
	search:
		for n := len(runes) - 1; n <= len(runes)+1; n++ {
			for _, c := range pw.byLen[n] {
				if oneEdit(runes, []rune(c.word)) && supported(c.passage, folded, c.word) {
					if out == nil {
						out = make(map[string]string)
					}
					out[w] = c.word
					break search
				}
			}
		}
	}
	return out
}

// oneEdit reports whether b is a, one rune left out, added or changed, or
// two neighbouring runes swapped.
func oneEdit(a, b []rune) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	switch len(b) - len(a) {
	case 0:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		if i == len(a) {
			return false // the same word
		}
		if i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && string(a[i+2:]) == string(b[i+2:]) {
			return true
		}
		return string(a[i+1:]) == string(b[i+1:])
	case 1:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return string(a[i:]) == string(b[i+1:])
	}
	return false
}
