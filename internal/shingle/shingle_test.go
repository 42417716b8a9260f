package shingle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func TestShingles(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"quotes, case and spacing", `"Off with her head!" the Queen shouted at the top of her voice.`,
			"‘off with her HEAD’ —\nthe Queen   shouted at the top of her voice", true},
		{"word order", "the cat sat on the mat", "the mat sat on the cat", false},
		{"one word differs", "alpha beta gamma delta epsilon", "alpha beta gamma delta zeta", false},
		{"decomposed accents", "the café was closed early", "the cafe\u0301 was closed early", true},
		{"ideographs are words", "世界人権宣言", "世界人権 宣言", true},
		{"ideographs in order", "世界人権宣言", "宣言人権世界", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := Of(tc.a), Of(tc.b)
			if len(a) == 0 || len(b) == 0 {
				t.Fatalf("no shingles: %d, %d", len(a), len(b))
			}
			if got := slices.Equal(a, b); got != tc.same {
				t.Errorf("same = %v, want %v\n%v\n%v", got, tc.same, a, b)
			}
		})
	}
	if n := len(Of("the cat sat on the mat")); n != 4 {
		t.Errorf("%d shingles of 6 words, want 4", n)
	}
	if n := len(Of("the cat sat the cat sat")); n != 3 {
		t.Errorf("%d distinct shingles of a repeated phrase, want 3", n)
	}
	for _, s := range []string{"", "two words", "!!! ---", "世界"} {
		if sh := Of(s); len(sh) != 0 {
			t.Errorf("%q: %d shingles, want none", s, len(sh))
		}
	}
}

func TestShared(t *testing.T) {
	for _, tc := range []struct {
		a, b []uint64
		want int
	}{
		{nil, nil, 0},
		{[]uint64{1, 2, 3}, nil, 0},
		{[]uint64{1, 2, 3}, []uint64{2, 3, 4}, 2},
		{[]uint64{1, 5, 9}, []uint64{2, 6, 10}, 0},
		{[]uint64{7}, []uint64{7}, 1},
	} {
		if got := Shared(tc.a, tc.b); got != tc.want {
			t.Errorf("Shared(%v, %v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestSketchKeepsTheSmallest checks the sketch against sorting every
// distinct shingle, fed in any order and with repeats.
func TestSketchKeepsTheSmallest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 5, SketchSize, 3 * SketchSize} {
		var all []uint64
		var sk Sketch
		for range n {
			x := rng.Uint64() >> 50 // a small range, so values repeat
			all = append(all, x)
			sk.Add([]uint64{x})
		}
		slices.Sort(all)
		all = slices.Compact(all)
		want := all[:min(len(all), SketchSize)]
		if got := sk.Values(); !slices.Equal(got, want) {
			t.Errorf("%d values: sketch %v, want %v", n, got, want)
		}
	}
}

// words returns n pseudo-words drawn from a vocabulary of size v.
func words(rng *rand.Rand, n, v int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("w%d", rng.IntN(v))
	}
	return out
}

func TestResemblance(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	book := words(rng, 20000, 5000)
	other := words(rng, 20000, 5000)
	sketch := func(ws []string) []uint64 {
		var sk Sketch
		// Passages of 200 words, as a book's chunks.
		for i := 0; i < len(ws); i += 200 {
			sk.Add(Of(strings.Join(ws[i:min(i+200, len(ws))], " ")))
		}
		return sk.Values()
	}
	half := append(slices.Clone(book[:10000]), other[10000:]...)
	for _, tc := range []struct {
		name   string
		a, b   []string
		lo, hi float64
	}{
		{"the same text", book, book, 1, 1},
		{"cut elsewhere", book, append([]string{"preface"}, book...), 0.95, 1},
		{"half of it", book, half, 0.2, 0.5},
		{"another text", book, other, 0, 0.05},
	} {
		if r := Resemblance(sketch(tc.a), sketch(tc.b)); r < tc.lo || r > tc.hi {
			t.Errorf("%s: resemblance %.3f, want %.2f–%.2f", tc.name, r, tc.lo, tc.hi)
		}
	}
	if r := Resemblance(nil, sketch(book)); r != 0 {
		t.Errorf("an empty sketch resembles a book by %.3f", r)
	}
}

func FuzzOf(f *testing.F) {
	f.Add("‘Off with her HEAD’ — the Queen shouted")
	f.Add("世界人権宣言 and the cafe\u0301")
	f.Fuzz(func(t *testing.T, text string) {
		sh := Of(text)
		if !slices.IsSorted(sh) || len(slices.Compact(slices.Clone(sh))) != len(sh) {
			t.Fatalf("shingles not sorted and distinct: %v", sh)
		}
		if words := len(strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })); words < 3 && len(sh) > 0 && !containsIdeographs(text) {
			t.Fatalf("%d shingles of %d words", len(sh), words)
		}
	})
}

func containsIdeographs(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) })
}

func TestAddTextIsAddOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	text := strings.Join(words(rng, 3000, 400), " ")
	var a, b Sketch
	n := a.AddText(text)
	b.Add(Of(text))
	if !slices.Equal(a.Values(), b.Values()) || n != 2998 {
		t.Errorf("AddText: %d shingles, sketch %v; Add(Of): %v", n, a.Values(), b.Values())
	}
}
