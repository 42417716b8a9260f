package retrieve

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// names returns the words of a question that name something: an acronym
// or a word with capitals inside ("SAML", "PyTorch", "NF2"), or a
// capitalised word that does not begin a sentence ("Don Quixote's horse").
// A question in capitals throughout, or in title case ("Egg Cholesterol in
// the Diet"), says nothing by its capitals, and only its acronyms count
// there, or none.
func names(text string) []string {
	if !strings.ContainsFunc(text, unicode.IsLower) {
		return nil
	}
	type word struct {
		w              string
		startsSentence bool
	}
	var words []word
	long, capital := 0, 0
	start := true // the next word begins a sentence
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			if strings.ContainsRune(".?!:;\n", r) {
				start = true
			}
			i += n
			continue
		}
		j := i
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !isWordRune(r) {
				break
			}
			j += n
		}
		w := text[i:j]
		words = append(words, word{w, start})
		if utf8.RuneCountInString(w) >= 4 {
			long++
			if first, _ := utf8.DecodeRuneInString(w); unicode.IsUpper(first) {
				capital++
			}
		}
		start = false
		i = j
	}
	titleCase := 2*capital > long
	var out []string
	for _, w := range words {
		first, _ := utf8.DecodeRuneInString(w.w)
		upper := 0
		for _, r := range w.w {
			if unicode.IsUpper(r) {
				upper++
			}
		}
		switch {
		case upper >= 2:
			out = append(out, w.w)
		case upper == 1 && unicode.IsUpper(first) && !w.startsSentence && !titleCase && w.w != "I":
			out = append(out, w.w)
		}
	}
	return out
}
