package index

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/grimoire-search/grimoire/index/fulltext"
	"github.com/grimoire-search/grimoire/library"
)

// The library's most common terms ("the", "of") are in most chunks, and
// FTS5 counts a term's chunks by walking its whole posting list: 45 ms for a
// term of a million chunks, paid by every `grimoire query` that asks for
// one. The writer counts them once instead, into common_term. A book's new
// chunks are added to the counts in the transaction that stores them
// (addCommonTerms), and the triggers of migration 15 empty the table in the
// transaction that removes or rewrites any chunk, so that a count found
// there is always the one FTS5 would give; TermDocs counts the terms it
// does not hold.

// Which terms the writer counts ahead: those in at least
// commonTermShare of a sample of the chunks, in a library of at least
// commonTermChunks chunks. Below that, counting a term costs a few
// milliseconds at most, and so would every refresh that changed nothing a
// search notices. The terms are chosen again once the library has grown by
// commonTermGrowth since they were (commonTermsAtKey in meta): a term
// grown common meanwhile would be counted by every search.
const (
	commonTermShare  = 0.1
	commonTermChunks = 50000
	commonTermGrowth = 0.1
	commonTermsAtKey = "common_terms_at"
)

// RefreshCommonTerms counts the library's common terms into common_term,
// unless it holds counts already (which the writer and the triggers keep
// current) of terms chosen before the library grew by commonTermGrowth, or
// the library is too small to need them.
func (w *Writer) RefreshCommonTerms(ctx context.Context) error {
	return w.refreshCommonTerms(ctx, commonTermChunks)
}

// refreshCommonTerms is RefreshCommonTerms for a library of at least
// minChunks chunks; tests count the terms of small ones.
func (w *Writer) refreshCommonTerms(ctx context.Context, minChunks int) error {
	var held bool
	var at int
	err := w.db.QueryRowContext(ctx, `
SELECT EXISTS (SELECT 1 FROM common_term), coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0)`, commonTermsAtKey).Scan(&held, &at)
	if err != nil {
		return fmt.Errorf("common terms: %w", err)
	}
	n, err := w.ChunkCount(ctx)
	if err != nil || n < minChunks {
		return err
	}
	if held && float64(n) <= float64(at)*(1+commonTermGrowth) {
		return nil
	}
	// The sample only chooses which terms to count; the counts are
	// FTS5's own, taken in the transaction that stores them.
	terms, err := w.sampleCommonTerms(ctx, n)
	if err != nil || len(terms) == 0 {
		return err
	}
	return w.Update(ctx, func(t *Tx) error {
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM common_term`); err != nil {
			return fmt.Errorf("common terms: %w", err)
		}
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, commonTermsAtKey, fmt.Sprint(n)); err != nil {
			return fmt.Errorf("common terms: %w", err)
		}
		for _, term := range terms {
			var docs int
			err := t.tx.QueryRowContext(ctx, `SELECT doc FROM chunk_vocab WHERE term = ?`, term).Scan(&docs)
			if err == sql.ErrNoRows {
				continue // in the sample's texts but not the index's: gone since
			}
			if err != nil {
				return fmt.Errorf("common terms: count %q: %w", term, err)
			}
			if _, err := t.tx.ExecContext(ctx, `INSERT OR REPLACE INTO common_term(term, docs) VALUES (?, ?)`, term, docs); err != nil {
				return fmt.Errorf("common terms: %w", err)
			}
		}
		return nil
	})
}

// sampleCommonTerms returns the terms in at least commonTermShare of
// FeatureSample chunks spread over the index (which holds n), as the
// full-text index makes them (eachToken, termOf), in order.
func (d *DB) sampleCommonTerms(ctx context.Context, n int) ([]string, error) {
	docs := make(map[string]int)
	sampled := 0
	var terms chunkTerms
	err := d.sampleChunks(ctx, FeatureSample, n, func(c ChunkText) {
		sampled++
		terms.each(func(t string) { docs[t]++ }, c.Heading, c.Context, c.Text)
	})
	if err != nil {
		return nil, err
	}
	var common []string
	for t, k := range docs {
		if float64(k) >= commonTermShare*float64(sampled) {
			common = append(common, t)
		}
	}
	slices.Sort(common)
	return common, nil
}

// commonTermDocs adds to out the counts common_term holds for terms.
func (d *DB) commonTermDocs(ctx context.Context, terms []string, out map[string]int) error {
	if len(terms) == 0 {
		return nil
	}
	ph, args := idList(terms)
	rows, err := d.db.QueryContext(ctx, `SELECT term, docs FROM common_term WHERE term IN (`+ph+`)`, args...)
	if err != nil {
		return fmt.Errorf("term statistics: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return fmt.Errorf("term statistics: %w", err)
		}
		out[t] = n
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("term statistics: %w", err)
	}
	return nil
}

// addCommonTerms adds chunks, being stored, to the counts common_term
// holds: counting every common term again costs seconds at a million
// chunks, cutting the new chunks' words a few milliseconds.
func (t *Tx) addCommonTerms(ctx context.Context, chunks []library.Chunk) error {
	rows, err := t.tx.QueryContext(ctx, `SELECT term FROM common_term`)
	if err != nil {
		return fmt.Errorf("common terms: %w", err)
	}
	add := make(map[string]int)
	for rows.Next() {
		var term string
		if err := rows.Scan(&term); err != nil {
			rows.Close()
			return fmt.Errorf("common terms: %w", err)
		}
		add[term] = 0
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("common terms: %w", err)
	}
	if len(add) == 0 {
		return nil
	}
	var terms chunkTerms
	for _, c := range chunks {
		terms.each(func(t string) {
			if n, common := add[t]; common {
				add[t] = n + 1
			}
		}, c.Heading, c.Context, c.Text)
	}
	for term, n := range add {
		if n == 0 {
			continue
		}
		if _, err := t.tx.ExecContext(ctx, `UPDATE common_term SET docs = docs + ? WHERE term = ?`, n, term); err != nil {
			return fmt.Errorf("common terms: %w", err)
		}
	}
	return nil
}

// checkCommonTerms verifies that each count common_term holds is FTS5's.
func (d *DB) checkCommonTerms(ctx context.Context) error {
	rows, err := d.db.QueryContext(ctx, `
SELECT c.term, c.docs, coalesce((SELECT v.doc FROM chunk_vocab v WHERE v.term = c.term), 0) FROM common_term c`)
	if err != nil {
		return fmt.Errorf("common terms check: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var term string
		var held, fts int
		if err := rows.Scan(&term, &held, &fts); err != nil {
			return fmt.Errorf("common terms check: %w", err)
		}
		if held != fts {
			return fmt.Errorf("common terms check: %q is counted in %d chunks, FTS5 finds it in %d", term, held, fts)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("common terms check: %w", err)
	}
	return nil
}

// chunkTerms cuts chunks into the terms the full-text index makes of them,
// folding and stemming each distinct token once.
type chunkTerms struct {
	of   map[string]string // token → term
	seen map[string]bool
}

// each calls fn once with each term of a chunk's columns, as FTS5 counts
// the chunks that hold a term.
func (c *chunkTerms) each(fn func(term string), columns ...string) {
	if c.of == nil {
		c.of, c.seen = make(map[string]string), make(map[string]bool)
	}
	clear(c.seen)
	for _, text := range columns {
		fulltext.EachToken(text, func(tok string) {
			t, ok := c.of[tok]
			if !ok {
				t = fulltext.Term(tok)
				c.of[tok] = t
			}
			if t != "" && !c.seen[t] {
				c.seen[t] = true
				fn(t)
			}
		})
	}
}
