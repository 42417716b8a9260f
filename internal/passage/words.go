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
	l := strings.ToLower(w)
	if settled(l) {
		return l
	}
	return foldMarks(l)
}

// foldMarks decomposes l, drops its combining marks and composes what
// is left.
func foldMarks(l string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	f, _, err := transform.String(t, l)
	if err != nil {
		return l
	}
	return f
}

// settled says foldMarks would return l unchanged: it holds no
// combining mark, and is already decomposed and composed alike. Most
// text is, curly quotes and dashes included, and the check costs far
// less than the transform.
func settled(l string) bool {
	ascii := true
	for i := 0; i < len(l); {
		if l[i] < utf8.RuneSelf {
			i++
			continue
		}
		ascii = false
		r, n := utf8.DecodeRuneInString(l[i:])
		if unicode.Is(unicode.Mn, r) {
			return false
		}
		i += n
	}
	return ascii || norm.NFD.QuickSpanString(l) == len(l) && norm.NFC.QuickSpanString(l) == len(l)
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
