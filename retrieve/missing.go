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

// maxMissing bounds the words a search names as missing: a pasted log
// would otherwise list dozens.
const maxMissing = 8

// missingWords returns the words of the question that no book of the
// library holds, as the question writes them ("OpenTelemetry",
// "800-63B"), in its order: what a client can name as absent from the
// library. A word counts as held when a passage holds a word of the same
// stem ("databases" for "database") or the same letters without their
// accents, when a book's title or author holds it (a question names an
// author the books themselves never do), and when the library writes it
// as two words or with a hyphen ("e-mail" for "email"). Words of one
// letter are never named, nor words of scripts written without spaces
// (Chinese, Japanese, Thai…) or that join particles to the word (Hebrew,
// Arabic, Korean): a word of the question may sit inside a longer run of
// the library's text. A small library lacks most words ("why", "does"),
// and names only the question's names there (see names).
func (s *Searcher) missingWords(ctx context.Context, question string, most int) ([]string, error) {
	n, err := s.chunkCount(ctx)
	if err != nil {
		return nil, err
	}
	var onlyNames map[string]bool
	if n < absentMinChunks {
		onlyNames = make(map[string]bool)
		for _, w := range names(question) {
			onlyNames[strings.ToLower(w)] = true
		}
	}
	spans := questionSpans(question)
	var words []string
	for _, sp := range spans {
		words = append(words, sp.parts...)
	}
	if len(words) == 0 {
		return nil, nil
	}
	stems, df, err := s.wordDocs(ctx, words)
	if err != nil {
		return nil, err
	}
	absent := func(p string) bool {
		t, ok := stems[p]
		return ok && df[t] == 0 && utf8.RuneCountInString(p) >= 2 && !unspaced(p) && (onlyNames == nil || onlyNames[p])
	}
	// The halves of every absent word, in one question.
	var halves []string
	for _, sp := range spans {
		for _, p := range sp.parts {
			if absent(p) {
				halves = append(halves, halvesOf(p)...)
			}
		}
	}
	if _, _, err := s.wordDocs(ctx, halves); err != nil {
		return nil, err
	}
	var out []string
	for _, sp := range spans {
		if len(out) == most {
			break
		}
		for _, p := range sp.parts {
			if !absent(p) {
				continue
			}
			held, err := s.heldOtherwise(ctx, p)
			if err != nil {
				return nil, err
			}
			if !held {
				if !slices.Contains(out, sp.text) {
					out = append(out, sp.text)
				}
				break
			}
		}
	}
	return out, nil
}

// heldOtherwise reports whether a word no passage holds is the library's
// all the same: in a book's title or author, or written there as two
// words in a row ("e-mail", "data base").
func (s *Searcher) heldOtherwise(ctx context.Context, word string) (bool, error) {
	st, err := s.state(ctx)
	if err != nil || s.namesBook(st.lib, word) {
		return err == nil, err
	}
	r := []rune(word)
	halves := halvesOf(word)
	if len(halves) == 0 {
		return false, nil
	}
	hs, hdf, err := s.wordDocs(ctx, halves)
	if err != nil {
		return false, err
	}
	known := func(w string) bool { t, ok := hs[w]; return ok && hdf[t] > 0 }
	for i := 1; i < len(r); i++ {
		left, right := string(r[:i]), string(r[i:])
		if !known(left) || !known(right) {
			continue
		}
		hits, err := s.db.SearchFTS(ctx, `"`+left+" "+right+`"`, index.BookFilter{ReadyOnly: true}, s.opts.Columns, 1)
		if err != nil || len(hits) > 0 {
			return len(hits) > 0, err
		}
	}
	return false, nil
}

// halvesOf returns the two parts of each place a word of four letters or
// more could be cut in, as two words the library might write it as.
func halvesOf(word string) []string {
	r := []rune(word)
	if len(r) < 4 {
		return nil
	}
	var halves []string
	for i := 1; i < len(r); i++ {
		halves = append(halves, string(r[:i]), string(r[i:]))
	}
	return halves
}

// wordSpan is a word of the question as written, with the index words it is
// made of: "800-63B" of "800" and "63b".
type wordSpan struct {
	text  string
	parts []string
}

// questionSpans cuts text at spaces into the words it writes, without
// the punctuation around them or a possessive "'s".
func questionSpans(text string) []wordSpan {
	var out []wordSpan
	for _, f := range strings.Fields(text) {
		f = strings.TrimFunc(f, func(r rune) bool { return !passage.IsWordRune(r) })
		for _, s := range []string{"'s", "’s", "'S", "’S"} {
			f = strings.TrimSuffix(f, s)
		}
		parts := strings.FieldsFunc(strings.ToLower(f), func(r rune) bool { return !passage.IsWordRune(r) })
		if len(parts) > 0 {
			out = append(out, wordSpan{text: f, parts: parts})
		}
	}
	return out
}

// unspaced reports whether a word is of a script whose index words are
// not the words a question writes: written without spaces, or with
// particles joined to the word ("בעולם", in the world).
func unspaced(w string) bool {
	return strings.ContainsFunc(w, func(r rune) bool {
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
			unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar, unicode.Tibetan,
			unicode.Hebrew, unicode.Arabic)
	})
}

// Missing returns the words of text that no book of the library holds
// (see missingWords): a search that found no passage names them so.
func (s *Searcher) Missing(ctx context.Context, text string) ([]string, error) {
	var missing []string
	err := s.withState(ctx, func(ctx context.Context) (err error) {
		missing, err = s.missingWords(ctx, strings.TrimSpace(text), maxMissing)
		return err
	})
	return missing, err
}

// MissingLine says which words no book holds, as a sentence: No book in
// the library holds the words "Moriarty" and "Reichenbach".
func MissingLine(missing []string) string {
	q := make([]string, len(missing))
	for i, w := range missing {
		q[i] = `"` + w + `"`
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return "No book in the library holds the word " + q[0] + "."
	}
	return "No book in the library holds the words " + strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1] + "."
}
