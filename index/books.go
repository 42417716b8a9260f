package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index/fulltext"
	"github.com/grimoire-search/grimoire/internal/passage"
	"github.com/grimoire-search/grimoire/internal/suggest"
	"github.com/grimoire-search/grimoire/internal/vec8"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model"
)

// BooksToIngest returns the books that are pending or parsed, oldest first,
// each with the paths that hold it; books known to need OCR come after the
// others, which they would hold up for long.
func (d *DB) BooksToIngest(ctx context.Context) ([]library.Book, error) {
	return d.queryBooks(ctx, `WHERE b.status IN ('pending', 'parsed')
ORDER BY EXISTS (SELECT 1 FROM ocr_book o WHERE o.hash = b.hash), b.id`)
}

// BookMeta is what parsing learns about a book.
type BookMeta struct {
	Title      string
	Authors    []string
	Language   string
	SourceType string
	PageCount  int
	// PageLabels[i] is the printed name of page i+1; empty when the book
	// has none but the page numbers.
	PageLabels []string
}

// StoreParsed replaces the structure of book id with the given chapters
// (with their sections and section text) and chunks, in one transaction, and
// moves the book to Parsed. Storing the same book twice never duplicates rows.
func (w *Writer) StoreParsed(ctx context.Context, id int64, meta BookMeta, chapters []library.Chapter, chunks []library.Chunk) error {
	return w.Update(ctx, func(t *Tx) error {
		_, err := t.StoreParsed(ctx, id, meta, chapters, chunks)
		return err
	})
}

// StoreParsed is Writer.StoreParsed inside a transaction; it returns the ids
// of the stored chunks, in order.
func (t *Tx) StoreParsed(ctx context.Context, id int64, meta BookMeta, chapters []library.Chapter, chunks []library.Chunk) ([]int64, error) {
	ids := make([]int64, 0, len(chunks))
	res, err := t.tx.ExecContext(ctx, `DELETE FROM chunk WHERE book_id = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("clear book %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		if err := t.bumpVectorGeneration(ctx); err != nil {
			return nil, fmt.Errorf("clear book %d: %w", id, err)
		}
	}
	for _, q := range []string{
		`DELETE FROM section WHERE book_id = ?`,
		`DELETE FROM chapter WHERE book_id = ?`,
	} {
		if _, err := t.tx.ExecContext(ctx, q, id); err != nil {
			return nil, fmt.Errorf("clear book %d: %w", id, err)
		}
	}
	insCh, err := t.tx.PrepareContext(ctx, `INSERT INTO chapter(book_id, idx, title, anchor, page_start, page_end) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer insCh.Close()
	insSec, err := t.tx.PrepareContext(ctx, `INSERT INTO section(book_id, chapter_idx, idx, title, synthesized, anchor, page_start, page_end, tokens, first_chunk, chunk_count, text, from_chunks, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer insSec.Close()
	var hash library.Hash
	if t.salvage {
		if hash, err = t.bookHash(ctx, id); err != nil {
			return nil, fmt.Errorf("store book %d: %w", id, err)
		}
	}
	// A section's text is stored once: in its chunks where they give it
	// back (sectiontext.go), else in its row.
	var sections []library.Section
	for _, c := range chapters {
		sections = append(sections, c.Sections...)
	}
	texts, fromChunks, joins := layOutSections(sections, chunks)
	n := 0
	for _, c := range chapters {
		if _, err := insCh.ExecContext(ctx, id, c.Index, c.Title, c.Anchor, c.PageStart, c.PageEnd); err != nil {
			return nil, fmt.Errorf("store chapter %d: %w", c.Index, err)
		}
		for _, s := range c.Sections {
			text, inChunks := texts[n], fromChunks[n]
			n++
			var summary any // NULL: not written yet
			if t.salvage {
				if summary, err = t.salvagedSummary(ctx, hash, s.Title, s.Text); err != nil {
					return nil, fmt.Errorf("store section %d.%d: %w", c.Index, s.Index, err)
				}
			}
			if _, err := insSec.ExecContext(ctx, id, c.Index, s.Index, s.Title, s.Synthesized, s.Anchor, s.PageStart, s.PageEnd, s.Tokens, s.FirstChunk, s.ChunkCount, text, whereText(inChunks), summary); err != nil {
				return nil, fmt.Errorf("store section %d.%d: %w", c.Index, s.Index, err)
			}
		}
	}
	insChunk, err := t.tx.PrepareContext(ctx, `INSERT INTO chunk(book_id, idx, chapter_idx, section_idx, heading, context, text, anchor, page_start, page_end, tokens, state, role, overlap, gap, length) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, err
	}
	defer insChunk.Close()
	insSig, err := t.tx.PrepareContext(ctx, `INSERT INTO chunk_signature(chunk_id, signature) VALUES (?, ?)`)
	if err != nil {
		return nil, err
	}
	defer insSig.Close()
	for i, k := range chunks {
		state := k.State
		if state == "" {
			state = library.ChunkPending
		}
		res, err := insChunk.ExecContext(ctx, id, k.Index, k.ChapterIndex, k.SectionIndex, k.Heading, k.Context, k.Text, k.Anchor, k.PageStart, k.PageEnd, k.Tokens, state,
			int(provisionalRole), joins[i].overlap, joins[i].gap, fulltext.Length(k.Heading, k.Context, k.Text))
		if err != nil {
			return nil, fmt.Errorf("store chunk %d: %w", k.Index, err)
		}
		cid, err := res.LastInsertId()
		if err != nil {
			return nil, fmt.Errorf("store chunk %d: %w", k.Index, err)
		}
		if _, err := insSig.ExecContext(ctx, cid, passage.EncodeSignature([]byte{}, passage.SignatureOf(k.Text))); err != nil {
			return nil, fmt.Errorf("store chunk %d: %w", k.Index, err)
		}
		ids = append(ids, cid)
	}
	// One statement for the whole book (migration 17 says why).
	if _, err := t.tx.ExecContext(ctx, `INSERT INTO chunk_fts(rowid, heading, context, text) SELECT id, heading, context, text FROM chunk WHERE book_id = ? ORDER BY id`, id); err != nil {
		return nil, fmt.Errorf("index the text of book %d: %w", id, err)
	}
	if err := t.addCommonTerms(ctx, chunks); err != nil {
		return nil, fmt.Errorf("index the text of book %d: %w", id, err)
	}
	authors, _ := json.Marshal(nonNil(meta.Authors))
	labels, _ := json.Marshal(nonNil(meta.PageLabels))
	slug := ""
	if t.salvage {
		// A rebuilt book keeps the name it had, if it is still free.
		if slug, err = t.salvagedSlug(ctx, hash, id); err != nil {
			return nil, err
		}
	}
	if slug == "" {
		if slug, err = t.uniqueSlug(ctx, Slugify(meta.Title), id); err != nil {
			return nil, err
		}
	}
	_, err = t.tx.ExecContext(ctx, `
UPDATE book SET title = ?, authors = ?, author = ?, language = ?, source_type = ?, page_count = ?,
	page_labels = ?, slug = ?, status = 'parsed', error = '', attempts = attempts + 1
WHERE id = ?`,
		meta.Title, string(authors), library.JoinAuthors(meta.Authors), meta.Language, meta.SourceType, meta.PageCount, string(labels), slug, id)
	if err != nil {
		return nil, fmt.Errorf("update book %d: %w", id, err)
	}
	if err := t.classifyBook(ctx, id); err != nil {
		return nil, err
	}
	return ids, nil
}

// MarkFailed records that book id could not be ingested. A book that failed
// stops replacing its older version, which is pruned like any other book no
// file holds.
func (w *Writer) MarkFailed(ctx context.Context, id int64, reason string) (pruned int, err error) {
	err = w.Update(ctx, func(t *Tx) error {
		if _, err := t.tx.ExecContext(ctx, `
UPDATE book SET status = 'failed', error = ?, attempts = attempts + 1 WHERE id = ?`, reason, id); err != nil {
			return fmt.Errorf("mark book %d failed: %w", id, err)
		}
		pruned, err = t.settle(ctx, id)
		return err
	})
	return pruned, err
}

// ChunksToEmbed returns up to limit chunks of book id that are not embedded
// yet, in book order.
func (d *DB) ChunksToEmbed(ctx context.Context, id int64, limit int) ([]library.Chunk, error) {
	return d.ChunksToEmbedAfter(ctx, id, -1, limit)
}

const chunksToEmbedSQL = `
SELECT id, idx, chapter_idx, section_idx, heading, context, text, state FROM chunk
WHERE book_id = ? AND idx > ? AND state != 'embedded' ORDER BY idx LIMIT ?`

// ChunksToEmbedAfter is ChunksToEmbed for the chunks whose index is above
// after. A caller going through a book batch by batch passes the last
// index it was given: the search then starts there, where one from the
// book's start would pass over every chunk embedded so far, a cost that
// grows with the square of the book's chunks.
func (d *DB) ChunksToEmbedAfter(ctx context.Context, id int64, after, limit int) ([]library.Chunk, error) {
	rows, err := d.db.QueryContext(ctx, chunksToEmbedSQL, id, after, limit)
	if err != nil {
		return nil, fmt.Errorf("chunks of book %d: %w", id, err)
	}
	defer rows.Close()
	var out []library.Chunk
	for rows.Next() {
		k := library.Chunk{BookID: id}
		if err := rows.Scan(&k.ID, &k.Index, &k.ChapterIndex, &k.SectionIndex, &k.Heading, &k.Context, &k.Text, &k.State); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// StoreEmbeddings stores one vector per chunk id, at the precision search
// scans it at (internal/vec8), and marks those chunks embedded, in one
// transaction.
func (w *Writer) StoreEmbeddings(ctx context.Context, ids []int64, vecs [][]float32) error {
	return w.Update(ctx, func(t *Tx) error { return t.StoreEmbeddings(ctx, ids, vecs) })
}

// StoreEmbeddings is Writer.StoreEmbeddings inside a transaction.
func (t *Tx) StoreEmbeddings(ctx context.Context, ids []int64, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("store embeddings: %d ids, %d vectors", len(ids), len(vecs))
	}
	ins, err := t.tx.PrepareContext(ctx, `
INSERT INTO embedding(chunk_id, vec) VALUES (?, ?)
ON CONFLICT(chunk_id) DO UPDATE SET vec = excluded.vec`)
	if err != nil {
		return err
	}
	defer ins.Close()
	upd, err := t.tx.PrepareContext(ctx, `UPDATE chunk SET state = 'embedded' WHERE id = ?`)
	if err != nil {
		return err
	}
	defer upd.Close()
	var buf []byte
	for i, id := range ids {
		buf = vec8.Append(buf[:0], vecs[i])
		if _, err := ins.ExecContext(ctx, id, buf); err != nil {
			return fmt.Errorf("store embedding of chunk %d: %w", id, err)
		}
		if _, err := upd.ExecContext(ctx, id); err != nil {
			return fmt.Errorf("mark chunk %d embedded: %w", id, err)
		}
	}
	return nil
}

// FinishBook moves book id to Ready once every chunk is embedded, prunes the
// version it replaces, and hands that version's slug on, so that a book keeps
// its name across edits. It returns the number of books pruned.
func (w *Writer) FinishBook(ctx context.Context, id int64) (pruned int, err error) {
	err = w.Update(ctx, func(t *Tx) error {
		pruned, err = t.FinishBook(ctx, id)
		return err
	})
	return pruned, err
}

// FinishBook is Writer.FinishBook inside a transaction.
func (t *Tx) FinishBook(ctx context.Context, id int64) (pruned int, err error) {
	var left int
	if err := t.tx.QueryRowContext(ctx, `SELECT count(*) FROM chunk WHERE book_id = ? AND state != 'embedded'`, id).Scan(&left); err != nil {
		return 0, fmt.Errorf("finish book %d: %w", id, err)
	}
	if left > 0 {
		return 0, fmt.Errorf("finish book %d: %d chunks are not embedded yet", id, left)
	}
	res, err := t.tx.ExecContext(ctx, `UPDATE book SET status = 'ready', error = '', ready_at = ? WHERE id = ?`, t.now, id)
	if err != nil {
		return 0, fmt.Errorf("finish book %d: %w", id, err)
	}
	// A book pruned while it was ingested (its file edited or removed)
	// has no chunks left to wait for; postings written for it would
	// outlive it, since the triggers that drop them have fired already.
	if n, err := res.RowsAffected(); err != nil {
		return 0, fmt.Errorf("finish book %d: %w", id, err)
	} else if n == 0 {
		return 0, fault.Errorf(fault.NotFound, "finish book %d: it is no longer in the index", id)
	}
	if err := t.writePostings(ctx, id); err != nil {
		return 0, err
	}
	return t.settle(ctx, id)
}

// settle runs once book id has left the pipeline (ready or failed): the
// version it replaced is pruned when no file holds it any more, and its slug
// passes to id.
func (t *Tx) settle(ctx context.Context, id int64) (int, error) {
	var prevID sql.NullInt64
	var prevSlug sql.NullString
	err := t.tx.QueryRowContext(ctx, `
SELECT p.id, p.slug FROM book b JOIN book p ON p.id = b.replaces WHERE b.id = ?`, id).Scan(&prevID, &prevSlug)
	if err != nil && err != sql.ErrNoRows {
		return 0, fmt.Errorf("settle book %d: %w", id, err)
	}
	if _, err := t.tx.ExecContext(ctx, `UPDATE book SET replaces = NULL WHERE id = ?`, id); err != nil {
		return 0, fmt.Errorf("settle book %d: %w", id, err)
	}
	if !prevID.Valid {
		return 0, nil
	}
	gone, err := t.prune(ctx, `AND b.id = ?`, prevID.Int64)
	pruned := len(gone)
	if err != nil || pruned == 0 {
		return pruned, err
	}
	if _, err := t.tx.ExecContext(ctx, `UPDATE book SET slug = ? WHERE id = ?`, prevSlug.String, id); err != nil {
		return pruned, fmt.Errorf("settle book %d: %w", id, err)
	}
	return pruned, nil
}

// DeleteBook removes the book slug names (its slug, or a prefix of it only
// it has; see ResolveSlug) and excludes its content, so that no later sync
// brings it back while a file still holds it.
func (w *Writer) DeleteBook(ctx context.Context, slug string) (library.Book, error) {
	var b library.Book
	err := w.Update(ctx, func(t *Tx) error {
		var err error
		if b, err = bookBySlug(ctx, t.tx, slug); err != nil {
			return err
		}
		path := b.OriginPath
		if len(b.Paths) > 0 {
			path = b.Paths[0]
		}
		if _, err := t.tx.ExecContext(ctx, `
INSERT INTO exclusion(hash, slug, title, path, excluded_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT(hash) DO NOTHING`, b.Hash, b.Slug, b.Title, path, t.now); err != nil {
			return fmt.Errorf("exclude %s: %w", slug, err)
		}
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM book WHERE id = ?`, b.ID); err != nil {
			return fmt.Errorf("delete %s: %w", slug, err)
		}
		return t.bumpVectorGeneration(ctx)
	})
	return b, err
}

// Exclusion is a content the user deleted; syncs skip files that hold it.
type Exclusion struct {
	Hash library.Hash `json:"hash"`
	// Slug is the name the book had when it was deleted; empty for
	// exclusions recorded before slugs were kept.
	Slug       string    `json:"slug"`
	Title      string    `json:"title"`
	Path       string    `json:"path"`
	ExcludedAt time.Time `json:"excluded_at"`
}

// Exclusions lists the excluded contents, newest first.
func (d *DB) Exclusions(ctx context.Context) ([]Exclusion, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT hash, slug, title, path, excluded_at FROM exclusion ORDER BY excluded_at DESC`)
	if err != nil {
		return nil, fmt.Errorf("list exclusions: %w", err)
	}
	defer rows.Close()
	var out []Exclusion
	for rows.Next() {
		var e Exclusion
		var at int64
		if err := rows.Scan(&e.Hash, &e.Slug, &e.Title, &e.Path, &at); err != nil {
			return nil, err
		}
		e.ExcludedAt = time.Unix(0, at).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// LiftExclusion removes the exclusion whose slug, hash, hash prefix (at
// least 6 hex digits), path or title matches key: the slug `delete` took
// lifts what it excluded. The next sync ingests the content again if a
// file still holds it.
func (w *Writer) LiftExclusion(ctx context.Context, key string) (Exclusion, error) {
	ex, err := w.Exclusions(ctx)
	if err != nil {
		return Exclusion{}, err
	}
	var found []Exclusion
	hexKey := strings.TrimPrefix(strings.ToLower(key), library.HashPrefix)
	for _, e := range ex {
		hs := strings.TrimPrefix(e.Hash.String(), library.HashPrefix)
		if (len(hexKey) >= 6 && strings.HasPrefix(hs, hexKey)) || e.Path == key || strings.EqualFold(e.Title, key) || e.hasSlug(key) {
			found = append(found, e)
		}
	}
	if len(found) == 0 {
		if found, err = exclusionsByPrefix(ex, key); err != nil {
			return Exclusion{}, err
		}
	}
	switch len(found) {
	case 1:
	default:
		return Exclusion{}, (&fault.Error{Code: fault.Invalid, Msg: fmt.Sprintf("%d exclusions match %q", len(found), key)}).
			WithHint("give more of the hash")
	}
	err = w.Update(ctx, func(t *Tx) error {
		_, err := t.tx.ExecContext(ctx, `DELETE FROM exclusion WHERE hash = ?`, found[0].Hash)
		return err
	})
	return found[0], err
}

// exclusionsByPrefix finds the exclusions key names by a prefix of their
// slug, as ResolveSlug does for books.
func exclusionsByPrefix(ex []Exclusion, key string) ([]Exclusion, error) {
	k := strings.ToLower(strings.TrimSpace(key))
	var slugs []string
	for _, e := range ex {
		slugs = append(slugs, e.slug())
	}
	match, candidates := matchPrefix(k, slugs)
	switch {
	case k == "" || match == "" && len(candidates) == 0:
		return nil, fault.Errorf(fault.NotFound, "no exclusion matches %q%s", key, didYouMean(suggest.Closest(k, slugs, maxSuggestions))).
			WithHint("`grimoire exclusions` lists them")
	case match == "":
		return nil, ambiguous(key, "exclusions", candidates).WithHint("give more of the slug")
	}
	var found []Exclusion
	for _, e := range ex {
		if e.hasSlug(match) {
			found = append(found, e)
		}
	}
	return found, nil
}

// slug is the name e is known by: the slug its book had, else its
// title's (see hasSlug).
func (e Exclusion) slug() string {
	if e.Slug != "" || e.Title == "" {
		return e.Slug
	}
	return Slugify(e.Title)
}

// hasSlug reports whether key names the book e excluded. An exclusion
// recorded before slugs were kept is named by its title's slug, which is
// the book's slug unless another book had taken it.
func (e Exclusion) hasSlug(key string) bool {
	s := e.slug()
	return s != "" && s == key
}

const stampKey = "embedding_model"

// model.Stamp returns the index's embedding stamp; ok is false before the first
// embedding was stored.
func (d *DB) Stamp(ctx context.Context) (s model.Stamp, ok bool, err error) {
	if s, ok, err = readStamp(ctx, d.db, stampKey); err != nil {
		return s, false, fmt.Errorf("read embedding stamp: %w", err)
	}
	return s, ok, nil
}

// readStamp reads the stamp stored under key in meta; ok is false when
// there is none.
func readStamp(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, key string) (s model.Stamp, ok bool, err error) {
	var v string
	err = q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if err == sql.ErrNoRows || err == nil && v == "" {
		return s, false, nil
	}
	if err != nil {
		return s, false, err
	}
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return s, false, err
	}
	return s, true, nil
}

// CheckStamp compares the configured model with the index's stamp. An index
// without a stamp gets this one (writers only); a different model is refused.
func (d *DB) CheckStamp(ctx context.Context, want model.Stamp) error {
	have, ok, err := d.Stamp(ctx)
	if err != nil {
		return err
	}
	if ok {
		if have != want {
			return (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("index %s holds vectors of %s, but the configuration asks for %s", d.path, have, want)}).
				WithHint("run `grimoire reindex --embeddings` to re-embed the library with the new model, or set [embedding] back")
		}
		return nil
	}
	return nil
}

// SetStamp records the model when the index has none yet.
func (w *Writer) SetStamp(ctx context.Context, s model.Stamp) error {
	if err := w.CheckStamp(ctx, s); err != nil {
		return err
	}
	b, _ := json.Marshal(s)
	_, err := w.exec(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING`, stampKey, string(b))
	if err != nil {
		return fmt.Errorf("record embedding stamp: %w", err)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// RetryFailed puts failed books back in the queue.
func (w *Writer) RetryFailed(ctx context.Context) error {
	if _, err := w.exec(ctx, `UPDATE book SET status = 'pending' WHERE status = 'failed'`); err != nil {
		return fmt.Errorf("retry failed books: %w", err)
	}
	return nil
}

// RebuildFTS rebuilds the full-text index from the stored chunks: FTS5's,
// then the postings, a book a transaction.
func (w *Writer) RebuildFTS(ctx context.Context) error {
	if _, err := w.exec(ctx, `INSERT INTO chunk_fts(chunk_fts) VALUES ('rebuild')`); err != nil {
		return fmt.Errorf("rebuild full-text index: %w", err)
	}
	if err := w.DropPostings(ctx); err != nil {
		return err
	}
	_, err := w.WritePostings(ctx)
	return err
}

// Check runs SQLite's and FTS5's integrity checks and returns what they
// report; nil means the index is sound.
func (d *DB) Check(ctx context.Context) error {
	var res string
	if err := d.db.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("integrity check: %s", res)
	}
	if _, err := d.db.ExecContext(ctx, `INSERT INTO chunk_fts(chunk_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		return fmt.Errorf("full-text integrity check: %w", err)
	}
	if err := d.checkCommonTerms(ctx); err != nil {
		return err
	}
	if err := d.checkPostings(ctx); err != nil {
		return err
	}
	if err := d.checkLengths(ctx); err != nil {
		return err
	}
	if err := d.checkRoles(ctx); err != nil {
		return err
	}
	if err := d.checkSections(ctx); err != nil {
		return err
	}
	if err := d.checkVectors(ctx); err != nil {
		return err
	}
	return d.checkSketches(ctx)
}

// SetCatalog records what a catalogue says of the book with content h,
// and lets its title, authors and language stand for the book's own where
// it gives them. It reports whether the book exists and changed.
func (t *Tx) SetCatalog(ctx context.Context, h library.Hash, e library.CatalogEntry) (bool, error) {
	tags, _ := json.Marshal(nonNil(e.Tags))
	ids := []byte("{}")
	if len(e.Identifiers) > 0 {
		ids, _ = json.Marshal(e.Identifiers)
	}
	var authors []byte
	if len(e.Authors) > 0 {
		authors, _ = json.Marshal(e.Authors)
	}
	// Only a book whose row differs is written, so that a catalogue read
	// again unchanged writes nothing.
	collections, _ := json.Marshal(nonNil(e.Collections))
	res, err := t.tx.ExecContext(ctx, `
UPDATE book SET catalog_path = ?1, series = ?2, series_index = ?3, tags = ?4, publisher = ?5, published = ?6, identifiers = ?7,
	title = CASE WHEN ?8 != '' THEN ?8 ELSE title END,
	authors = CASE WHEN ?9 != '' THEN ?9 ELSE authors END,
	author = CASE WHEN ?9 != '' THEN ?10 ELSE author END,
	language = CASE WHEN ?11 != '' THEN ?11 ELSE language END,
	collections = ?13, item_type = ?14, abstract = ?15, publication = ?16
WHERE hash = ?12 AND NOT (catalog_path = ?1 AND series = ?2 AND series_index = ?3 AND tags = ?4 AND publisher = ?5
	AND published = ?6 AND identifiers = ?7 AND (?8 = '' OR title = ?8) AND (?9 = '' OR authors = ?9) AND (?11 = '' OR language = ?11)
	AND collections = ?13 AND item_type = ?14 AND abstract = ?15 AND publication = ?16)`,
		e.Path, e.Series, e.SeriesIndex, string(tags), e.Publisher, e.Published, string(ids),
		e.Title, string(authors), library.JoinAuthors(e.Authors), e.Language, h,
		string(collections), e.ItemType, e.Abstract, e.Publication)
	if err != nil {
		return false, fmt.Errorf("store the catalogue of book %s: %w", h, err)
	}
	n, _ := res.RowsAffected()
	if n > 0 && (e.Title != "" || len(e.Authors) > 0) {
		// A passage that repeats its book's title or authors may say
		// nothing of its own under the catalogue's.
		var id int64
		if err := t.tx.QueryRowContext(ctx, `SELECT id FROM book WHERE hash = ?`, h).Scan(&id); err != nil {
			return false, fmt.Errorf("store the catalogue of book %s: %w", h, err)
		}
		if err := t.classifyBook(ctx, id); err != nil {
			return false, fmt.Errorf("store the catalogue of book %s: %w", h, err)
		}
	}
	return n > 0, nil
}
