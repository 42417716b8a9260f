package copies

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/index/fulltext"
)

// text makes n sentences of words no other call repeats, from seed.
func text(seed, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "word%d alpha%d beta%d gamma%d delta%d. ", seed, seed*7919+i, i, seed+i*3, i*i+seed)
	}
	return b.String()
}

func sketchOf(texts ...string) Sketch {
	var s Sketch
	for _, t := range texts {
		s.Add(t)
	}
	return s
}

// TestShares: an edition holds all of the other's text; a book that
// holds a quarter of another holds all of its own in it; books that share
// nothing do not resemble each other; a book too short has no sketch.
func TestShares(t *testing.T) {
	a := text(1, 400)
	quarter := a[:len(a)/4]
	for _, tc := range []struct {
		name              string
		x, y              Sketch
		wantOK            bool
		wantHeld, wantHas float64 // of y's text x holds; of x's, y holds
	}{
		{"editions", sketchOf(a), sketchOf(a), true, 1, 1},
		{"excerpt", sketchOf(quarter), sketchOf(a), true, 0.25, 1},
		{"unrelated", sketchOf(a), sketchOf(text(2, 400)), false, 0, 0},
	} {
		held, holds, ok := Shares(tc.x.Values(), tc.x.N, tc.y.Values(), tc.y.N)
		if ok != tc.wantOK || ok && (abs(held-tc.wantHeld) > 0.1 || abs(holds-tc.wantHas) > 0.1) {
			t.Errorf("%s: held %.2f, holds %.2f, %v; want %.2f, %.2f, %v", tc.name, held, holds, ok, tc.wantHeld, tc.wantHas, tc.wantOK)
		}
	}
	if short := sketchOf(text(3, 5)); len(short.Values()) != 0 || short.N == 0 {
		t.Errorf("a few sentences: %d values of %d shingles, want none", len(short.Values()), short.N)
	}
}

func abs(x float64) float64 { return max(x, -x) }

// TestCandidates: the passages holding most of the rarest words come
// first; words in headings only count for nothing.
func TestCandidates(t *testing.T) {
	list := func(ps ...fulltext.Posting) []byte {
		var b []byte
		var prev int64
		for _, p := range ps {
			b, prev = fulltext.AppendPosting(b, prev, p), p.Chunk
		}
		return b
	}
	inText := func(c int64) fulltext.Posting { return fulltext.Posting{Chunk: c, Length: 10, TF: [3]uint64{0, 0, 1}} }
	lists := map[string]TermList{
		fulltext.Term("whales"):  {3, list(inText(1), inText(2), inText(3))},
		fulltext.Term("harpoon"): {2, list(inText(2), inText(3))},
		fulltext.Term("ishmael"): {1, list(inText(3))},
		fulltext.Term("title"):   {1, list(fulltext.Posting{Chunk: 1, Length: 10, TF: [3]uint64{1, 0, 0}})},
	}
	terms := Terms([]string{"whales", "harpoon", "ishmael", "title", "absent"})
	if len(terms) != 5 {
		t.Fatalf("terms %q", terms)
	}
	got, err := Candidates(terms, lists, 3, 2)
	if err != nil || !slices.Equal(got, []int64{3, 2}) {
		t.Errorf("rarest three: %v, %v; want [3 2]", got, err)
	}
	if got, _ := Candidates(Terms([]string{"title"}), lists, 3, 2); len(got) != 0 {
		t.Errorf("a heading's word: %v, want none", got)
	}
}
