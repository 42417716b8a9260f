package passage

import (
	"slices"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Passage
		want Role
	}{
		{"cover", Passage{Text: "Cover Image", ChapterTitle: "Cover", BookTitle: "Zero Trust"}, Bare},
		{"only passage", Passage{Text: "Zero trust", BookTitle: "Zero trust", Only: true}, Content},
		{"byline", Passage{Text: "by Lewis Carroll", BookTitle: "Alice", Authors: []string{"Lewis Carroll"}}, Bare},
		{"under contents", Passage{Text: "I. A Scandal in Bohemia II. The Red-Headed League", SectionTitle: "Contents"}, Contents},
		{"dot leaders", Passage{Text: "1 Introduction ........ 1 1.1 History ........ 2 2 Tenets ........ 4"}, Contents},
		{"divisions", Passage{Text: "CONTENTS Chapter 1 Chapter 2 Chapter 3 Chapter 4 Chapter 5 Chapter 6 Chapter 7"}, Contents},
		{"prose", Passage{Text: "Alice was beginning to get very tired of sitting by her sister.", ChapterTitle: "Chapter 1"}, Content},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Classify(tc.p); got != tc.want {
				t.Errorf("%v, want %v", got, tc.want)
			}
		})
	}
}

func TestSignatureRoundTrip(t *testing.T) {
	for _, text := range []string{"", "two words", "Off with her head, said the Queen, and off with his."} {
		sig := Signature(text)
		got, err := DecodeSignature(EncodeSignature(nil, sig))
		if err != nil || !slices.Equal(got, sig) {
			t.Errorf("%q: %v (%v), want %v", text, got, err, sig)
		}
	}
	if _, err := DecodeSignature(make([]byte, 9)); err == nil {
		t.Error("a signature of 9 bytes decodes")
	}
}
