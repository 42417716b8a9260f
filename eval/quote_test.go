package eval

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"case", "The Mock TURTLE", "the mock turtle"},
		{"white space runs", "  one\t two\r\n\nthree  ", "one two three"},
		{"non-breaking and thin spaces", "a\u00a0b\u202fc\u2009d", "a b c d"},
		{"curly single quotes", "\u2018I speak severely\u2019", "'i speak severely'"},
		{"curly double quotes", "\u201cGet to your places!\u201d", "\"get to your places!\""},
		{"guillemets", "\u00abBonjour\u00bb", "\"bonjour\""},
		{"dashes and minus", "a\u2014b\u2013c\u2212d\u2010e", "a-b-c-d-e"},
		{"soft hyphen", "per\u00adsonification", "personification"},
		{"zero-width and BOM", "\ufeffzero\u200bwidth", "zerowidth"},
		{"ligatures", "\ufb01rst \ufb02ow", "first flow"},
		{"ellipsis", "and so\u2026", "and so..."},
		{"full-width", "\uff21\uff42\uff43", "abc"},
		{"sharp s folds", "Straße", "strasse"},
		{"accents kept", "Élevé", "élevé"},
		{"empty", " \n ", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Normalize(tc.in); got != tc.want {
				t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestContainsQuote(t *testing.T) {
	tests := []struct {
		name, text, quote string
		want              bool
	}{
		{"verbatim", "He was the personification of everything Russian, kindly, and round.", "the personification of everything Russian, kindly, and round", true},
		{"across a line break", "the personification of\r\neverything Russian,  kindly", "the personification of everything Russian, kindly", true},
		{"typographic against straight", "\u2018Get to your places!\u2019 shouted the Queen", "'Get to your places!' shouted the Queen", true},
		{"straight against typographic", "\"The part which I acted is now to be told\"", "\u201cThe part which I acted is now to be told\u201d", true},
		{"em dash against hyphen", "Ahab\u2014the captain", "Ahab-the captain", true},
		{"soft hyphen inside a word", "a defi\u00adnition is a two-way street", "a definition is a two-way street", true},
		{"case", "THIS IS WHAT WE MEAN", "this is what we mean", true},
		{"a word is missing", "the personification of Russian, kindly, and round", "the personification of everything Russian", false},
		{"inside a longer word at the start", "sthe first little child", "the first little child", false},
		{"inside a longer word at the end", "the first little children", "the first little child", false},
		{"found again after a false start", "xthe cat sat; the cat sat.", "the cat sat", true},
		{"punctuation edge needs no boundary", "said:\"yes\"", "\"yes\"", true},
		{"empty quote", "anything", " ", false},
		{"empty text", "", "a quote", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ContainsQuote(tc.text, tc.quote); got != tc.want {
				t.Errorf("ContainsQuote(%q, %q) = %v, want %v", tc.text, tc.quote, got, tc.want)
			}
		})
	}
}

// FuzzContainsQuote checks that nothing panics, and that a quote set off
// by white space in a text is found there, however the white space runs.
func FuzzContainsQuote(f *testing.F) {
	f.Add("before", "the first little child", "after")
	f.Add("", "\u2018quoted\u2019 \u2014 text", "")
	f.Add("x\u00ad", "\ufb01ne", "\u200b")
	f.Fuzz(func(t *testing.T, before, quote, after string) {
		text := before + " \n" + quote + "\t " + after
		found := ContainsQuote(text, quote)
		q := Normalize(quote)
		if q == "" {
			if found {
				t.Errorf("an empty quote %q was found", quote)
			}
			return
		}
		// NFKC may compose the quote's edges with its neighbours; where
		// it does not, the quote stands between spaces.
		if strings.Contains(" "+Normalize(text)+" ", " "+q+" ") && !found {
			t.Errorf("quote %q not found in %q", quote, text)
		}
	})
}
