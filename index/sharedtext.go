package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/grimoire-search/grimoire/index/copies"
)

// A search lists, with each hit, the other books that hold its text
// (editions, an anthology and the novel it holds). It finds most of them
// among its candidates, since copies of a text score alike; but not where
// one edition's headings carry the question's words and another's do not.
// So the writer records which ready books share text (shared_text), for
// a search to look in those books for the rest.
//
// Each book with postings has a sketch of its text (copies.Sketch), kept
// with its postings, and listed by value in sketch_value: a new book finds
// the books whose sketches share values with its own, and records those
// that resemble it (copies.Shares), both ways.

// writeSketch reads the text of book id, whose postings an older grimoire
// wrote, and stores its sketch (storeSketch).
func (t *Tx) writeSketch(ctx context.Context, id int64) error {
	rows, err := t.tx.QueryContext(ctx, `SELECT text FROM chunk WHERE book_id = ?`, id)
	if err != nil {
		return fmt.Errorf("sketch of book %d: %w", id, err)
	}
	var sk copies.Sketch
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			rows.Close()
			return fmt.Errorf("sketch of book %d: %w", id, err)
		}
		sk.Add(text)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sketch of book %d: %w", id, err)
	}
	return t.storeSketch(ctx, id, &sk)
}

// storeSketch stores sk, the sketch of book id's text, whose postings are
// written, and records the books it shares text with.
func (t *Tx) storeSketch(ctx context.Context, id int64, sk *copies.Sketch) error {
	values := sk.Values()
	others, err := t.resembling(ctx, id, values, sk.N)
	if err != nil {
		return fmt.Errorf("sketch of book %d: %w", id, err)
	}
	stored := make([]int64, len(values))
	for i, v := range values {
		stored[i] = int64(v) // SQLite's integers are signed
	}
	list, err := json.Marshal(stored)
	if err != nil {
		return fmt.Errorf("sketch of book %d: %w", id, err)
	}
	if _, err := t.tx.ExecContext(ctx, `INSERT INTO book_sketch(book_id, sketch, shingles) VALUES (?, ?, ?)`, id, list, sk.N); err != nil {
		return fmt.Errorf("sketch of book %d: %w", id, err)
	}
	if len(stored) > 0 {
		args := make([]any, 0, 2*len(stored))
		for _, v := range stored {
			args = append(args, v, id)
		}
		q := `INSERT INTO sketch_value(value, book_id) VALUES (?, ?)` + strings.Repeat(`, (?, ?)`, len(stored)-1)
		if _, err := t.tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("sketch of book %d: %w", id, err)
		}
	}
	for _, o := range others {
		if _, err := t.tx.ExecContext(ctx, `INSERT OR REPLACE INTO shared_text(book_id, other_id, share) VALUES (?1, ?2, ?3), (?2, ?1, ?4)`,
			id, o.id, o.holds, o.held); err != nil {
			return fmt.Errorf("sketch of book %d: %w", id, err)
		}
	}
	return nil
}

// resemblance is a book whose text resembles another's: held is the share
// of the other's text it holds, holds the share of its own text the other
// holds.
type resemblance struct {
	id          int64
	held, holds float64
}

// resembling returns the books other than id whose sketches resemble
// values (the sketch, sorted, of a book of n shingles).
func (t *Tx) resembling(ctx context.Context, id int64, values []uint64, n int) ([]resemblance, error) {
	need := copies.NeedValues()
	if len(values) < need {
		return nil, nil
	}
	// One statement, a bounded look-up per value.
	var q strings.Builder
	args := []any{id}
	for i, v := range values {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		fmt.Fprintf(&q, `SELECT * FROM (SELECT book_id FROM sketch_value WHERE value = ?%d AND book_id != ?1 LIMIT %d)`, i+2, copies.ValueBooks)
		args = append(args, int64(v))
	}
	shared := make(map[int64]int)
	rows, err := t.tx.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var other int64
		if err := rows.Scan(&other); err != nil {
			rows.Close()
			return nil, err
		}
		shared[other]++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var cands []int64
	for other, k := range shared {
		if k >= need {
			cands = append(cands, other)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	ph, cargs := idList(cands)
	rows, err = t.tx.QueryContext(ctx, `SELECT book_id, sketch, shingles FROM book_sketch WHERE book_id IN (`+ph+`)`, cargs...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []resemblance
	for rows.Next() {
		var other int64
		var list []byte
		var m int
		if err := rows.Scan(&other, &list, &m); err != nil {
			return nil, err
		}
		var stored []int64
		if err := json.Unmarshal(list, &stored); err != nil {
			return nil, fmt.Errorf("sketch of book %d: %w", other, err)
		}
		theirs := make([]uint64, len(stored))
		for i, v := range stored {
			theirs[i] = uint64(v)
		}
		if held, holds, ok := copies.Shares(values, n, theirs, m); ok {
			out = append(out, resemblance{id: other, held: held, holds: holds})
		}
	}
	return out, rows.Err()
}

// WordsLookup asks for the chunks of Book whose text holds the most of
// the rarest (in the book) of Words, lower case words as a search's are.
type WordsLookup struct {
	Book  int64
	Words []string
}

// ChunksWithWords answers lookups in one question, from the books'
// postings: for each, at most limit chunks, most first (ties by id),
// holding the most of its rarest rarest words. A book without postings
// has none.
func (d *DB) ChunksWithWords(ctx context.Context, lookups []WordsLookup, rarest, limit int) ([][]int64, error) {
	out := make([][]int64, len(lookups))
	terms := make([][]string, len(lookups))
	var allTerms []string
	var books []int64
	shards := make(map[int64]bool)
	for i, l := range lookups {
		if terms[i] = copies.Terms(l.Words); len(terms[i]) == 0 {
			continue
		}
		for _, t := range terms[i] {
			if !slices.Contains(allTerms, t) {
				allTerms = append(allTerms, t)
			}
		}
		if !slices.Contains(books, l.Book) {
			books = append(books, l.Book)
		}
		shards[shardOf(l.Book)] = true
	}
	if len(books) == 0 {
		return out, nil
	}
	lists := make(map[int64]map[string]copies.TermList)
	shPh, shArgs := idList(slices.Sorted(maps.Keys(shards)))
	bPh, bArgs := idList(books)
	tPh, tArgs := idList(allTerms)
	err := readAll(ctx, d.db, `SELECT term, book_id, n, data FROM fts_posting
WHERE shard IN (`+shPh+`) AND term IN (`+tPh+`) AND book_id IN (`+bPh+`)`, func(r *sql.Rows) error {
		var term string
		var book int64
		var l copies.TermList
		if err := r.Scan(&term, &book, &l.Chunks, &l.Data); err != nil {
			return err
		}
		if lists[book] == nil {
			lists[book] = make(map[string]copies.TermList)
		}
		lists[book][term] = l
		return nil
	}, slices.Concat(shArgs, tArgs, bArgs)...)
	if err != nil {
		return nil, fmt.Errorf("chunks holding words: %w", err)
	}
	for i, l := range lookups {
		if out[i], err = copies.Candidates(terms[i], lists[l.Book], rarest, limit); err != nil {
			return nil, fmt.Errorf("chunks of book %d: %w", l.Book, err)
		}
	}
	return out, nil
}

// checkSketches checks that only books with postings have sketches, that
// sketch_value lists each sketch's values, and that shared_text holds
// pairs of books with sketches, both ways.
func (d *DB) checkSketches(ctx context.Context) error {
	var orphans, valuesMatch, oneWay, strayPairs int
	err := d.db.QueryRowContext(ctx, `
SELECT (SELECT count(*) FROM book_sketch s WHERE NOT EXISTS (SELECT 1 FROM fts_book f WHERE f.book_id = s.book_id)),
	(SELECT count(*) FROM sketch_value) = (SELECT coalesce(sum(json_array_length(sketch)), 0) FROM book_sketch),
	(SELECT count(*) FROM shared_text a WHERE NOT EXISTS (SELECT 1 FROM shared_text b WHERE b.book_id = a.other_id AND b.other_id = a.book_id)),
	(SELECT count(*) FROM shared_text p WHERE NOT EXISTS (SELECT 1 FROM book_sketch s WHERE s.book_id = p.book_id))`).
		Scan(&orphans, &valuesMatch, &oneWay, &strayPairs)
	switch {
	case err != nil:
		return fmt.Errorf("shared text check: %w", err)
	case orphans > 0:
		return fmt.Errorf("shared text check: %d books without postings have a sketch", orphans)
	case valuesMatch == 0:
		return fmt.Errorf("shared text check: the sketches' values are not those the sketches list")
	case oneWay > 0:
		return fmt.Errorf("shared text check: %d pairs of books that share text are recorded one way only", oneWay)
	case strayPairs > 0:
		return fmt.Errorf("shared text check: %d pairs name a book without a sketch", strayPairs)
	}
	return nil
}
