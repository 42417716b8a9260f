package fulltext

import (
	"slices"
	"testing"
)

// TestPostingsRoundTrip: what AppendPosting writes, EachPosting reads
// back, in order.
func TestPostingsRoundTrip(t *testing.T) {
	want := []Posting{{Chunk: 3, Length: 12, TF: [3]uint64{0, 0, 1}}, {Chunk: 4, Length: 300, TF: [3]uint64{2, 0, 7}}, {Chunk: 90, Length: 1, TF: [3]uint64{0, 1, 0}}}
	var b []byte
	var prev int64
	for _, p := range want {
		b, prev = AppendPosting(b, prev, p), p.Chunk
	}
	var got []Posting
	if err := EachPosting(b, func(p Posting) { got = append(got, p) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("read %+v, wrote %+v", got, want)
	}
	if err := EachPosting(b[:len(b)-1], func(Posting) {}); err == nil {
		t.Error("a truncated list read without an error")
	}
}

// TestRank: BM25 over two terms, a book left out, and a term whose lists
// were not read refused.
func TestRank(t *testing.T) {
	list := func(ps ...Posting) []byte {
		var b []byte
		var prev int64
		for _, p := range ps {
			b, prev = AppendPosting(b, prev, p), p.Chunk
		}
		return b
	}
	l := NewLists()
	l.Append("whale", BookList{Book: 1, Data: list(Posting{Chunk: 1, Length: 10, TF: [3]uint64{0, 0, 2}}, Posting{Chunk: 2, Length: 10, TF: [3]uint64{0, 0, 1}})}, 2)
	l.Append("whale", BookList{Book: 2, Data: list(Posting{Chunk: 7, Length: 10, TF: [3]uint64{1, 0, 0}})}, 1)
	l.Append("sea", BookList{Book: 1, Data: list(Posting{Chunk: 2, Length: 10, TF: [3]uint64{0, 0, 1}})}, 1)
	l.SetRead("whale", true)
	l.SetRead("sea", true)
	c := Corpus{Chunks: 10, Tokens: 100, MinChunk: 1, MaxChunk: 10}
	w := Weights{Heading: 3, Context: 1, Text: 1}
	hits, err := l.Rank(c, []string{"whale", "sea"}, w, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	idfWhale, idfSea := IDF(10, 3), IDF(10, 1)
	want := map[int64]float64{
		1: BM25(idfWhale, 2, 10, 10),
		2: BM25(idfWhale, 1, 10, 10) + BM25(idfSea, 1, 10, 10),
		7: BM25(idfWhale, 3, 10, 10),
	}
	if len(hits) != 3 {
		t.Fatalf("hits %+v", hits)
	}
	for i, h := range hits {
		if h.Score != want[h.ChunkID] || h.Rank != i+1 || i > 0 && hits[i-1].Score < h.Score {
			t.Errorf("hit %d: %+v, want score %v, best first", i, h, want[h.ChunkID])
		}
	}
	hits, err = l.Rank(c, []string{"whale"}, w, func(book int64) bool { return book == 2 }, 10)
	if err != nil || len(hits) != 1 || hits[0].ChunkID != 7 || hits[0].BookID != 2 {
		t.Errorf("book 2 alone: %+v, %v", hits, err)
	}
	l.Count("the", 9)
	if _, err := l.Rank(c, []string{"the"}, w, nil, 10); err == nil {
		t.Error("ranked a term whose lists were not read")
	}
}

// FuzzPostingsDecode: a damaged list is an error, never a panic.
func FuzzPostingsDecode(f *testing.F) {
	f.Add(AppendPosting(AppendPosting(nil, 0, Posting{Chunk: 7, Length: 40, TF: [3]uint64{1, 0, 3}}), 7, Posting{Chunk: 9, Length: 2, TF: [3]uint64{0, 2, 1}}))
	f.Add([]byte{0x80})
	f.Fuzz(func(t *testing.T, b []byte) {
		var last int64
		EachPosting(b, func(p Posting) { last = p.Chunk })
		_ = last
	})
}
