package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zeebo/blake3"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/internal/vec8"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model"
)

// The salvage is what a rebuild read of the old index, kept in the new one
// until FinishRebuild. Chunks and sections are keyed by what makes them
// come out the same again: the content hash of their book and their own
// heading (or title) and text, since laying a book out is deterministic
// for the same file and chunking settings.
var createSalvage = []string{
	`CREATE TABLE IF NOT EXISTS salvage_chunk (
	key     BLOB PRIMARY KEY,
	old_id  INTEGER NOT NULL,
	context TEXT NOT NULL,
	vec     BLOB
)`,
	`CREATE INDEX IF NOT EXISTS salvage_chunk_old ON salvage_chunk(old_id)`,
	`CREATE TABLE IF NOT EXISTS salvage_section (
	key     BLOB PRIMARY KEY,
	summary TEXT NOT NULL
)`,
	`CREATE TABLE IF NOT EXISTS salvage_book (
	hash TEXT PRIMARY KEY,
	slug TEXT NOT NULL
)`,
	// The pages OCR read are copied into ocr_page as they were, since
	// they are keyed by content already; this lists which, to count them.
	`CREATE TABLE IF NOT EXISTS salvage_ocr_page (
	hash TEXT NOT NULL,
	page INTEGER NOT NULL,
	PRIMARY KEY (hash, page)
) WITHOUT ROWID`,
}

var dropSalvage = []string{
	`DROP TABLE IF EXISTS salvage_chunk`,
	`DROP TABLE IF EXISTS salvage_section`,
	`DROP TABLE IF EXISTS salvage_book`,
	`DROP TABLE IF EXISTS salvage_ocr_page`,
}

func (t *Tx) resetSalvage(ctx context.Context) error {
	for _, q := range append(append([]string{}, dropSalvage...), createSalvage...) {
		if _, err := t.tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	for _, q := range []string{`DELETE FROM exclusion`, `DELETE FROM meta WHERE key IN ('context_model', 'rebuild')`} {
		if _, err := t.tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func saltedKey(parts ...string) []byte {
	h := blake3.New()
	var n [binary.MaxVarintLen64]byte
	for _, p := range parts {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(p)))])
		h.Write([]byte(p))
	}
	return h.Sum(nil)
}

func chunkKey(book library.Hash, heading, text string) []byte {
	return saltedKey("chunk", book.String(), heading, text)
}

func sectionKey(book library.Hash, title, text string) []byte {
	return saltedKey("section", book.String(), title, text)
}

// writeError marks a failure to write the new index, which must stop the
// salvage, from damage in the old one, which only skips rows.
type writeError struct{ error }

func (e writeError) Unwrap() error { return e.error }

// salvager reads the old index src into the new index dst.
type salvager struct {
	src  *sql.DB
	dst  *Writer
	from string
	// books maps the old index's book ids to their content hashes.
	books map[int64]library.Hash
	// unreadable counts the ids and books whose rows could not be read.
	unreadable int
	batch      []func(*Tx) error
}

// salvage reads what it can of the index at from into dst's salvage
// tables, recording in st the stamps it finds and whether the old index
// is damaged.
func salvage(ctx context.Context, from string, dst *Writer, st *rebuildState) error {
	src, err := openSQL(dsn(from, "mode=ro", "_pragma=busy_timeout(10000)", "_pragma=cache_size(-32000)"))
	if err != nil {
		return fmt.Errorf("rebuild: open %s: %w", from, err)
	}
	defer src.Close()
	if err := ping(ctx, src, from); err != nil {
		if fault.CodeOf(err) != fault.Damaged {
			return fmt.Errorf("rebuild: %w", err)
		}
		// Nothing can be read: the rebuild starts from the library alone.
		st.Damaged = true
		return nil
	}
	if err := quickCheck(ctx, src, from); fault.CodeOf(err) == fault.Damaged {
		st.Damaged = true
	} else if err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	s := &salvager{src: src, dst: dst, from: from, books: map[int64]library.Hash{}}
	for _, step := range []func(context.Context, *rebuildState) error{s.stamps, s.bookRows, s.exclusions, s.chunks, s.vectors, s.sections, s.ocrPages} {
		if err := step(ctx, st); err != nil {
			return fmt.Errorf("rebuild: salvage %s: %w", from, err)
		}
		if err := s.flush(ctx); err != nil {
			return fmt.Errorf("rebuild: salvage %s: %w", from, err)
		}
	}
	if s.unreadable > 0 {
		st.Damaged = true
	}
	return nil
}

// add queues a write to the new index; they are committed in batches.
func (s *salvager) add(ctx context.Context, fn func(*Tx) error) error {
	s.batch = append(s.batch, fn)
	if len(s.batch) >= 1000 {
		return s.flush(ctx)
	}
	return nil
}

func (s *salvager) flush(ctx context.Context) error {
	if len(s.batch) == 0 {
		return nil
	}
	err := s.dst.Update(ctx, func(t *Tx) error {
		for _, fn := range s.batch {
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	})
	s.batch = s.batch[:0]
	if err != nil {
		return writeError{err}
	}
	return nil
}

// scan runs query, whose two parameters bound a range of ids, over ids 1
// to hi, a range at a time. A range that fails on damage is halved until
// the ids that cannot be read are found and skipped. row is called for
// every row read, and may see a row again when a range failed part way.
func (s *salvager) scan(ctx context.Context, query string, hi int64, row func(*sql.Rows) error) error {
	const span = 256
	for lo := int64(1); lo <= hi; lo += span {
		if err := s.scanRange(ctx, query, lo, min(lo+span-1, hi), row); err != nil {
			return err
		}
	}
	return nil
}

func (s *salvager) scanRange(ctx context.Context, query string, lo, hi int64, row func(*sql.Rows) error) error {
	err := s.read(ctx, query, []any{lo, hi}, row)
	var we writeError
	if err == nil || errors.As(err, &we) || !isDamage(err) {
		return err
	}
	if lo == hi {
		s.unreadable++
		return nil
	}
	mid := lo + (hi-lo)/2
	if err := s.scanRange(ctx, query, lo, mid, row); err != nil {
		return err
	}
	return s.scanRange(ctx, query, mid+1, hi, row)
}

// read runs one query on the old index, handing each row to row.
func (s *salvager) read(ctx context.Context, query string, args []any, row func(*sql.Rows) error) error {
	return readAll(ctx, s.src, query, row, args...)
}

// maxID returns an upper bound of table's ids: the largest the table or
// sqlite_sequence knows, or, when both are unreadable, one derived from
// the file's size (a row takes more than a thirty-second of a page).
func (s *salvager) maxID(ctx context.Context, table, col string) int64 {
	var best int64
	read := false
	for _, q := range []string{
		`SELECT max(` + col + `) FROM ` + table,
		`SELECT seq FROM sqlite_sequence WHERE name = '` + table + `'`,
	} {
		var v sql.NullInt64
		if err := s.src.QueryRowContext(ctx, q).Scan(&v); err == nil || errors.Is(err, sql.ErrNoRows) {
			read = true
			best = max(best, v.Int64)
		}
	}
	if !read {
		var pages int64
		s.src.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages)
		best = 32 * pages
	}
	return best
}

func (s *salvager) stamps(ctx context.Context, st *rebuildState) error {
	found := map[string]string{}
	err := s.read(ctx, `SELECT key, value FROM meta WHERE key IN ('embedding_model', 'context_model')`, nil, func(r *sql.Rows) error {
		var k, v string
		if err := r.Scan(&k, &v); err != nil {
			s.unreadable++
			return nil
		}
		found[k] = v
		return nil
	})
	if err != nil && !isDamage(err) {
		return err
	}
	if err != nil {
		err = s.scan(ctx, `SELECT key, value FROM meta WHERE rowid BETWEEN ? AND ?`, s.maxID(ctx, "meta", "rowid"), func(r *sql.Rows) error {
			var k, v string
			if err := r.Scan(&k, &v); err != nil {
				s.unreadable++
				return nil
			}
			found[k] = v
			return nil
		})
		if err != nil {
			return err
		}
	}
	if v := found["embedding_model"]; v != "" {
		var stamp model.Stamp
		if json.Unmarshal([]byte(v), &stamp) == nil {
			st.Vectors = &stamp
		}
	}
	if v := found["context_model"]; v != "" {
		var cs model.ContextStamp
		if json.Unmarshal([]byte(v), &cs) == nil {
			st.Contexts = &cs
			return s.dst.SetContextStamp(ctx, cs)
		}
	}
	return nil
}

func (s *salvager) bookRows(ctx context.Context, _ *rebuildState) error {
	return s.scan(ctx, `SELECT id, hash, slug FROM book WHERE id BETWEEN ? AND ?`, s.maxID(ctx, "book", "id"), func(r *sql.Rows) error {
		var id int64
		var h, slug string
		if err := r.Scan(&id, &h, &slug); err != nil {
			s.unreadable++
			return nil
		}
		hash, err := library.ParseHash(h)
		if err != nil {
			s.unreadable++
			return nil
		}
		s.books[id] = hash
		return s.add(ctx, func(t *Tx) error {
			_, err := t.tx.ExecContext(ctx, `INSERT INTO salvage_book(hash, slug) VALUES (?, ?) ON CONFLICT(hash) DO NOTHING`, hash, slug)
			return err
		})
	})
}

func (s *salvager) exclusions(ctx context.Context, _ *rebuildState) error {
	return s.scan(ctx, `SELECT hash, title, path, excluded_at FROM exclusion WHERE rowid BETWEEN ? AND ?`, s.maxID(ctx, "exclusion", "rowid"), func(r *sql.Rows) error {
		var h, title, path string
		var at int64
		if err := r.Scan(&h, &title, &path, &at); err != nil {
			s.unreadable++
			return nil
		}
		if _, err := library.ParseHash(h); err != nil {
			s.unreadable++
			return nil
		}
		return s.add(ctx, func(t *Tx) error {
			_, err := t.tx.ExecContext(ctx, `INSERT INTO exclusion(hash, title, path, excluded_at) VALUES (?, ?, ?, ?) ON CONFLICT(hash) DO NOTHING`, h, title, path, at)
			return err
		})
	})
}

// chunks salvages the context of every chunk past the pending state (the
// context is final then, empty or not).
func (s *salvager) chunks(ctx context.Context, _ *rebuildState) error {
	return s.scan(ctx, `SELECT id, book_id, heading, text, context, state FROM chunk WHERE id BETWEEN ? AND ?`, s.maxID(ctx, "chunk", "id"), func(r *sql.Rows) error {
		var id, book int64
		var heading, text, context, state string
		if err := r.Scan(&id, &book, &heading, &text, &context, &state); err != nil {
			s.unreadable++
			return nil
		}
		h, ok := s.books[book]
		if !ok || library.ChunkState(state) == library.ChunkPending {
			return nil
		}
		key := chunkKey(h, heading, text)
		return s.add(ctx, func(t *Tx) error {
			_, err := t.tx.ExecContext(ctx, `INSERT INTO salvage_chunk(key, old_id, context) VALUES (?, ?, ?) ON CONFLICT(key) DO NOTHING`, key, id, context)
			return err
		})
	})
}

func (s *salvager) vectors(ctx context.Context, st *rebuildState) error {
	if st.Vectors == nil {
		return nil
	}
	return s.scan(ctx, `SELECT chunk_id, vec FROM embedding WHERE id BETWEEN ? AND ?`, s.maxID(ctx, "embedding", "id"), func(r *sql.Rows) error {
		var chunk int64
		var raw []byte
		if err := r.Scan(&chunk, &raw); err != nil {
			s.unreadable++
			return nil
		}
		vec, ok := storedVector(raw, st.Vectors.Dim)
		if !ok {
			s.unreadable++
			return nil
		}
		return s.add(ctx, func(t *Tx) error {
			_, err := t.tx.ExecContext(ctx, `UPDATE salvage_chunk SET vec = ? WHERE old_id = ?`, vec, chunk)
			return err
		})
	})
}

// sections salvages the written summaries, book by book, and chapter by
// chapter in a book whose sections cannot all be read. A section whose
// text is its chunks' (an index of this grimoire's) is keyed by the text
// they give back.
func (s *salvager) sections(ctx context.Context, _ *rebuildState) error {
	q := `SELECT title, text, summary, 0, 0, 0 FROM section WHERE book_id = ? AND summary IS NOT NULL`
	if s.hasColumn(ctx, "section", "from_chunks") {
		q = `SELECT title, text, summary, from_chunks = 1, first_chunk, chunk_count FROM section WHERE book_id = ? AND summary IS NOT NULL`
	}
	type found struct {
		title, summary string
		stored         storedSection
	}
	for id, h := range s.books {
		var sections []found
		row := func(r *sql.Rows) error {
			var f found
			if err := r.Scan(&f.title, &f.stored.text, &f.summary, &f.stored.fromChunks, &f.stored.first, &f.stored.size); err != nil {
				s.unreadable++
				return nil
			}
			sections = append(sections, f)
			return nil
		}
		if err := s.bookSections(ctx, q, id, row); err != nil {
			return err
		}
		for _, f := range sections {
			text, err := f.stored.read(ctx, s.src, id)
			if err != nil {
				if !isDamage(err) && !errors.Is(err, errBadJoin) {
					return err
				}
				s.unreadable++
				continue
			}
			key := sectionKey(h, f.title, text)
			err = s.add(ctx, func(t *Tx) error {
				_, err := t.tx.ExecContext(ctx, `INSERT INTO salvage_section(key, summary) VALUES (?, ?) ON CONFLICT(key) DO NOTHING`, key, f.summary)
				return err
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// bookSections runs q, the sections of book id, whole, else chapter by
// chapter when damage stops it.
func (s *salvager) bookSections(ctx context.Context, q string, id int64, row func(*sql.Rows) error) error {
	err := s.read(ctx, q, []any{id}, row)
	if err == nil || !isDamage(err) {
		return err
	}
	var chapters []int
	err = s.read(ctx, `SELECT idx FROM chapter WHERE book_id = ?`, []any{id}, func(r *sql.Rows) error {
		var c int
		if err := r.Scan(&c); err != nil {
			s.unreadable++
			return nil
		}
		chapters = append(chapters, c)
		return nil
	})
	if err != nil {
		s.unreadable++
		return nil
	}
	for _, c := range chapters {
		if err := s.read(ctx, q+` AND chapter_idx = ?`, []any{id, c}, row); err != nil {
			if !isDamage(err) {
				return err
			}
			s.unreadable++
		}
	}
	return nil
}

// hasColumn reports whether the old index's table has the column: an
// index of an older grimoire may not.
func (s *salvager) hasColumn(ctx context.Context, table, column string) bool {
	var n int
	err := s.src.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info(?) WHERE name = ?`, table, column).Scan(&n)
	return err == nil && n > 0
}

// ocrPages carries over the text OCR read on scanned pages, so that the
// rebuild's sync never has tesseract read a page again: all of it, else
// book by book when the table is damaged. An index from before OCR has
// none.
func (s *salvager) ocrPages(ctx context.Context, _ *rebuildState) error {
	var n int
	if err := s.src.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'ocr_page'`).Scan(&n); err != nil || n == 0 {
		if err != nil && !isDamage(err) {
			return err
		}
		return nil
	}
	const q = `SELECT hash, page, text, words, confidence FROM ocr_page`
	row := func(r *sql.Rows) error {
		var h string
		var p OCRPage
		if err := r.Scan(&h, &p.Page, &p.Text, &p.Words, &p.Confidence); err != nil {
			s.unreadable++
			return nil
		}
		hash, err := library.ParseHash(h)
		if err != nil {
			s.unreadable++
			return nil
		}
		return s.add(ctx, func(t *Tx) error {
			_, err := t.tx.ExecContext(ctx, `INSERT INTO ocr_page(hash, page, text, words, confidence) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
				hash, p.Page, p.Text, p.Words, p.Confidence)
			if err == nil {
				_, err = t.tx.ExecContext(ctx, `INSERT INTO salvage_ocr_page(hash, page) VALUES (?, ?) ON CONFLICT DO NOTHING`, hash, p.Page)
			}
			return err
		})
	}
	err := s.read(ctx, q, nil, row)
	var we writeError
	if err == nil || errors.As(err, &we) || !isDamage(err) {
		return err
	}
	for _, h := range s.books {
		if err := s.read(ctx, q+` WHERE hash = ?`, []any{h}, row); err != nil {
			if errors.As(err, &we) || !isDamage(err) {
				return err
			}
			s.unreadable++
		}
	}
	return nil
}

// Salvaged fills in, from a rebuild's salvage, the context of each chunk
// of the book with content hash book that the old index held, marking it
// contextualized, and returns the old vectors of those chunks when they
// were made by the model stamp (nil entries elsewhere; nil when none).
// Without a salvage it does nothing.
func (w *Writer) Salvaged(ctx context.Context, book library.Hash, chunks []library.Chunk, stamp model.Stamp) ([][]float32, error) {
	if w.salvage == nil {
		return nil, nil
	}
	useVecs := w.salvage.Vectors != nil && *w.salvage.Vectors == stamp
	stmt, err := w.db.PrepareContext(ctx, `SELECT context, vec FROM salvage_chunk WHERE key = ?`)
	if err != nil {
		return nil, fmt.Errorf("read the salvage: %w", err)
	}
	defer stmt.Close()
	var vecs [][]float32
	for i := range chunks {
		var context string
		var vec []byte
		err := stmt.QueryRowContext(ctx, chunkKey(book, chunks[i].Heading, chunks[i].Text)).Scan(&context, &vec)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the salvage: %w", err)
		}
		chunks[i].Context, chunks[i].State = context, library.ChunkContextualized
		if !useVecs {
			continue
		}
		// A rebuild begun by a grimoire before schema 22 salvaged
		// float32s.
		if v, ok := storedVector(vec, stamp.Dim); ok {
			if vecs == nil {
				vecs = make([][]float32, len(chunks))
			}
			vecs[i] = vec8.Floats(v)
		}
	}
	return vecs, nil
}

// salvagedSummary returns the summary the old index held for a section of
// the book id, nil when none.
func (t *Tx) salvagedSummary(ctx context.Context, book library.Hash, title, text string) (any, error) {
	var summary string
	err := t.tx.QueryRowContext(ctx, `SELECT summary FROM salvage_section WHERE key = ?`, sectionKey(book, title, text)).Scan(&summary)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return summary, err
}

// salvagedSlug returns the slug the book with content hash book had in the
// old index, when no other book has taken it; "" otherwise.
func (t *Tx) salvagedSlug(ctx context.Context, book library.Hash, self int64) (string, error) {
	var slug string
	err := t.tx.QueryRowContext(ctx, `
SELECT s.slug FROM salvage_book s
WHERE s.hash = ? AND NOT EXISTS (SELECT 1 FROM book b WHERE b.slug = s.slug AND b.id != ?)`, book, self).Scan(&slug)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return slug, err
}

func (t *Tx) bookHash(ctx context.Context, id int64) (library.Hash, error) {
	var h library.Hash
	err := t.tx.QueryRowContext(ctx, `SELECT hash FROM book WHERE id = ?`, id).Scan(&h)
	return h, err
}

// reuseCounts counts the chunks and sections of the new index that took
// their context, vector or summary from the salvage, by the rules ingest
// follows (Salvaged, StoreParsed).
func (w *Writer) reuseCounts(ctx context.Context) (RebuildReport, error) {
	var rep RebuildReport
	if err := w.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM book), (SELECT count(*) FROM chunk), (SELECT count(*) FROM exclusion)`).
		Scan(&rep.Books, &rep.Chunks, &rep.Exclusions); err != nil {
		return rep, fmt.Errorf("count the rebuilt index: %w", err)
	}
	cur, ok, err := w.Stamp(ctx)
	if err != nil {
		return rep, err
	}
	useVecs := ok && w.salvage != nil && w.salvage.Vectors != nil && *w.salvage.Vectors == cur
	type kept struct{ vec bool }
	salvaged := map[string]kept{}
	err = readAll(ctx, w.db, `SELECT key, vec IS NOT NULL FROM salvage_chunk`, func(r *sql.Rows) error {
		var key []byte
		var vec bool
		if err := r.Scan(&key, &vec); err != nil {
			return err
		}
		salvaged[string(key)] = kept{vec}
		return nil
	})
	if err != nil {
		return rep, err
	}
	err = readAll(ctx, w.db, `SELECT b.hash, k.heading, k.text FROM chunk k JOIN book b ON b.id = k.book_id`, func(r *sql.Rows) error {
		var h library.Hash
		var heading, text string
		if err := r.Scan(&h, &heading, &text); err != nil {
			return err
		}
		if s, ok := salvaged[string(chunkKey(h, heading, text))]; ok {
			rep.ContextsReused++
			if s.vec && useVecs {
				rep.VectorsReused++
			}
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	summaries := map[string]bool{}
	err = readAll(ctx, w.db, `SELECT key FROM salvage_section`, func(r *sql.Rows) error {
		var key []byte
		if err := r.Scan(&key); err != nil {
			return err
		}
		summaries[string(key)] = true
		return nil
	})
	if err != nil {
		return rep, err
	}
	type fromChunks struct {
		book   int64
		hash   library.Hash
		title  string
		stored storedSection
	}
	var sections []fromChunks
	err = readAll(ctx, w.db, `
SELECT b.id, b.hash, s.title, s.text, s.from_chunks = 1, s.first_chunk, s.chunk_count
FROM section s JOIN book b ON b.id = s.book_id WHERE s.summary IS NOT NULL`, func(r *sql.Rows) error {
		var s fromChunks
		if err := r.Scan(&s.book, &s.hash, &s.title, &s.stored.text, &s.stored.fromChunks, &s.stored.first, &s.stored.size); err != nil {
			return err
		}
		switch {
		case s.stored.fromChunks:
			sections = append(sections, s)
		case summaries[string(sectionKey(s.hash, s.title, s.stored.text))]:
			rep.SummariesReused++
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	// Their chunks are read once the rows are done: the writer has one
	// connection.
	for _, s := range sections {
		text, err := s.stored.read(ctx, w.db, s.book)
		if err != nil {
			return rep, err
		}
		if summaries[string(sectionKey(s.hash, s.title, text))] {
			rep.SummariesReused++
		}
	}
	err = w.db.QueryRowContext(ctx, `SELECT count(*) FROM salvage_ocr_page s
WHERE EXISTS (SELECT 1 FROM book b WHERE b.hash = s.hash)`).Scan(&rep.OCRPagesReused)
	return rep, err
}

// readAll runs query, handing each row to row.
func readAll(ctx context.Context, db querier, query string, row func(*sql.Rows) error, args ...any) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Carried fills in, from the book replaces (the content the file held
// before, still answering searches while this one is ingested), the
// context of each chunk that came out the same (heading and text), marking
// it contextualized, and returns those chunks' vectors when the index's
// vectors are of the model stamp (nil entries elsewhere; nil when none):
// an edit to a book, a highlight made in Zotero, asks the models again only
// for the passages it changed. replaces 0 does nothing.
func (w *Writer) Carried(ctx context.Context, replaces int64, chunks []library.Chunk, stamp model.Stamp) ([][]float32, error) {
	if replaces == 0 {
		return nil, nil
	}
	have, ok, err := readStamp(ctx, w.db, stampKey)
	if err != nil {
		return nil, fmt.Errorf("read the embedding stamp: %w", err)
	}
	useVecs := ok && have == stamp
	type before struct {
		context string
		done    bool
		vec     []byte
	}
	old := make(map[[2]string]before)
	rows, err := w.db.QueryContext(ctx, `SELECT k.heading, k.text, k.context, k.state != 'pending', e.vec
FROM chunk k LEFT JOIN embedding e ON e.chunk_id = k.id WHERE k.book_id = ?`, replaces)
	if err != nil {
		return nil, fmt.Errorf("read the passages of the book replaced: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var heading, text string
		var b before
		if err := rows.Scan(&heading, &text, &b.context, &b.done, &b.vec); err != nil {
			return nil, fmt.Errorf("read the passages of the book replaced: %w", err)
		}
		old[[2]string{heading, text}] = b
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the passages of the book replaced: %w", err)
	}
	var vecs [][]float32
	for i := range chunks {
		b, ok := old[[2]string{chunks[i].Heading, chunks[i].Text}]
		if !ok || !b.done {
			continue
		}
		if chunks[i].State == library.ChunkPending {
			chunks[i].Context, chunks[i].State = b.context, library.ChunkContextualized
		}
		if !useVecs || b.vec == nil {
			continue
		}
		if v, ok := storedVector(b.vec, stamp.Dim); ok {
			if vecs == nil {
				vecs = make([][]float32, len(chunks))
			}
			vecs[i] = vec8.Floats(v)
		}
	}
	return vecs, nil
}
