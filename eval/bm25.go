package eval

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" driver, with FTS5
)

// ModeBM25 is the name the plain baseline is reported under beside the
// engine's modes.
const ModeBM25 = "bm25"

// BM25 is the plain full-text baseline grimoire's search is measured
// against: one FTS5 row per document (title and text in one column), the
// porter tokenizer over unicode61 (diacritics removed, as the index does),
// every query word OR'ed, ranked by FTS5's bm25() with its defaults (k1 =
// 1.2, b = 0.75). Nothing is tuned: no column weights, no words left out,
// no chunks. It lives in an in-memory SQLite database, built once per
// collection.
type BM25 struct {
	db *sql.DB
}

// NewBM25 indexes the documents.
func NewBM25(ctx context.Context, docs []Doc) (*BM25, error) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, err
	}
	// Every connection to ":memory:" is a database of its own: keep one.
	db.SetMaxOpenConns(1)
	b := &BM25{db: db}
	if err := b.load(ctx, docs); err != nil {
		db.Close()
		return nil, fmt.Errorf("build the bm25 baseline: %w", err)
	}
	return b, nil
}

func (b *BM25) load(ctx context.Context, docs []Doc) error {
	if _, err := b.db.ExecContext(ctx, `CREATE VIRTUAL TABLE doc USING fts5(id UNINDEXED, body, tokenize = 'porter unicode61 remove_diacritics 2')`); err != nil {
		return err
	}
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO doc(id, body) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, d := range docs {
		if _, err := ins.ExecContext(ctx, d.ID, d.Title+"\n"+d.Text); err != nil {
			return fmt.Errorf("document %s: %w", d.ID, err)
		}
	}
	return tx.Commit()
}

// Search returns the ids of the best documents for text, best first; none
// when text has no words.
func (b *BM25) Search(ctx context.Context, text string, limit int) ([]string, error) {
	match := orWords(text)
	if match == "" {
		return nil, nil
	}
	rows, err := b.db.QueryContext(ctx, `SELECT id FROM doc WHERE doc MATCH ? ORDER BY bm25(doc), rowid LIMIT ?`, match, limit)
	if err != nil {
		return nil, fmt.Errorf("bm25 search: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// Close frees the database.
func (b *BM25) Close() error { return b.db.Close() }

// orWords turns text into an FTS5 query of its distinct words, each quoted
// (so that no input is FTS5 syntax) and OR'ed.
func orWords(text string) string {
	seen := make(map[string]bool)
	var terms []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isWordRune(r) }) {
		if !seen[w] {
			seen[w] = true
			terms = append(terms, `"`+w+`"`)
		}
	}
	return strings.Join(terms, " OR ")
}
