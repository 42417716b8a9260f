package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/internal/passage"
	"github.com/grimoire-search/grimoire/internal/vec8"
	"github.com/grimoire-search/grimoire/library"
)

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

const bookColumns = `b.id, b.hash, b.slug, b.title, b.authors, b.page_labels, b.language, b.source_type, b.page_count,
	b.size, b.status, b.error, b.attempts, coalesce(b.replaces, 0), b.origin_path, b.added_at, b.ready_at,
	b.catalog_path, b.series, b.series_index, b.tags, b.publisher, b.published, b.identifiers,
	b.collections, b.item_type, b.publication, b.abstract,`

// bookCounts are the columns that count a book's chapters, sections and
// chunks; bookNoCounts stands for them where they are not wanted.
const (
	bookCounts = `
	(SELECT count(*) FROM chapter c WHERE c.book_id = b.id),
	(SELECT count(*) FROM section s WHERE s.book_id = b.id),
	(SELECT count(*) FROM chunk k WHERE k.book_id = b.id)`
	bookNoCounts = `0, 0, 0`
)

func (d *DB) queryBooks(ctx context.Context, where string, args ...any) ([]library.Book, error) {
	return queryBooksTx(ctx, d.db, where, args...)
}

func queryBooksTx(ctx context.Context, q querier, where string, args ...any) ([]library.Book, error) {
	return queryBooksWith(ctx, q, bookCounts, where, args...)
}

// bookScan returns where a row's bookColumns are scanned into b, and
// what sets b's fields from them once scanned.
func bookScan(b *library.Book) ([]any, func()) {
	var authors, labels, tags, ids, collections string
	var added, ready int64
	c := &b.Catalog
	dest := []any{&b.ID, &b.Hash, &b.Slug, &b.Title, &authors, &labels, &b.Language, &b.SourceType, &b.PageCount,
		&b.Size, &b.Status, &b.Error, &b.Attempts, &b.Replaces, &b.OriginPath, &added, &ready,
		&c.Path, &c.Series, &c.SeriesIndex, &tags, &c.Publisher, &c.Published, &ids,
		&collections, &c.ItemType, &c.Publication, &c.Abstract}
	return dest, func() {
		json.Unmarshal([]byte(authors), &b.Authors)
		json.Unmarshal([]byte(labels), &b.PageLabels)
		json.Unmarshal([]byte(tags), &c.Tags)
		json.Unmarshal([]byte(ids), &c.Identifiers)
		json.Unmarshal([]byte(collections), &c.Collections)
		b.AddedAt = time.Unix(0, added).UTC()
		if ready != 0 {
			b.ReadyAt = time.Unix(0, ready).UTC()
		}
	}
}

// queryBooksWith reads the books that where selects, with counts as the
// last three columns (bookCounts or bookNoCounts).
func queryBooksWith(ctx context.Context, q querier, counts, where string, args ...any) ([]library.Book, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+bookColumns+counts+` FROM book b `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("list books: %w", err)
	}
	var books []library.Book
	for rows.Next() {
		var b library.Book
		scan, done := bookScan(&b)
		if err := rows.Scan(append(scan, &b.Chapters, &b.Sections, &b.Chunks)...); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list books: %w", err)
		}
		done()
		books = append(books, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list books: %w", err)
	}
	if len(books) == 0 {
		return books, nil
	}
	// Paths: one query for all, rather than one per book.
	byHash := make(map[library.Hash][]int, len(books))
	for i, b := range books {
		byHash[b.Hash] = append(byHash[b.Hash], i)
	}
	pq, pargs := `SELECT hash, path FROM file ORDER BY path`, []any(nil)
	if len(byHash) <= 500 {
		pq = `SELECT hash, path FROM file WHERE hash IN (` + strings.TrimSuffix(strings.Repeat("?,", len(byHash)), ",") + `) ORDER BY path`
		for h := range byHash {
			pargs = append(pargs, h)
		}
	}
	prows, err := q.QueryContext(ctx, pq, pargs...)
	if err != nil {
		return nil, fmt.Errorf("list book paths: %w", err)
	}
	defer prows.Close()
	for prows.Next() {
		var h library.Hash
		var p string
		if err := prows.Scan(&h, &p); err != nil {
			return nil, fmt.Errorf("list book paths: %w", err)
		}
		for _, i := range byHash[h] {
			books[i].Paths = append(books[i].Paths, p)
		}
	}
	return books, prows.Err()
}

// BookFilter selects books. Zero fields select everything.
type BookFilter struct {
	// Slug selects one book.
	Slug string
	// Author matches any part of the author names, case-insensitively.
	Author string
	// Type is a source type: "markdown", "text", "pdf", "epub".
	Type string
	// Path selects the books with a file that is this absolute path or
	// lies in this folder.
	Path string
	// Tag selects the books with this tag, ignoring case.
	Tag string
	// Series matches any part of the series name, case-insensitively.
	Series string
	// Collection selects the books a Zotero collection holds, or one of
	// its sub-collections: a collection path ("Thesis/Methods"), or the
	// path's last names ("Methods"), ignoring case.
	Collection string
	// ItemType selects the books of this Zotero item type, ignoring case.
	ItemType string
	// Query matches any part of the title or authors, case-insensitively.
	Query string
	// ReadyOnly leaves out books that are not ready.
	ReadyOnly bool
}

func (f BookFilter) where() (string, []any) {
	var conds []string
	var args []any
	if f.Slug != "" {
		conds = append(conds, "b.slug = ?")
		args = append(args, f.Slug)
	}
	if f.Author != "" {
		conds = append(conds, "b.author LIKE ? ESCAPE '\\'")
		args = append(args, "%"+likeEscape(f.Author)+"%")
	}
	if f.Type != "" {
		conds = append(conds, "b.source_type = ?")
		args = append(args, strings.ToLower(f.Type))
	}
	if f.Path != "" {
		// The folder's own tree: "/lib/a" holds "/lib/a/x.md" and not
		// "/lib/ab.md" (subtree.Contains, in SQL).
		folder := f.Path
		if !strings.HasSuffix(folder, string(filepath.Separator)) {
			folder += string(filepath.Separator)
		}
		// A byte range, not LIKE, which would ignore case.
		end := folder[:len(folder)-1] + string(folder[len(folder)-1]+1)
		conds = append(conds, "EXISTS (SELECT 1 FROM file f WHERE f.hash = b.hash AND (f.path = ? OR (f.path >= ? AND f.path < ?)))")
		args = append(args, f.Path, folder, end)
	}
	if f.Tag != "" {
		conds = append(conds, "EXISTS (SELECT 1 FROM json_each(b.tags) t WHERE t.value = ? COLLATE NOCASE)")
		args = append(args, strings.TrimSpace(f.Tag))
	}
	if f.Series != "" {
		conds = append(conds, "b.series LIKE ? ESCAPE '\\'")
		args = append(args, "%"+likeEscape(f.Series)+"%")
	}
	if f.Collection != "" {
		// The collection itself, its sub-collections, and the same
		// below any collection: "Methods" names "Thesis/Methods".
		c := strings.Trim(strings.TrimSpace(f.Collection), "/")
		conds = append(conds, `EXISTS (SELECT 1 FROM json_each(b.collections) c WHERE c.value = ? COLLATE NOCASE
	OR c.value LIKE ? ESCAPE '\' OR c.value LIKE ? ESCAPE '\' OR c.value LIKE ? ESCAPE '\')`)
		e := likeEscape(c)
		args = append(args, c, e+"/%", "%/"+e, "%/"+e+"/%")
	}
	if f.ItemType != "" {
		conds = append(conds, "b.item_type = ? COLLATE NOCASE")
		args = append(args, strings.TrimSpace(f.ItemType))
	}
	if f.Query != "" {
		conds = append(conds, "(b.title LIKE ? ESCAPE '\\' OR b.author LIKE ? ESCAPE '\\')")
		q := "%" + likeEscape(f.Query) + "%"
		args = append(args, q, q)
	}
	if f.ReadyOnly {
		conds = append(conds, "b.status = 'ready'")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return "WHERE " + strings.Join(conds, " AND "), args
}

func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Books lists the books f selects, by title.
func (d *DB) Books(ctx context.Context, f BookFilter) ([]library.Book, error) {
	where, args := f.where()
	return d.queryBooks(ctx, where+" ORDER BY b.title COLLATE NOCASE, b.id", args...)
}

// BookIDs returns the ids of the books f selects.
func (d *DB) BookIDs(ctx context.Context, f BookFilter) (map[int64]bool, error) {
	where, args := f.where()
	rows, err := d.db.QueryContext(ctx, `SELECT b.id FROM book b `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("select books: %w", err)
	}
	defer rows.Close()
	ids := make(map[int64]bool)
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids[id] = true
	}
	return ids, rows.Err()
}

// Book returns the book that slug names: the book with that slug, else
// the only one whose slug begins with it. An ambiguous prefix is fault.Invalid;
// a slug no book has is fault.NotFound, naming the nearest (see ResolveSlug).
func (d *DB) Book(ctx context.Context, slug string) (library.Book, error) {
	return bookBySlug(ctx, d.db, slug)
}

// BookByID returns book id with its counts and paths; fault.NotFound when it is
// gone (pruned, or replaced while it was ingested).
func (d *DB) BookByID(ctx context.Context, id int64) (library.Book, error) {
	books, err := d.queryBooks(ctx, `WHERE b.id = ?`, id)
	if err != nil {
		return library.Book{}, err
	}
	if len(books) == 0 {
		return library.Book{}, fault.Errorf(fault.NotFound, "book %d is gone", id)
	}
	return books[0], nil
}

// Outline returns the chapters of book id with their sections (without
// text).
func (d *DB) Outline(ctx context.Context, id int64) ([]library.Chapter, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT idx, title, anchor, page_start, page_end FROM chapter WHERE book_id = ? ORDER BY idx`, id)
	if err != nil {
		return nil, fmt.Errorf("outline of book %d: %w", id, err)
	}
	var chapters []library.Chapter
	for rows.Next() {
		var c library.Chapter
		if err := rows.Scan(&c.Index, &c.Title, &c.Anchor, &c.PageStart, &c.PageEnd); err != nil {
			rows.Close()
			return nil, err
		}
		chapters = append(chapters, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	srows, err := d.db.QueryContext(ctx, `
SELECT chapter_idx, idx, title, synthesized, anchor, page_start, page_end, tokens, first_chunk, chunk_count
FROM section WHERE book_id = ? ORDER BY chapter_idx, idx`, id)
	if err != nil {
		return nil, fmt.Errorf("outline of book %d: %w", id, err)
	}
	defer srows.Close()
	for srows.Next() {
		var s library.Section
		if err := srows.Scan(&s.ChapterIndex, &s.Index, &s.Title, &s.Synthesized, &s.Anchor, &s.PageStart, &s.PageEnd, &s.Tokens, &s.FirstChunk, &s.ChunkCount); err != nil {
			return nil, err
		}
		if s.ChapterIndex >= 0 && s.ChapterIndex < len(chapters) {
			chapters[s.ChapterIndex].Sections = append(chapters[s.ChapterIndex].Sections, s)
		}
	}
	return chapters, srows.Err()
}

// Section returns one section of book id with its text, and its chapter's
// title.
func (d *DB) Section(ctx context.Context, id int64, chapter, section int) (library.Section, string, error) {
	var s library.Section
	var chTitle string
	var st storedSection
	err := d.db.QueryRowContext(ctx, `
SELECT s.chapter_idx, s.idx, s.title, s.synthesized, s.anchor, s.page_start, s.page_end, s.tokens,
	s.first_chunk, s.chunk_count, s.text, s.from_chunks = 1, c.title
FROM section s JOIN chapter c ON c.book_id = s.book_id AND c.idx = s.chapter_idx
WHERE s.book_id = ? AND s.chapter_idx = ? AND s.idx = ?`, id, chapter, section).Scan(
		&s.ChapterIndex, &s.Index, &s.Title, &s.Synthesized, &s.Anchor, &s.PageStart, &s.PageEnd, &s.Tokens,
		&s.FirstChunk, &s.ChunkCount, &st.text, &st.fromChunks, &chTitle)
	if err == sql.ErrNoRows {
		return s, "", &fault.Error{Code: fault.NotFound, Msg: fmt.Sprintf("no section %d of chapter %d", section, chapter)}
	}
	if err != nil {
		return s, "", fmt.Errorf("section %d.%d of book %d: %w", chapter, section, id, err)
	}
	st.first, st.size = s.FirstChunk, s.ChunkCount
	if s.Text, err = st.read(ctx, d.db, id); err != nil {
		return s, "", fmt.Errorf("section %d.%d of book %d: %w", chapter, section, id, err)
	}
	return s, chTitle, nil
}

// ChunkRange returns the chunks of book id with from ≤ index ≤ to, in order.
func (d *DB) ChunkRange(ctx context.Context, id int64, from, to int) ([]library.Chunk, error) {
	rows, err := d.db.QueryContext(ctx, `
SELECT id, idx, chapter_idx, section_idx, heading, context, text, anchor, page_start, page_end, tokens, state
FROM chunk WHERE book_id = ? AND idx BETWEEN ? AND ? ORDER BY idx`, id, from, to)
	if err != nil {
		return nil, fmt.Errorf("chunks of book %d: %w", id, err)
	}
	defer rows.Close()
	var out []library.Chunk
	for rows.Next() {
		k := library.Chunk{BookID: id}
		if err := rows.Scan(&k.ID, &k.Index, &k.ChapterIndex, &k.SectionIndex, &k.Heading, &k.Context, &k.Text, &k.Anchor, &k.PageStart, &k.PageEnd, &k.Tokens, &k.State); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Hit is a chunk with what a citation needs.
type Hit struct {
	library.Chunk
	// Book is the chunk's book without its counts (Chapters, Sections
	// and Chunks are 0).
	Book         library.Book
	ChapterTitle string
	SectionTitle string
	// Role and Signature are the chunk's role and copy signature
	// (package passage), as stored with it.
	Role      passage.Role
	Signature passage.Signature
	// Length is the chunk's length in tokens, as BM25 reads it.
	Length int
	// Vec is the chunk's stored vector (HitsOf only; nil without one).
	Vec []float32
}

// HitsOf loads the chunks with the given ids, in the order of ids, each
// with its book and the book's paths, and with its vector when vectors is
// set, in one question. Ids that no longer exist, or whose book is not
// ready, are left out.
func (d *DB) HitsOf(ctx context.Context, ids []int64, vectors bool) ([]Hit, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ph, args := idList(ids)
	vec := "NULL"
	if vectors {
		vec = "(SELECT e.vec FROM embedding e WHERE e.chunk_id = k.id)"
	}
	rows, err := d.db.QueryContext(ctx, `
SELECT k.id, k.book_id, k.idx, k.chapter_idx, k.section_idx, k.heading, k.context, k.text, k.anchor,
	k.page_start, k.page_end, k.tokens, k.state, coalesce(c.title, ''), coalesce(s.title, ''), k.role, g.signature,
	CASE WHEN k.role IS NULL THEN k.idx = 0 AND NOT EXISTS (SELECT 1 FROM chunk n WHERE n.book_id = k.book_id AND n.idx = 1) ELSE 0 END,
	k.length, `+vec+`, `+bookColumns+` (SELECT json_group_array(path) FROM (SELECT path FROM file f WHERE f.hash = b.hash ORDER BY path))
FROM chunk k
CROSS JOIN book b ON b.id = k.book_id AND b.status = 'ready'
LEFT JOIN chapter c ON c.book_id = k.book_id AND c.idx = k.chapter_idx
LEFT JOIN section s INDEXED BY section_title ON s.book_id = k.book_id AND s.chapter_idx = k.chapter_idx AND s.idx = k.section_idx
LEFT JOIN chunk_signature g ON g.chunk_id = k.id
WHERE k.id IN (`+ph+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("load hits: %w", err)
	}
	byID := make(map[int64]Hit, len(ids))
	// only: which unclassified chunks are their book's only one.
	only := make(map[int64]bool)
	for rows.Next() {
		var h Hit
		var role sql.NullInt64
		var sig []byte
		var alone bool
		var vec sql.RawBytes
		dest := []any{&h.ID, &h.BookID, &h.Index, &h.ChapterIndex, &h.SectionIndex, &h.Heading, &h.Context, &h.Text, &h.Anchor,
			&h.PageStart, &h.PageEnd, &h.Tokens, &h.State, &h.ChapterTitle, &h.SectionTitle, &role, &sig, &alone, &h.Length, &vec}
		var paths string
		scan, bookDone := bookScan(&h.Book)
		dest = append(append(dest, scan...), &paths)
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return nil, err
		}
		h.Vec = vec8.Floats(vec)
		bookDone()
		json.Unmarshal([]byte(paths), &h.Book.Paths)
		citedAtOrigin(&h.Book)
		if role.Valid {
			h.Role = passage.Role(role.Int64)
		} else {
			only[h.ID] = alone
		}
		if sig != nil {
			var err error
			if h.Signature, err = passage.DecodeSignature(sig); err != nil {
				rows.Close()
				return nil, fmt.Errorf("load hits: passage %d of book %d: %w", h.ID, h.BookID, err)
			}
		}
		byID[h.ID] = h
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]Hit, 0, len(byID))
	for _, id := range ids {
		h, ok := byID[id]
		if !ok {
			continue
		}
		if h.Role == 0 {
			// Stored by an older grimoire, and not classified yet
			// (Writer.Classify): classified here, as it will be.
			h.Role = passage.Classify(passage.Passage{Text: h.Text, ChapterTitle: h.ChapterTitle, SectionTitle: h.SectionTitle,
				BookTitle: h.Book.Title, Authors: h.Book.Authors, Only: only[h.ID]})
		}
		if h.Signature == nil {
			h.Signature = passage.SignatureOf(h.Text)
		}
		out = append(out, h)
	}
	return out, nil
}

// citedAtOrigin gives a book no file holds (an old version still
// answering while its file's new content is ingested) the path it was
// found at, for its citations.
func citedAtOrigin(b *library.Book) {
	if len(b.Paths) == 0 && b.OriginPath != "" {
		b.Paths = []string{b.OriginPath}
	}
}

// idList returns the question marks of an IN list of ids (or terms),
// "?,?,?", and the ids as arguments.
func idList[T int64 | string](ids []T) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return strings.TrimSuffix(strings.Repeat("?,", len(ids)), ","), args
}
