package index

import (
	"context"
	"database/sql"
	"fmt"
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

// Terms reads, in one question, the library's Snapshot, how many chunks
// of lib hold each of terms, and the lists of those in at most listsUpTo chunks: the lists of
// the common ones ("the") are most of the postings, and a search scores
// them otherwise. lib must have postings (LibraryState.Postings).
func (d *DB) Terms(ctx context.Context, lib *LibraryState, terms []string, listsUpTo int64) (*TermLists, error) {
	t := &TermLists{Lists: fulltext.NewLists()}
	var args []any
	for _, term := range terms {
		if !t.Known(term) && term != "" {
			t.Count(term, 0)
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
			counted[term] = true
			t.Count(term, n)
			return nil
		}
		if counted[term] {
			n = 0 // counted by common_term
		}
		t.Append(term, fulltext.BookList{Book: book, Data: data}, n)
		return nil
	}, qargs...)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	for _, term := range args {
		s := term.(string)
		t.SetRead(s, !counted[s] || t.Docs(s) <= listsUpTo)
	}
	return t, nil
}
