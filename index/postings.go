package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/grimoire-search/grimoire/index/copies"
	"github.com/grimoire-search/grimoire/index/fulltext"
)

// FTS5 ranks with bm25() by scoring every row that holds a query term, and
// looks up each row's length as it goes: in a library of a million chunks
// a search of a few middling words scores a hundred thousand rows. So the
// writer keeps postings of its own (fts_posting): for each term and ready
// book, the book's chunks that hold it, each with its length and its count
// in each column. A search reads the rows of its terms (DB.Terms) and
// scores them with BM25 as bm25() does, in memory (TermLists.Rank), over
// the books its filters select. FTS5 still answers what the postings
// cannot (see SearchFTS).
//
// Postings are written in the transaction that makes a book ready
// (Tx.FinishBook) and, for books made ready before there were postings, by
// WritePostings; triggers drop them when the book goes, leaves the ready
// state, or one of its chunks changes. A book has postings exactly when it
// has a row in fts_book.

// shardOf is the shard of the postings of book id: 8 books a shard, as
// migration 16 says. A shard's rows are what a new book's rows land
// among; measured at a million chunks (5,000 books), writing every book's
// postings took 25 minutes in a table by term alone, 5.3 with 32 books a
// shard and 3.4 with 8, where a search's 3,000 seeks of 5 terms cost a
// few milliseconds.
func shardOf(id int64) int64 { return id >> 3 }

// postingsPerInsert is how many rows of postings one INSERT writes.
const postingsPerInsert = 100

// writePostings writes the postings of book id, a book whose chunks are all
// stored, and records that it has them.
func (t *Tx) writePostings(ctx context.Context, id int64) error {
	rows, err := t.tx.QueryContext(ctx, `
SELECT id, heading, context, text, length FROM chunk WHERE book_id = ? ORDER BY id`, id)
	if err != nil {
		return fmt.Errorf("postings of book %d: %w", id, err)
	}
	// Each distinct token is numbered as it comes, and a chunk kept as
	// its columns' token numbers: each token is folded and stemmed once.
	type chunkTokens struct {
		id     int64
		length uint64
		cols   [3][]int32
	}
	var chunks []chunkTokens
	tokenID := make(map[string]int32)
	var tokens []string
	// The sketch of the book's text, from the texts read here.
	var sk copies.Sketch
	for rows.Next() {
		var c chunkTokens
		var cols [3]string
		if err := rows.Scan(&c.id, &cols[0], &cols[1], &cols[2], &c.length); err != nil {
			rows.Close()
			return fmt.Errorf("postings of book %d: %w", id, err)
		}
		sk.Add(cols[2])
		for i, text := range cols {
			fulltext.EachToken(text, func(tok string) {
				k, ok := tokenID[tok]
				if !ok {
					k = int32(len(tokens))
					tokenID[tok] = k
					tokens = append(tokens, tok)
				}
				c.cols[i] = append(c.cols[i], k)
			})
		}
		chunks = append(chunks, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postings of book %d: %w", id, err)
	}
	// Tokens that differ only in case or accents, or stem alike, are one
	// term.
	termNo := make([]int32, len(tokens))
	termID := make(map[string]int32)
	terms := []string{} // a JSON array even when empty
	for i, tok := range tokens {
		term := fulltext.Term(tok)
		if term == "" {
			termNo[i] = -1
			continue
		}
		k, ok := termID[term]
		if !ok {
			k = int32(len(terms))
			termID[term] = k
			terms = append(terms, term)
		}
		termNo[i] = k
	}
	type list struct {
		n    int
		prev int64
		data []byte
	}
	lists := make([]list, len(terms))
	tf := make([][3]uint64, len(terms))
	var touched []int32
	for _, c := range chunks {
		for col, toks := range c.cols {
			for _, tok := range toks {
				k := termNo[tok]
				if k < 0 {
					continue
				}
				if tf[k] == ([3]uint64{}) {
					touched = append(touched, k)
				}
				tf[k][col]++
			}
		}
		for _, k := range touched {
			l := &lists[k]
			l.data = fulltext.AppendPosting(l.data, l.prev, fulltext.Posting{Chunk: c.id, Length: c.length, TF: tf[k]})
			l.prev, l.n = c.id, l.n+1
			tf[k] = [3]uint64{}
		}
		touched = touched[:0]
	}
	// Postings written before (a book made ready twice) give way.
	if err := t.dropPostings(ctx, id); err != nil {
		return err
	}
	// Rows go in postingsPerInsert at a time, in the table's order: one
	// statement a row costs more than the row, and B-tree pages filled
	// in order are written once.
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(terms[a], terms[b]) })
	var stmt *sql.Stmt
	defer func() {
		if stmt != nil {
			stmt.Close()
		}
	}()
	args := make([]any, 0, 5*postingsPerInsert)
	for start := 0; start < len(terms); start += postingsPerInsert {
		end := min(start+postingsPerInsert, len(terms))
		if stmt == nil || end-start < postingsPerInsert {
			if stmt != nil {
				stmt.Close()
			}
			q := `INSERT INTO fts_posting(shard, term, book_id, n, data) VALUES (?, ?, ?, ?, ?)` + strings.Repeat(`, (?, ?, ?, ?, ?)`, end-start-1)
			if stmt, err = t.tx.PrepareContext(ctx, q); err != nil {
				return fmt.Errorf("postings of book %d: %w", id, err)
			}
		}
		args = args[:0]
		for _, k := range order[start:end] {
			args = append(args, shardOf(id), terms[k], id, lists[k].n, lists[k].data)
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("postings of book %d: %w", id, err)
		}
	}
	termList, err := json.Marshal(terms)
	if err != nil {
		return fmt.Errorf("postings of book %d: %w", id, err)
	}
	if _, err := t.tx.ExecContext(ctx, `INSERT INTO fts_book(book_id, terms) VALUES (?, ?)`, id, termList); err != nil {
		return fmt.Errorf("postings of book %d: %w", id, err)
	}
	return t.storeSketch(ctx, id, &sk)
}

// WritePostings writes the postings, and the sketch of their text (see
// storeSketch), of the ready books that have none (made ready before the
// index kept postings, or by a rebuild), and the sketches of those whose
// postings were written before there were sketches, one book a
// transaction, until none is left or ctx ends. It returns how many books
// it wrote. Searches use the postings once every ready book has them.
func (w *Writer) WritePostings(ctx context.Context) (int, error) {
	if err := w.dropStrayPostings(ctx); err != nil {
		return 0, err
	}
	return w.bookByBook(ctx, func(t *Tx) (bool, error) {
		var id int64
		var posted bool
		err := t.tx.QueryRowContext(ctx, `
SELECT b.id, EXISTS (SELECT 1 FROM fts_book f WHERE f.book_id = b.id) FROM book b WHERE b.status = 'ready'
AND NOT EXISTS (SELECT 1 FROM book_sketch s WHERE s.book_id = b.id) ORDER BY b.id LIMIT 1`).Scan(&id, &posted)
		if err == sql.ErrNoRows {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("books without postings: %w", err)
		}
		if posted {
			// Postings written before books had sketches.
			return true, t.writeSketch(ctx, id)
		}
		return true, t.writePostings(ctx, id)
	})
}

// bookByBook runs work, which picks a book and does its work on it, in a
// transaction of its own until it finds no book or ctx ends, and returns
// how many books it did. The book is picked in the transaction that works
// on it: a reconcile beside ingest (watch) may prune it. A writer stopped
// part way (even by kill -9) leaves whole books done, and the next one
// goes on.
func (w *Writer) bookByBook(ctx context.Context, work func(t *Tx) (bool, error)) (int, error) {
	done := 0
	for {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		did := false
		err := w.Update(ctx, func(t *Tx) error {
			var err error
			did, err = work(t)
			return err
		})
		if err != nil || !did {
			return done, err
		}
		done++
	}
}

// dropStrayPostings drops the postings of books that are not ready, or
// gone: an older grimoire wrote them for a book pruned while it was
// ingested, which no trigger would drop. Searches would rank with FTS5
// alone for as long as they stayed, since the books with postings would
// no longer be the ready ones.
func (w *Writer) dropStrayPostings(ctx context.Context) error {
	return w.Update(ctx, func(t *Tx) error {
		rows, err := t.tx.QueryContext(ctx, `
SELECT f.book_id FROM fts_book f LEFT JOIN book b ON b.id = f.book_id WHERE b.status IS NOT 'ready'`)
		if err != nil {
			return fmt.Errorf("stray postings: %w", err)
		}
		var stray []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("stray postings: %w", err)
			}
			stray = append(stray, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("stray postings: %w", err)
		}
		for _, id := range stray {
			if err := t.dropPostings(ctx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// dropPostings drops the postings of book id, as the triggers do.
func (t *Tx) dropPostings(ctx context.Context, id int64) error {
	for _, q := range []string{
		`DELETE FROM fts_posting WHERE shard = ?2 AND book_id = ?1 AND term IN (SELECT value FROM json_each((SELECT terms FROM fts_book WHERE book_id = ?1)))`,
		`DELETE FROM fts_book WHERE book_id = ?1`,
	} {
		if _, err := t.tx.ExecContext(ctx, q, id, shardOf(id)); err != nil {
			return fmt.Errorf("postings of book %d: %w", id, err)
		}
	}
	return nil
}

// DropPostings forgets every book's postings, for WritePostings to write
// them again (RebuildFTS).
func (w *Writer) DropPostings(ctx context.Context) error {
	return w.Update(ctx, func(t *Tx) error {
		for _, q := range []string{`DELETE FROM fts_posting`, `DELETE FROM fts_book`} {
			if _, err := t.tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("drop postings: %w", err)
			}
		}
		return nil
	})
}

// checkPostings checks that only ready books have postings, and that each
// has a row for every term its list names and no other.
func (d *DB) checkPostings(ctx context.Context) error {
	var unready int
	var rowsMatch, countsMatch bool
	err := d.db.QueryRowContext(ctx, `
SELECT (SELECT count(*) FROM fts_book f LEFT JOIN book b ON b.id = f.book_id WHERE b.status IS NOT 'ready'),
	(SELECT count(*) FROM fts_posting) = (SELECT coalesce(sum(json_array_length(terms)), 0) FROM fts_book),
	NOT EXISTS (SELECT 1 FROM (SELECT term, sum(n) AS docs FROM fts_posting GROUP BY term) p
		FULL JOIN term_docs t USING (term) WHERE p.docs IS NOT t.docs)`).Scan(&unready, &rowsMatch, &countsMatch)
	if err != nil {
		return fmt.Errorf("postings check: %w", err)
	}
	if unready > 0 {
		var which []string
		rows, err := d.db.QueryContext(ctx, `
SELECT f.book_id, coalesce(b.status, 'deleted') FROM fts_book f LEFT JOIN book b ON b.id = f.book_id
WHERE b.status IS NOT 'ready' ORDER BY f.book_id LIMIT 10`)
		if err != nil {
			return fmt.Errorf("postings check: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var status string
			if err := rows.Scan(&id, &status); err != nil {
				return fmt.Errorf("postings check: %w", err)
			}
			which = append(which, fmt.Sprintf("book %d (%s)", id, status))
		}
		return fmt.Errorf("postings check: %d books that are not ready have postings: %s", unready, strings.Join(which, ", "))
	}
	if !rowsMatch {
		return fmt.Errorf("postings check: the rows of postings are not those the books list")
	}
	if !countsMatch {
		return fmt.Errorf("postings check: the terms' counts of chunks (term_docs) are not their postings'")
	}
	return nil
}
