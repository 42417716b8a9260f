package fulltext

// Tokenizer is how the full-text index cuts and folds text, as chunk_fts
// was created with it (the index's migration 1, which a test holds to
// it): a word's stem is the term the index holds. The Go tokenizer (tokens.go, porter.go) cuts, folds and stems as
// it does, and the tests hold the two together.
const Tokenizer = "porter " + folding

// folding is the tokenizer under the stemmer: how text is cut and folded.
const folding = "unicode61 remove_diacritics 2"

// Stems returns the term the full-text index holds for each word, keyed by
// word (folded, without diacritics, Porter-stemmed: "prisoners" is
// "prison"): what a search for the word matches, and what TermDocs counts.
// A word of which the tokenizer makes no term is absent; one it cuts into
// several keeps its first term.
func Stems(words []string) map[string]string {
	out := make(map[string]string, len(words))
	for _, w := range words {
		if _, done := out[w]; done {
			continue
		}
		var term string
		EachToken(w, func(tok string) {
			if term == "" {
				term = Term(tok)
			}
		})
		if term != "" {
			out[w] = term
		}
	}
	return out
}

// WordTerms returns the term of each of words, in order, and false when
// the tokenizer cuts one into several tokens ("e-mail"): a phrase, which
// only the words' positions can match.
func WordTerms(words []string) ([]string, bool) {
	terms := make([]string, len(words))
	for i, w := range words {
		n := 0
		EachToken(w, func(string) { n++ })
		if n != 1 {
			return nil, false
		}
		terms[i] = Term(w)
	}
	return terms, true
}
