package passage

import (
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"Borodino", "borodino"},
		{"“Well, Prince”—so Genoa", "“well, prince”—so genoa"},
		{"Café Noël", "cafe noel"},
		{"e\u0301te\u0301", "ete"},       // decomposed accents
		{"İstanbul", "istanbul"},         // lowers to i and a combining dot
		{"\u1100\u1161", "\uac00"},       // conjoining jamo compose
		{"Ångström ﬁne", "angstrom ﬁne"}, // a ligature is not folded
	} {
		if got := Fold(tc.in); got != tc.want {
			t.Errorf("Fold(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzFold holds Fold's fast path to the transform it skips.
func FuzzFold(f *testing.F) {
	for _, s := range []string{"abc", "“quoted”", "Café", "e\u0301", "\u1100\u1161", "\u0b47\u0b3e", "İ", "ǅ", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Fold(s), foldMarks(strings.ToLower(s)); got != want {
			t.Errorf("Fold(%q) = %q, the transform gives %q", s, got, want)
		}
	})
}
