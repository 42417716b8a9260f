package fulltext

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// The postings: for each term and book, the book's chunks that hold the
// term, each with its length and its count in each column, in one list
// (AppendPosting, EachPosting). A search reads its terms' lists (Lists)
// and ranks the chunks by BM25 in memory (Lists.Rank).

// Posting is one chunk that holds a term.
type Posting struct {
	Chunk  int64
	Length uint64    // the chunk's tokens, all columns
	TF     [3]uint64 // in heading, context, text
}

// AppendPosting encodes p after the Posting of chunk prev (0 for the
// first): the id's distance from prev, the length, the text's count with
// two flags for the others, then those that are not zero.
func AppendPosting(b []byte, prev int64, p Posting) []byte {
	b = binary.AppendUvarint(b, uint64(p.Chunk-prev))
	b = binary.AppendUvarint(b, p.Length)
	head := p.TF[2] << 2
	if p.TF[0] > 0 {
		head |= 1
	}
	if p.TF[1] > 0 {
		head |= 2
	}
	b = binary.AppendUvarint(b, head)
	if p.TF[0] > 0 {
		b = binary.AppendUvarint(b, p.TF[0])
	}
	if p.TF[1] > 0 {
		b = binary.AppendUvarint(b, p.TF[1])
	}
	return b
}

// EachPosting decodes b, calling fn with each Posting in order. A
// truncated or malformed list ends with an error.
func EachPosting(b []byte, fn func(p Posting)) error {
	var prev int64
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	for len(b) > 0 {
		var p Posting
		d, ok1 := next()
		l, ok2 := next()
		head, ok3 := next()
		if !ok1 || !ok2 || !ok3 {
			return fmt.Errorf("postings: malformed list")
		}
		p.Chunk, p.Length, p.TF[2] = prev+int64(d), l, head>>2
		for c := range 2 {
			if head&(1<<c) != 0 {
				v, ok := next()
				if !ok {
					return fmt.Errorf("postings: malformed list")
				}
				p.TF[c] = v
			}
		}
		prev = p.Chunk
		fn(p)
	}
	return nil
}

// Hit is one chunk found by full-text search. Score is BM25 with the sign
// flipped, so that higher is better.
type Hit struct {
	ChunkID int64
	BookID  int64
	Score   float64
	// Rank is the 1-based place in BM25's order.
	Rank int
}

// Weights are the BM25 weights of the full-text columns.
type Weights struct {
	Heading, Context, Text float64
}

// BookList is the list of a term in one book.
type BookList struct {
	Book int64
	Data []byte
}

// Lists are the terms of one search with how many chunks hold each, and
// the lists of those that were read.
type Lists struct {
	docs  map[string]int64
	lists map[string][]BookList
	read  map[string]bool
}

// NewLists returns lists of no terms.
func NewLists() *Lists {
	return &Lists{docs: make(map[string]int64), lists: make(map[string][]BookList), read: make(map[string]bool)}
}

// Count records that docs chunks hold term.
func (l *Lists) Count(term string, docs int64) { l.docs[term] = docs }

// Append adds a book's list of term, which counts the chunks it holds.
func (l *Lists) Append(term string, list BookList, chunks int64) {
	l.docs[term] += chunks
	l.lists[term] = append(l.lists[term], list)
}

// SetRead records whether term's lists were read, all of them.
func (l *Lists) SetRead(term string, read bool) { l.read[term] = read }

// Add adds what o holds of the terms l does not know, or whose lists l
// has not read.
func (l *Lists) Add(o *Lists) {
	for term, n := range o.docs {
		if _, known := l.docs[term]; known && (l.read[term] || !o.read[term]) {
			continue
		}
		l.docs[term], l.read[term], l.lists[term] = n, o.read[term], o.lists[term]
	}
}

// Known reports whether l holds term's count.
func (l *Lists) Known(term string) bool {
	_, ok := l.docs[term]
	return ok
}

// Docs returns how many chunks hold term.
func (l *Lists) Docs(term string) int64 { return l.docs[term] }

// Read reports whether term's lists were read.
func (l *Lists) Read(term string) bool { return l.read[term] }

// Corpus is what BM25 knows of the library: its chunks, their tokens,
// and the span of their ids.
type Corpus struct {
	Chunks, Tokens     int64
	MinChunk, MaxChunk int64
}

// Rank returns the best want chunks of the books allowed (nil: all) by
// BM25 over terms, one per word of a query (two words may share a term:
// each scores), best first, ties by id. Every term's lists must have
// been read.
func (l *Lists) Rank(c Corpus, terms []string, w Weights, allowed func(book int64) bool, want int) ([]Hit, error) {
	if c.Chunks == 0 || c.Tokens == 0 {
		return nil, nil
	}
	avgLen := float64(c.Tokens) / float64(c.Chunks)
	weights := [3]float64{w.Heading, w.Context, w.Text}
	acc := newAccumulator(c.MinChunk, c.MaxChunk)
	for _, term := range terms {
		if term == "" {
			continue
		}
		if !l.read[term] {
			return nil, fmt.Errorf("full-text search: the lists of %q were not read", term)
		}
		idf := IDF(c.Chunks, l.docs[term])
		for _, bl := range l.lists[term] {
			if allowed != nil && !allowed(bl.Book) {
				continue
			}
			err := EachPosting(bl.Data, func(p Posting) {
				if p.Chunk < c.MinChunk || p.Chunk > c.MaxChunk {
					return // stored after the corpus was counted
				}
				freq := float64(p.TF[0])*weights[0] + float64(p.TF[1])*weights[1] + float64(p.TF[2])*weights[2]
				if freq > 0 {
					acc.add(p.Chunk, bl.Book, BM25(idf, freq, float64(p.Length), avgLen))
				}
			})
			if err != nil {
				return nil, fmt.Errorf("full-text search: term %q: %w", term, err)
			}
		}
	}
	hits := Best(acc.touched, acc.books, acc.score, want)
	for i := range hits {
		hits[i].Rank = i + 1
	}
	return hits, nil
}

// IDF is BM25's weight of a term that docs of chunks hold, as FTS5's
// bm25() computes it: a term in half of the chunks or more weighs next
// to nothing, never less.
func IDF(chunks, docs int64) float64 {
	idf := math.Log((float64(chunks) - float64(docs) + 0.5) / (float64(docs) + 0.5))
	if idf <= 0 {
		return 1e-6
	}
	return idf
}

// accumulator sums each chunk's score over the query's terms, in a slice
// over the chunk ids searched when they span few enough to allocate one
// per search, else in a map (ids are never reused: a library that has
// changed much spans far more ids than it holds chunks).
type accumulator struct {
	lo      int64
	dense   []float64
	sparse  map[int64]float64
	touched []int64
	books   []int64 // the book of each touched chunk
}

// denseSpan is the widest span of chunk ids summed in a slice (64 MB).
const denseSpan = 8 << 20

func newAccumulator(lo, hi int64) *accumulator {
	if hi-lo+1 <= denseSpan {
		return &accumulator{lo: lo, dense: make([]float64, hi-lo+1)}
	}
	return &accumulator{lo: lo, sparse: make(map[int64]float64)}
}

// add adds v, which is above zero, to the score of chunk, of book.
func (a *accumulator) add(chunk, book int64, v float64) {
	if a.dense != nil {
		i := chunk - a.lo
		if a.dense[i] == 0 {
			a.touched, a.books = append(a.touched, chunk), append(a.books, book)
		}
		a.dense[i] += v
		return
	}
	old, ok := a.sparse[chunk]
	if !ok {
		a.touched, a.books = append(a.touched, chunk), append(a.books, book)
	}
	a.sparse[chunk] = old + v
}
func (a *accumulator) score(chunk int64) float64 {
	if a.dense != nil {
		return a.dense[chunk-a.lo]
	}
	return a.sparse[chunk]
}

// Best returns the want ids of ids (of books, when not nil) with the
// highest scores, best first, ties by id, as hits.
func Best(ids, books []int64, score func(int64) float64, want int) []Hit {
	better := func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	}
	// A bounded min-heap of the best so far: its root is the worst kept.
	heap := make([]Hit, 0, min(want, len(ids)))
	down := func(i int) {
		for {
			l, r, worst := 2*i+1, 2*i+2, i
			if l < len(heap) && better(heap[l], heap[worst]) > 0 {
				worst = l
			}
			if r < len(heap) && better(heap[r], heap[worst]) > 0 {
				worst = r
			}
			if worst == i {
				return
			}
			heap[i], heap[worst] = heap[worst], heap[i]
			i = worst
		}
	}
	for i, id := range ids {
		h := Hit{ChunkID: id, Score: score(id)}
		if books != nil {
			h.BookID = books[i]
		}
		switch {
		case len(heap) < want:
			heap = append(heap, h)
			for i := len(heap) - 1; i > 0; {
				p := (i - 1) / 2
				if better(heap[i], heap[p]) <= 0 {
					break
				}
				heap[i], heap[p] = heap[p], heap[i]
				i = p
			}
		case want > 0 && better(h, heap[0]) < 0:
			heap[0] = h
			down(0)
		}
	}
	slices.SortFunc(heap, better)
	return heap
}
