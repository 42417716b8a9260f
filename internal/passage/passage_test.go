package passage

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/shingle"
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
		sig := SignatureOf(text)
		got, err := DecodeSignature(EncodeSignature(nil, sig))
		if err != nil || !slices.Equal(got, sig) {
			t.Errorf("%q: %v (%v), want %v", text, got, err, sig)
		}
	}
	if _, err := DecodeSignature(make([]byte, 9)); err == nil {
		t.Error("a signature of 9 bytes decodes")
	}
}

// SharedAtMost must never count fewer shingles than two passages share,
// or a search would miss a copy; and it should count few more, or every
// pair would be compared by its text.
func TestSharedAtMostBoundsShared(t *testing.T) {
	words := strings.Fields(`the queen of hearts she made some tarts all on a summer day the knave
		of hearts he stole those tarts and took them quite away alice was beginning to get very tired
		of sitting by her sister on the bank and of having nothing to do once or twice she had peeped`)
	rng := rand.New(rand.NewPCG(1, 2))
	passage := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	over := 0
	for i := range 500 {
		a := passage(50 + rng.IntN(400))
		b := passage(50 + rng.IntN(400))
		if i%3 == 0 {
			b = a[len(a)/3:] + b // a copy of part of a
		}
		exact := shingle.Shared(shingle.Of(a), shingle.Of(b))
		bound := SharedAtMost(SignatureOf(a), SignatureOf(b))
		if bound < exact {
			t.Fatalf("pair %d: bound %d below the %d shingles shared", i, bound, exact)
		}
		over += bound - exact
		if n := len(SignatureOf(a)); n != len(shingle.Of(a)) {
			t.Fatalf("pair %d: signature of %d values for %d shingles", i, n, len(shingle.Of(a)))
		}
	}
	if over > 500 {
		t.Errorf("the bound counts %d shingles too many over 500 pairs", over)
	}
}
