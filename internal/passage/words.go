package passage

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Fold lowers w and strips its diacritics as the full-text index's
// tokenizer (unicode61 with remove_diacritics 2) does. It does not stem.
func Fold(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(w) // nothing to fold, and no transform to build
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	f, _, err := transform.String(t, strings.ToLower(w))
	if err != nil {
		return strings.ToLower(w)
	}
	return f
}

// Words returns s's words, split where FTS5 splits them and folded to
// lower case without accents.
func Words(s string) []string {
	return strings.FieldsFunc(Fold(s), func(r rune) bool { return !IsWordRune(r) })
}

// IsWordRune reports whether r belongs to a word, where FTS5's unicode61
// tokenizer would split.
func IsWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }

// IsASCIIWordByte is IsWordRune for an ASCII byte.
func IsASCIIWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// WordEnd returns where the word that goes on at text[i] ends: the first
// rune from i that is no word rune, or the text's end. ASCII is read byte
// by byte.
func WordEnd(text string, i int) int {
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf {
			if !IsASCIIWordByte(c) {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if !IsWordRune(r) {
			break
		}
		i += n
	}
	return i
}
