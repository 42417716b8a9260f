package fulltext

// BM25's constants, FTS5's, which it does not let a query change.
const (
	BM25K1 = 1.2
	BM25B  = 0.75
)

// BM25 is one term's score in one chunk: idf is the term's inverse
// document frequency, freq its occurrences in the chunk (each weighted by
// its column), length the chunk's tokens and avgLen the library's average.
// It is computed as FTS5's bm25() computes it, operation for operation, so
// that the postings rank as FTS5 does to the last bit; the top-up of
// common words scores by it too.
func BM25(idf, freq, length, avgLen float64) float64 {
	// Variables, not constants: Go would fold 1.2 + 1.0 exactly, and C
	// adds the doubles.
	k1, b := BM25K1, BM25B
	num := freq * (k1 + 1.0)
	denom := freq + k1*(1-b+b*length/avgLen)
	return idf * (num / denom)
}
