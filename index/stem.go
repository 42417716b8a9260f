package index

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// ftsTokenizer is how the full-text index cuts and folds text, as chunk_fts
// was created with it (migration 1): a word's stem is the term the index
// holds.
const ftsTokenizer = "porter " + ftsFolding

// ftsFolding is the tokenizer under the stemmer: how text is cut and folded.
const ftsFolding = "unicode61 remove_diacritics 2"

// stemmer turns words into the terms the full-text index holds for them
// (folded, without diacritics, Porter-stemmed), by running FTS5's own
// tokenizer over them in a private in-memory database: "prisoners" is
// "prison" in the index, and only the tokenizer knows. Results are cached.
type stemmer struct {
	mu    sync.Mutex
	db    *sql.DB // opened on first use
	cache map[string]string
}

// stemCacheSize bounds the cache; past it, the cache starts afresh.
const stemCacheSize = 200_000

func (s *stemmer) open(ctx context.Context) error {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return fmt.Errorf("stemmer: %w", err)
	}
	db.SetMaxOpenConns(1) // one in-memory database, not one per connection
	for _, q := range []string{
		`CREATE VIRTUAL TABLE words USING fts5(w, tokenize = '` + ftsTokenizer + `')`,
		`CREATE VIRTUAL TABLE word_terms USING fts5vocab(words, 'instance')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			db.Close()
			return fmt.Errorf("stemmer: %w", err)
		}
	}
	s.db, s.cache = db, make(map[string]string)
	return nil
}

func (s *stemmer) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	err := s.db.Close()
	s.db = nil
	return err
}

// Stems returns the term the full-text index holds for each word, keyed by
// word: what a search for the word matches, and what TermDocs counts. A
// word the tokenizer makes no term of is absent; one it splits keeps its
// first term. Safe for concurrent use.
func (d *DB) Stems(ctx context.Context, words []string) (map[string]string, error) {
	s := d.stems
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		if err := s.open(ctx); err != nil {
			return nil, err
		}
	}
	out := make(map[string]string, len(words))
	var todo []string
	for _, w := range words {
		if t, ok := s.cache[w]; ok {
			if t != "" {
				out[w] = t
			}
		} else if _, queued := out[w]; !queued {
			out[w] = ""
			todo = append(todo, w)
		}
	}
	if len(todo) > 0 {
		if err := s.tokenize(ctx, todo, out); err != nil {
			return nil, err
		}
	}
	for w, t := range out {
		if t == "" {
			delete(out, w)
		}
	}
	return out, nil
}

// tokenize runs the tokenizer over words, one row each, and records their
// first terms in out and the cache. Nothing is kept in the database.
func (s *stemmer) tokenize(ctx context.Context, words []string, out map[string]string) error {
	if len(s.cache)+len(words) > stemCacheSize {
		s.cache = make(map[string]string)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("stem: %w", err)
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO words(rowid, w) VALUES (?, ?)`)
	if err != nil {
		return fmt.Errorf("stem: %w", err)
	}
	defer ins.Close()
	for i, w := range words {
		if _, err := ins.ExecContext(ctx, i+1, w); err != nil {
			return fmt.Errorf("stem: %w", err)
		}
	}
	rows, err := tx.QueryContext(ctx, `SELECT doc, term FROM word_terms ORDER BY doc, offset`)
	if err != nil {
		return fmt.Errorf("stem: %w", err)
	}
	defer rows.Close()
	first := make(map[int]string, len(words))
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			return fmt.Errorf("stem: %w", err)
		}
		if _, seen := first[doc]; !seen && doc >= 1 && doc <= len(words) {
			first[doc] = term
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("stem: %w", err)
	}
	for i, w := range words {
		t := first[i+1]
		s.cache[w] = t
		out[w] = t
	}
	return nil
}
