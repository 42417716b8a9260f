package fulltext

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Term returns the term the full-text index holds for a token as
// EachToken cuts it: folded as the tokenizer folds (tokenFolds), then
// stemmed by Porter's algorithm as FTS5's porter tokenizer stems. The
// tests hold it to FTS5's own answers; it spares writing a book's postings
// a trip through SQLite for each new word.
func Term(tok string) string {
	var b strings.Builder
	b.Grow(len(tok))
	for _, r := range tok {
		if r < utf8.RuneSelf {
			if r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			}
			b.WriteByte(byte(r))
			continue
		}
		i := sort.Search(len(tokenFolds), func(i int) bool { return tokenFolds[i][0] >= r })
		if i < len(tokenFolds) && tokenFolds[i][0] == r {
			r = tokenFolds[i][1]
		}
		if r != 0 {
			b.WriteRune(r)
		}
	}
	return porterStem(b.String())
}

// porterMaxToken is the longest token, in bytes, that FTS5's porter
// tokenizer stems; it leaves longer ones, and those under three bytes, as
// they are.
const porterMaxToken = 64

// porterStem stems w by Porter's algorithm, byte by byte: bytes of
// non-ASCII letters count as consonants, as in FTS5.
func porterStem(w string) string {
	if len(w) < 3 || len(w) > porterMaxToken {
		return w
	}
	b := []byte(w)
	b = step1a(b)
	var ok bool
	if b, ok = step1b(b); ok {
		b = step1b2(b)
	}
	if b[len(b)-1] == 'y' && hasVowel(b[:len(b)-1]) {
		b[len(b)-1] = 'i'
	}
	b = replaceSuffix(b, step2, measureAbove0)
	b = replaceSuffix(b, step3, measureAbove0)
	b = step4(b)
	if n := len(b); b[n-1] == 'e' {
		stem := b[:n-1]
		if measureAbove1(stem) || measureIs1(stem) && !endsCVC(stem) {
			b = stem
		}
	}
	if n := len(b); n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && measureAbove1(b[:n-1]) {
		b = b[:n-1]
	}
	return string(b)
}

func isVowel(c byte, yIsVowel bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || yIsVowel && c == 'y'
}

// gobbleVC returns the length of the first vowels-then-consonants run of
// s, or 0 when s has none; prevCons says whether the letter before s is a
// consonant (a 'y' after one is a vowel).
func gobbleVC(s []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(s); i++ {
		cons = !isVowel(s[i], cons)
		if !cons {
			break
		}
	}
	for i++; i < len(s); i++ {
		cons = !isVowel(s[i], cons)
		if cons {
			return i + 1
		}
	}
	return 0
}

func measureAbove0(s []byte) bool { return gobbleVC(s, false) > 0 }

func measureAbove1(s []byte) bool {
	n := gobbleVC(s, false)
	return n > 0 && gobbleVC(s[n:], true) > 0
}

func measureIs1(s []byte) bool {
	n := gobbleVC(s, false)
	return n > 0 && gobbleVC(s[n:], true) == 0
}

// endsCVC: consonant, vowel, consonant, the last not w, x or y.
func endsCVC(s []byte) bool {
	n := len(s)
	if n == 0 || s[n-1] == 'w' || s[n-1] == 'x' || s[n-1] == 'y' {
		return false
	}
	mask, cons := 0, false
	for _, c := range s {
		cons = !isVowel(c, cons)
		mask <<= 1
		if cons {
			mask |= 1
		}
	}
	return mask&7 == 5
}

func hasVowel(s []byte) bool {
	for i, c := range s {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}

func step1a(b []byte) []byte {
	n := len(b)
	if b[n-1] != 's' {
		return b
	}
	switch {
	case b[n-2] == 'e':
		if n > 4 && b[n-4] == 's' && b[n-3] == 's' || n > 3 && b[n-3] == 'i' {
			return b[:n-2]
		}
		return b[:n-1]
	case b[n-2] == 's':
		return b
	}
	return b[:n-1]
}

// step1b removes -eed (to -ee), -ed and -ing, and reports whether it took
// -ed or -ing, after which step1b2 tidies the stem.
func step1b(b []byte) ([]byte, bool) {
	s := string(b)
	switch {
	case len(b) > 3 && strings.HasSuffix(s, "eed"):
		if measureAbove0(b[:len(b)-3]) {
			return b[:len(b)-1], false
		}
	case len(b) > 2 && strings.HasSuffix(s, "ed"):
		if hasVowel(b[:len(b)-2]) {
			return b[:len(b)-2], true
		}
	case len(b) > 3 && strings.HasSuffix(s, "ing"):
		if hasVowel(b[:len(b)-3]) {
			return b[:len(b)-3], true
		}
	}
	return b, false
}

func step1b2(b []byte) []byte {
	s := string(b)
	for _, suf := range []string{"at", "bl", "iz"} {
		if len(b) > 2 && strings.HasSuffix(s, suf) {
			return append(b, 'e')
		}
	}
	n := len(b)
	c := b[n-1]
	switch {
	case n > 1 && !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == b[n-2]:
		return b[:n-1]
	case measureIs1(b) && endsCVC(b):
		return append(b, 'e')
	}
	return b
}

// A rule replaces a suffix with another when what is left passes a test.
type rule struct{ suffix, with string }

var step2 = []rule{
	{"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"}, {"anci", "ance"},
	{"izer", "ize"}, {"logi", "log"}, {"bli", "ble"}, {"alli", "al"},
	{"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}, {"ization", "ize"},
	{"ation", "ate"}, {"ator", "ate"}, {"alism", "al"}, {"iveness", "ive"},
	{"fulness", "ful"}, {"ousness", "ous"}, {"aliti", "al"}, {"iviti", "ive"},
	{"biliti", "ble"},
}

var step3 = []rule{
	{"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"},
	{"ical", "ic"}, {"ful", ""}, {"ness", ""},
}

// replaceSuffix applies the rule of the longest suffix of rules that b
// ends with (and that leaves a stem), when the stem passes cond.
func replaceSuffix(b []byte, rules []rule, cond func([]byte) bool) []byte {
	s := string(b)
	best := -1
	for i, r := range rules {
		if len(b) > len(r.suffix) && strings.HasSuffix(s, r.suffix) && (best < 0 || len(r.suffix) > len(rules[best].suffix)) {
			best = i
		}
	}
	if best < 0 {
		return b
	}
	stem := b[:len(b)-len(rules[best].suffix)]
	if !cond(stem) {
		return b
	}
	return append(stem, rules[best].with...)
}

var step4Suffixes = []string{
	"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment",
	"ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize",
}

func step4(b []byte) []byte {
	ion := len(b) > 3 && strings.HasSuffix(string(b), "ion")
	return replaceSuffix(b, step4Rules, func(stem []byte) bool {
		if ion && stem[len(stem)-1] != 's' && stem[len(stem)-1] != 't' {
			return false
		}
		return measureAbove1(stem)
	})
}

var step4Rules = func() []rule {
	r := make([]rule, len(step4Suffixes))
	for i, s := range step4Suffixes {
		r[i] = rule{suffix: s}
	}
	return r
}()
