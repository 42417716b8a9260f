package index

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/grimoire-search/grimoire/index/fulltext"
)

// TermLists are the terms of one search with what the index holds of
// them, read in one question: how many chunks hold each, and the
// posting lists of those that are not common (see Terms).
type TermLists struct {
	// Snapshot is the library's as of the read, so that the caller can
	// tell whether the library it read before is the one the lists
	// belong to.
	Snapshot Snapshot
	docs     map[string]int64
	lists    map[string][]bookList
	// read says which terms' lists were read.
	read map[string]bool
}

// NewTermLists returns lists of no terms, for Add to fill.
func NewTermLists() *TermLists {
	return &TermLists{docs: make(map[string]int64), lists: make(map[string][]bookList), read: make(map[string]bool)}
}

// Add adds what o holds of the terms t does not know, or whose lists t
// has not read.
func (t *TermLists) Add(o *TermLists) {
	for term, n := range o.docs {
		if _, known := t.docs[term]; known && (t.read[term] || !o.read[term]) {
			continue
		}
		t.docs[term], t.read[term], t.lists[term] = n, o.read[term], o.lists[term]
	}
}

// Known reports whether t holds term's count.
func (t *TermLists) Known(term string) bool {
	_, ok := t.docs[term]
	return ok
}

// Docs returns how many chunks hold term.
func (t *TermLists) Docs(term string) int64 { return t.docs[term] }

// Read reports whether term's lists were read.
func (t *TermLists) Read(term string) bool { return t.read[term] }

// Terms reads, in one question, the library's Snapshot, how many chunks
// of lib hold each of terms, and the lists of those in at most listsUpTo chunks: the lists of
// the common ones ("the") are most of the postings, and a search scores
// them otherwise. lib must have postings (LibraryState.Postings).
func (d *DB) Terms(ctx context.Context, lib *LibraryState, terms []string, listsUpTo int64) (*TermLists, error) {
	t := NewTermLists()
	var args []any
	for _, term := range terms {
		if _, seen := t.docs[term]; !seen && term != "" {
			t.docs[term] = 0
			args = append(args, term)
		}
	}
	// The question carries the library's change key and totals (the
	// first row, book -2, its tokens as text), so that a search asks no
	// other whether the library changed.
	q := `SELECT ` + snapshotKey + `, -2, t.chunks, CAST(t.tokens AS TEXT) FROM text_totals t`
	var qargs []any
	if len(args) > 0 && lib.shards != "" {
		ph := strings.TrimSuffix(strings.Repeat("?,", len(args)), ",")
		// common_term counts the common terms of a large library (book
		// -1); a term it does not hold is counted from its lists, which
		// are short. One seek per shard and term.
		q += `
UNION ALL
SELECT term, -1, docs, NULL FROM common_term WHERE term IN (` + ph + `)
UNION ALL
SELECT p.term, p.book_id, p.n, p.data FROM fts_posting p
WHERE p.shard IN (` + lib.shards + `) AND p.term IN (` + ph + `)
	AND coalesce((SELECT c.docs FROM common_term c WHERE c.term = p.term), 0) <= ?`
		qargs = append(append(append(qargs, args...), args...), listsUpTo)
	}
	counted := make(map[string]bool)
	err := readAll(ctx, d.db, q, func(r *sql.Rows) error {
		var term string
		var l bookList
		var n int64
		if err := r.Scan(&term, &l.book, &n, &l.data); err != nil {
			return err
		}
		switch l.book {
		case -2:
			tokens, err := strconv.ParseInt(string(l.data), 10, 64)
			t.Snapshot = Snapshot{Key: term, Chunks: n, Tokens: tokens}
			return err
		case -1:
			counted[term], t.docs[term] = true, n
			return nil
		}
		if !counted[term] {
			t.docs[term] += n
		}
		t.lists[term] = append(t.lists[term], l)
		return nil
	}, qargs...)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	for _, term := range args {
		s := term.(string)
		t.read[s] = !counted[s] || t.docs[s] <= listsUpTo
	}
	return t, nil
}

// Rank returns the best want chunks of the books allowed (nil: all) by
// BM25 over terms, one per word of a query (two words may share a term:
// each scores), best first, ties by id. Every term's lists must have
// been read.
func (t *TermLists) Rank(lib *LibraryState, terms []string, w FTSWeights, allowed func(book int64) bool, want int) ([]FTSHit, error) {
	avgLen := lib.AvgLen()
	if lib.Chunks == 0 || avgLen == 0 {
		return nil, nil
	}
	weights := [3]float64{w.Heading, w.Context, w.Text}
	acc := newAccumulator(lib.minChunk, lib.maxChunk)
	for _, term := range terms {
		if term == "" {
			continue
		}
		if !t.read[term] {
			return nil, fmt.Errorf("full-text search: the lists of %q were not read", term)
		}
		idf := IDF(lib.Chunks, t.docs[term])
		for _, l := range t.lists[term] {
			if allowed != nil && !allowed(l.book) {
				continue
			}
			err := eachPosting(l.data, func(p posting) {
				if p.chunk < lib.minChunk || p.chunk > lib.maxChunk {
					return // stored after the state was read
				}
				freq := float64(p.tf[0])*weights[0] + float64(p.tf[1])*weights[1] + float64(p.tf[2])*weights[2]
				acc.add(p.chunk, l.book, fulltext.BM25(idf, freq, float64(p.length), avgLen))
			})
			if err != nil {
				return nil, fmt.Errorf("full-text search: term %q: %w", term, err)
			}
		}
	}
	hits := bestOf(acc.touched, acc.books, acc.score, want)
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
