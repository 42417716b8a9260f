package retrieve

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/passage"
)

// A question may misspell the word its answer uses ("the Chesire Cat").
// Full text then found no passage by that word, and the no-match verdict
// read it as a word the library never uses, or as a name it never
// mentions, and said the library held no answer while the best passage was
// the answer. So before the arms run, a word of the question that no chunk
// holds is read as a word of full text's best passages one edit away (a
// letter left out, added, changed, or two neighbours swapped), when it is
// long enough that one edit rarely turns a word into another: "Byron" is
// one letter from "baron".
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

// spellings returns the words of passages, in a library of chunks.
func spellings(passages []string, chunks int) passageWords {
	pw := passageWords{byLen: make(map[int][]spelling), chunks: chunks}
	seen := make(map[string]bool)
	for i, p := range passages {
		words := make(map[string]bool)
		for _, w := range passage.Words(p) {
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

// respellPhrasings returns the phrasings with the words they misspell (see
// respell) as full text's best passages for them spell them, so that the
// arms look for "cheshire" where the question said "Chesire".
func (s *Searcher) respellPhrasings(ctx context.Context, r request) ([]string, error) {
	n, err := s.chunkCount(ctx)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(r.phrasings)
	for i, p := range r.phrasings {
		words := queryWords(p)
		stems, df, err := s.wordDocs(ctx, words)
		if err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(words, func(w string) bool { return misspellable(w, stems, df) }) {
			continue
		}
		q, err := s.matchExpr(ctx, p)
		if err != nil {
			return nil, err
		}
		if q.match == "" {
			continue
		}
		// The arm's candidates are read with the passages respelling
		// reads: the arm finds the same ones unless a word is respelled.
		hits, _, err := s.searchFTS(ctx, q, r.filter, r.pool)
		if err != nil {
			return nil, err
		}
		ids := make([]int64, len(hits))
		for j, h := range hits {
			ids[j] = h.ChunkID
		}
		texts, err := r.texts.get(ctx, ids)
		if err != nil {
			return nil, err
		}
		var passages []string
		for _, id := range ids[:min(len(ids), noMatchDepth)] {
			if t, ok := texts[id]; ok {
				passages = append(passages, index.JoinText(t.Heading, t.Context, t.Text))
			}
		}
		if len(passages) == 0 {
			continue
		}
		if re := respell(words, stems, df, spellings(passages, n)); len(re) > 0 {
			out[i] = replaceWords(p, re)
		}
	}
	return out, nil
}

// replaceWords returns text with each word whose lower case is a key of
// with replaced by its value.
func replaceWords(text string, with map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !passage.IsWordRune(r) {
			b.WriteString(text[i : i+n])
			i += n
			continue
		}
		j := passage.WordEnd(text, i)
		if c, ok := with[strings.ToLower(text[i:j])]; ok {
			b.WriteString(c)
		} else {
			b.WriteString(text[i:j])
		}
		i = j
	}
	return b.String()
}

// misspellable reports whether w (lower case) may be a misspelling respell
// reads as another word: no chunk holds it, it is long enough, and it is
// no code.
func misspellable(w string, stems map[string]string, df map[string]int) bool {
	if t, ok := stems[w]; ok && df[t] > 0 {
		return false
	}
	return utf8.RuneCountInString(index.FoldTerm(w)) >= respellMinRunes && !strings.ContainsFunc(w, unicode.IsDigit)
}

// respell returns, for each of words (lower case, as queryWords gives
// them) that no chunk holds, a word of the passages one edit away from it
// (the shortest, then the first), in a passage that also holds another
// word of the question, one that tells passages apart (in fewer than half
// of the chunks) and is not the word it stands for: "Chesire" is
// "cheshire" in a passage that says "cat"; "creatine" asked alone is not
// "creative". stems and df are the words' terms and their chunk counts
// (wordDocs). Words with digits are codes, where one character makes
// another thing ("H3", "H4"), and are left as they are.
func respell(words []string, stems map[string]string, df map[string]int, pw passageWords) map[string]string {
	var telling []string
	for _, w := range words {
		if t, ok := stems[w]; ok && df[t] > 0 && 2*df[t] <= pw.chunks {
			telling = append(telling, index.FoldTerm(w))
		}
	}
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
		if !misspellable(w, stems, df) {
			continue
		}
		folded := index.FoldTerm(w)
		runes := []rune(folded)
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
