package retrieve

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/passage"
)

// A question that asks what something is ("What is a pure function?",
// "What are doujinshi?", "How does Ishmael define a whale?") is answered
// by the passage that defines it: the one where the term is followed by
// "is", "are", "means"… ("A pure function is a function that…"). Many
// passages of a book use the term, and those that use it most, which BM25
// ranks first, are seldom the one that says what it is. So the rerank
// adds definitionWeight to the passages that define the question's term.
// Measured on bench/definitions.jsonl (22 such questions about the
// corpus's manuals and books, not the ones the rule was drawn from):
// answer@1 0.68 → 0.86, answer@5 0.82 → 0.95, no question worse; 0.5 to
// 1 score alike there, 1 costs a dev book question at answer@1.
const definitionWeight = 0.6

// maxTermWords bounds the words of a defined term: longer, a question's
// tail is not a term ("what is the reason he left home so early").
const maxTermWords = 4

// definitionOpeners are the folded words that begin a question asking
// what the words after them are (in English, French and German); articles
// may stand between the two.
var definitionOpeners = [][]string{
	{"what", "is"}, {"what", "are"}, {"what", "was"}, {"what", "were"}, {"what", "s"},
	{"who", "is"}, {"who", "are"}, {"who", "was"}, {"who", "were"},
	{"define"}, {"definition", "of"}, {"meaning", "of"},
	{"qu", "est", "ce", "qu"}, {"qu", "est", "ce", "que"},
	{"was", "ist"}, {"was", "sind"}, {"was", "bedeutet"}, {"wer", "ist"}, {"wer", "war"},
}

// termEnds are the words after which a question goes on about something
// other than the term ("a string slice in Rust", "a pure function
// according to…").
var termEnds = map[string]bool{
	"in": true, "according": true, "of": true, "for": true, "and": true, "or": true,
	"from": true, "by": true, "on": true, "at": true, "to": true, "with": true,
	"when": true, "where": true, "why": true, "how": true, "that": true, "which": true,
	"as": true, "under": true, "within": true, "between": true, "if": true,
	"mean": true, "means": true, "do": true, "does": true, "did": true,
	"dans": true, "selon": true, "et": true, "ou": true, "de": true,
	"im": true, "nach": true, "und": true, "oder": true,
}

// relations are words that, as the whole term, ask about something
// else: "what is the difference between…", "what was the name of…".
var relations = map[string]bool{
	"difference": true, "name": true, "point": true, "purpose": true, "role": true, "reason": true,
	"use": true, "cause": true, "result": true, "effect": true, "relationship": true, "relation": true,
	"advantage": true, "problem": true, "idea": true, "goal": true, "way": true, "story": true,
}

// articles may stand between an opener and its term.
var articles = map[string]bool{
	"a": true, "an": true, "the": true, "un": true, "une": true, "le": true, "la": true, "les": true, "l": true,
	"ein": true, "eine": true, "einen": true, "der": true, "die": true, "das": true,
}

// A passage defines a term, as definitions are written: the term opens a
// sentence and says what it is ("A pure function is a function that…",
// "Whales are…"), or says what it means ("… refers to"), or a sentence
// names it ("… is called an instance").
var (
	copulas = map[string]bool{"is": true, "was": true, "est": true, "ist": true}
	// After a plural copula, what the term is needs no article
	// ("Doujinshi are comics").
	pluralCopulas = map[string]bool{"are": true, "were": true, "sont": true, "sind": true}
	meaners       = map[string]bool{"means": true, "refers": true, "denotes": true, "designe": true,
		"bedeutet": true, "bezeichnet": true, "heißt": true, "heisst": true}
	genusWords = map[string]bool{"one": true, "any": true, "some": true}
	namers     = map[string]bool{"called": true, "termed": true, "appelle": true, "appele": true, "genannt": true}
)

// sentenceEnd stands, among a passage's words, where a sentence ends.
const sentenceEnd = "."

// definedTerm returns the folded words of the term question asks to be
// defined, or nil when it asks something else. "What does X mean?" asks
// too.
func definedTerm(question string) []string {
	words := sentenceWords(question)
	if len(words) >= 4 && words[0] == "what" && (words[1] == "does" || words[1] == "do") && slices.Contains(words, "mean") {
		return termFrom(words[2:])
	}
	// "How does Ishmael define a whale?": the term follows "define". "How
	// do I define a struct?" asks how to write one.
	if i := slices.Index(words, "define"); i > 0 && (slices.Contains(words[:i], "how") || slices.Contains(words[:i], "what")) {
		if slices.ContainsFunc(words[:i], func(w string) bool { return w == "i" || w == "we" || w == "you" || w == "to" }) {
			return nil
		}
		return termFrom(words[i+1:])
	}
	for _, o := range definitionOpeners {
		if len(words) > len(o) && slices.Equal(words[:len(o)], o) {
			return termFrom(words[len(o):])
		}
	}
	return nil
}

// termFrom reads a term at the start of words: past its articles, up to a
// word that ends it, at most maxTermWords long.
func termFrom(words []string) []string {
	for len(words) > 0 && articles[words[0]] {
		words = words[1:]
	}
	n := 0
	for n < len(words) && !termEnds[words[n]] && words[n] != sentenceEnd {
		n++
	}
	if n == 0 || n > maxTermWords || n == 1 && relations[words[0]] {
		return nil
	}
	return words[:n]
}

// sentenceWords returns text's words, split where FTS5 splits them and
// folded to lower case without accents, with sentenceEnd where a sentence
// or a line ends.
func sentenceWords(text string) []string {
	var out []string
	text = index.FoldTerm(text)
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case passage.IsWordRune(r):
			j := passage.WordEnd(text, i)
			out = append(out, text[i:j])
			i = j
			continue
		case strings.ContainsRune(".!?:;\n", r) && len(out) > 0 && out[len(out)-1] != sentenceEnd:
			out = append(out, sentenceEnd)
		}
		i += n
	}
	return out
}

// defines reports whether a passage's words (sentenceWords) define term.
func defines(words, term []string) bool {
	for i := 0; i+len(term) <= len(words); i++ {
		if !sameTerm(words[i:i+len(term)], term) {
			continue
		}
		j := i + len(term)
		next := func(k int) string {
			if j+k < len(words) {
				return words[j+k]
			}
			return sentenceEnd
		}
		if i > 0 && namers[words[i-1]] || i > 1 && namers[words[i-2]] && articles[words[i-1]] {
			return true
		}
		if meaners[next(0)] {
			return true
		}
		// "X is a…", "X is one of…", "Xs are…".
		if opensSentence(words, i) && (copulas[next(0)] && (articles[next(1)] || genusWords[next(1)]) ||
			pluralCopulas[next(0)] && next(1) != sentenceEnd) {
			return true
		}
	}
	return false
}

// opensSentence reports whether the word at i opens a sentence, after an
// article or none.
func opensSentence(words []string, i int) bool {
	if i > 0 && articles[words[i-1]] {
		i--
	}
	return i == 0 || words[i-1] == sentenceEnd
}

// sameTerm compares a passage's words with a term's, a plural ending
// aside ("whales are" defines "whale").
func sameTerm(words, term []string) bool {
	for i, t := range term {
		w := words[i]
		if w != t && strings.TrimSuffix(w, "s") != strings.TrimSuffix(t, "s") {
			return false
		}
	}
	return true
}
