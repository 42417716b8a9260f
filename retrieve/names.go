package retrieve

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/internal/passage"
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
		if !passage.IsWordRune(r) {
			if strings.ContainsRune(".?!:;\n", r) {
				start = true
			}
			i += n
			continue
		}
		j := passage.WordEnd(text, i)
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

// tellingNames returns the names of a question (see names) whose absence
// from the library says it holds no answer. Two kinds say little and are
// left out, both common in scientific claims whose answer the library
// holds: codes, names with a digit (HOXB4, G94P, CHIR99021), which are
// written in many forms (Hoxb4, HOXB-4) and often mistyped; and
// abbreviations the question spells out itself, "leukocyte extract (hDLE)",
// whose words are asked for anyway.
func tellingNames(text string) []string {
	defined := make(map[string]bool)
	for _, short := range definedAbbreviations(text) {
		for _, w := range strings.FieldsFunc(short, func(r rune) bool { return !passage.IsWordRune(r) }) {
			defined[w] = true
		}
	}
	var out []string
	for _, n := range names(text) {
		if !defined[n] && !strings.ContainsFunc(n, unicode.IsDigit) {
			out = append(out, n)
		}
	}
	return out
}

// definedAbbreviations returns what the text puts in parentheses right
// after the words it abbreviates: "Commelina yellow mottle virus (ComYMV)".
// The letters and digits of the short form must appear, in order, in the
// words before it, its first one beginning a word (after Schwartz and
// Hearst, 2003).
func definedAbbreviations(text string) []string {
	var out []string
	for rest, before := text, ""; ; {
		open := strings.IndexByte(rest, '(')
		if open < 0 {
			return out
		}
		before += rest[:open]
		rest = rest[open+1:]
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return out
		}
		short := strings.TrimSpace(rest[:end])
		if abbreviates(short, before) {
			out = append(out, short)
		}
		before += "(" + rest[:end+1]
		rest = rest[end+1:]
	}
}

// abbreviates reports whether short is an abbreviation of the words that
// end before: at most as many words as short has characters, plus five.
func abbreviates(short, before string) bool {
	s := []rune(strings.ToLower(short))
	letters, first := 0, -1
	for i, r := range s {
		if passage.IsWordRune(r) {
			letters++
			if first < 0 {
				first = i
			}
		}
	}
	words := strings.FieldsFunc(before, func(r rune) bool { return unicode.IsSpace(r) })
	if letters < 2 || letters > 10 || strings.ContainsFunc(short, unicode.IsSpace) || len(words) == 0 {
		return false
	}
	words = words[max(0, len(words)-min(letters+5, 2*letters)):]
	long := []rune(strings.ToLower(strings.Join(words, " ")))
	j := len(long) - 1
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if !passage.IsWordRune(c) {
			continue
		}
		// The short form's first character must begin a word of the long
		// one; the others may fall anywhere in it.
		for j >= 0 && (long[j] != c || i == first && j > 0 && passage.IsWordRune(long[j-1])) {
			j--
		}
		if j < 0 {
			return false
		}
		j--
	}
	return true
}
