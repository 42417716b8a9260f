package index

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/grimoire-search/grimoire/index/fulltext"
)

// TermLists are the terms of one search with what the index holds of
// them, read in one question (see Terms), and the library's Snapshot as
// of the read, so that the caller can tell whether the library it read
// before is the one the lists belong to.
type TermLists struct {
	Snapshot Snapshot
	*fulltext.Lists
}

// TermsQuery asks Terms for the counts of Terms and CountOnly, and the
// lists of the Terms in at most ListsUpTo chunks and of their Rarest.
type TermsQuery struct {
	Terms, CountOnly []string
	ListsUpTo        int64
	Rarest           int
}

// Terms reads, in one question, the library's Snapshot, how many chunks
// of lib hold each of terms, and the lists of those in at most listsUpTo
// chunks: the lists of the common ones ("the") are most of the postings,
// and a search scores them otherwise, but for the rarest of them, which a
// search of common words only ranks by. lib must have postings
// (LibraryState.Postings).
func (d *DB) Terms(ctx context.Context, lib *LibraryState, q TermsQuery) (*TermLists, error) {
	t := &TermLists{Lists: fulltext.NewLists()}
	var terms, counts []string
	for _, term := range q.Terms {
		if !t.Known(term) && term != "" {
			t.Count(term, 0)
			terms = append(terms, term)
		}
	}
	for _, term := range q.CountOnly {
		if !t.Known(term) && term != "" {
			t.Count(term, 0)
			counts = append(counts, term)
		}
	}
	// The question carries the library's change key and totals (the
	// first row, book -2, its tokens as text), so that a search asks no
	// other whether the library changed.
	query := `SELECT ` + snapshotKey + `, -2, t.chunks, CAST(t.tokens AS TEXT) FROM text_totals t`
	var args []any
	if all := slices.Concat(terms, counts); len(all) > 0 && lib.shards != "" {
		// term_docs counts every term's chunks (book -1).
		ph, allArgs := idList(all)
		query += `
UNION ALL
SELECT term, -1, docs, NULL FROM term_docs WHERE term IN (` + ph + `)`
		args = allArgs
	}
	if len(terms) > 0 && lib.shards != "" {
		// The lists of those in at most ListsUpTo, and of the rarest.
		// One seek per shard and term.
		ph, termArgs := idList(terms)
		query += `
UNION ALL
SELECT p.term, p.book_id, p.n, p.data FROM fts_posting p
WHERE p.shard IN (` + lib.shards + `) AND p.term IN (
	SELECT term FROM term_docs WHERE term IN (` + ph + `) AND docs <= ?
	UNION SELECT term FROM (SELECT term FROM term_docs WHERE term IN (` + ph + `) ORDER BY docs, term LIMIT ?))`
		args = slices.Concat(args, termArgs, []any{q.ListsUpTo}, termArgs, []any{q.Rarest})
	}
	err := readAll(ctx, d.db, query, func(r *sql.Rows) error {
		var term string
		var book, n int64
		var data []byte
		if err := r.Scan(&term, &book, &n, &data); err != nil {
			return err
		}
		switch book {
		case -2:
			tokens, err := strconv.ParseInt(string(data), 10, 64)
			t.Snapshot = Snapshot{Key: term, Chunks: n, Tokens: tokens}
			return err
		case -1:
			t.Count(term, n)
			return nil
		}
		t.Append(term, fulltext.BookList{Book: book, Data: data}, 0) // counted above
		return nil
	}, args...)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	// The rarest, as the question ranked them.
	held := slices.DeleteFunc(slices.Clone(terms), func(s string) bool { return t.Docs(s) == 0 })
	slices.SortFunc(held, func(a, b string) int { return cmp.Or(cmp.Compare(t.Docs(a), t.Docs(b)), strings.Compare(a, b)) })
	rarest := held[:min(q.Rarest, len(held))]
	for _, s := range terms {
		t.SetRead(s, t.Docs(s) <= q.ListsUpTo || slices.Contains(rarest, s))
	}
	for _, s := range counts {
		t.SetRead(s, t.Docs(s) == 0)
	}
	return t, nil
}
