package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// passages returns n passages of 120 pseudo-words each.
func passages(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		w := make([]string, 120)
		for j := range w {
			w[j] = fmt.Sprintf("w%d", rng.IntN(3000))
		}
		out[i] = strings.Join(w, " ")
	}
	return out
}

// TestSharedTextFollowsTheBooks checks that books holding the same text
// find each other, whatever their titles and headings, that a book without
// it does not, and that the record goes with a book and comes back for the
// books of an index made before it.
func TestSharedTextFollowsTheBooks(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	rng := rand.New(rand.NewPCG(5, 6))
	text := passages(rng, 20)
	a := storeChunks(t, w, "guide", text)
	b := storeChunks(t, w, "Professor Frisby's Guide", append([]string{"A preface of its own."}, text...))
	c := storeChunks(t, w, "another", passages(rng, 20))
	// An excerpt holds a quarter of the guide: all of its own text is in
	// the guide, a quarter of the guide's in it.
	e := storeChunks(t, w, "excerpt", text[5:10])
	check := func(when string, want map[int64][]int64) {
		t.Helper()
		got, err := sharedText(ctx, &w.DB, []int64{a.ID, b.ID, c.ID}, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range got {
			slices.Sort(v)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: books that share text %v, want %v", when, got, want)
		}
		if err := w.Check(ctx); err != nil {
			t.Errorf("%s: %v", when, err)
		}
	}
	check("stored", map[int64][]int64{a.ID: {b.ID}, b.ID: {a.ID}})
	for _, tc := range []struct {
		book     int64
		minShare float64
		want     []int64
	}{
		{e.ID, 0.6, []int64{a.ID, b.ID}},
		{a.ID, 0.1, []int64{b.ID, e.ID}},
		{a.ID, 0.4, []int64{b.ID}},
	} {
		got, err := sharedText(ctx, &w.DB, []int64{tc.book}, tc.minShare)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got[tc.book])
		if !slices.Equal(got[tc.book], tc.want) {
			t.Errorf("book %d, holding %.1f of its text: %v, want %v", tc.book, tc.minShare, got[tc.book], tc.want)
		}
	}

	// An index made before books had sketches: the next run writes them.
	if _, err := w.db.Exec(`DELETE FROM shared_text; DELETE FROM sketch_value; DELETE FROM book_sketch`); err != nil {
		t.Fatal(err)
	}
	check("without sketches", map[int64][]int64{})
	if n, err := w.WritePostings(ctx); err != nil || n != 4 {
		t.Fatalf("WritePostings: %d books, %v", n, err)
	}
	check("sketched again", map[int64][]int64{a.ID: {b.ID}, b.ID: {a.ID}})

	if _, err := w.db.Exec(`INSERT INTO shared_text(book_id, other_id, share) VALUES (?, ?, 1)`, a.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	if err := w.Check(ctx); err == nil || !strings.Contains(err.Error(), "one way") {
		t.Errorf("Check with a pair recorded one way: %v", err)
	}
	if _, err := w.db.Exec(`DELETE FROM shared_text WHERE book_id = ? AND other_id = ?`, a.ID, c.ID); err != nil {
		t.Fatal(err)
	}

	if n := remove(t, w, "/lib/guide.txt"); n != 1 {
		t.Fatalf("pruned %d books", n)
	}
	check("one removed", map[int64][]int64{})
}

// sharedText returns the books that hold at least minShare of each of
// ids' text, as a search reads them.
func sharedText(ctx context.Context, d *DB, ids []int64, minShare float64) (map[int64][]int64, error) {
	lib, err := d.ReadLibrary(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[int64][]int64)
	for _, id := range ids {
		for _, o := range lib.Shared[id] {
			if o.Share >= minShare {
				out[id] = append(out[id], o.ID)
			}
		}
	}
	return out, nil
}

func TestChunksWithWords(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	b := storeChunks(t, w, "guide", []string{
		"pure functions give the same output for the same input",
		"side effects may include anything at all",
		"functions without side effects are called pure",
	})
	chunks, err := w.ChunkRange(ctx, b.ID, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		words  []string
		rarest int
		want   []int64
	}{
		{[]string{"same", "output", "input", "pure"}, 4, []int64{chunks[0].ID, chunks[2].ID}},
		// "pure" is in two passages, the others in one.
		{[]string{"same", "output", "input", "pure"}, 3, []int64{chunks[0].ID}},
		{[]string{"effects", "side", "called"}, 3, []int64{chunks[2].ID, chunks[1].ID}},
		{[]string{"guide"}, 3, nil}, // in the headings only
		{[]string{"nowhere"}, 3, nil},
		{nil, 3, nil},
	} {
		found, err := w.ChunksWithWords(ctx, []WordsLookup{{b.ID, tc.words}}, tc.rarest, 2)
		if err != nil {
			t.Fatal(err)
		}
		got := found[0]
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: chunks %v, want %v", tc.words, got, tc.want)
		}
	}
}
