package index

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/library"
)

// fileColumns are the columns scanFile reads, in its order.
const fileColumns = `path, root, hash, size, mtime_ns, inode, verified_ns, source_type`

// scanFile reads one row of fileColumns.
func scanFile(rows *sql.Rows) (library.File, error) {
	var f library.File
	var inode int64
	err := rows.Scan(&f.Path, &f.Root, &f.Hash, &f.Size, &f.MtimeNS, &inode, &f.VerifiedNS, &f.SourceType)
	f.Inode = uint64(inode)
	return f, err
}

// Files returns every file row, keyed by path.
func (d *DB) Files(ctx context.Context) (map[string]library.File, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+fileColumns+` FROM file`)
	if err != nil {
		return nil, fmt.Errorf("load files: %w", err)
	}
	defer rows.Close()
	out := make(map[string]library.File)
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, fmt.Errorf("load files: %w", err)
		}
		out[f.Path] = f
	}
	return out, rows.Err()
}

// FilesOf returns the rows of the files that hold content h, sorted by
// path; none when no file holds it.
func (d *DB) FilesOf(ctx context.Context, h library.Hash) ([]library.File, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+fileColumns+` FROM file WHERE hash = ? ORDER BY path`, h)
	if err != nil {
		return nil, fmt.Errorf("files of %s: %w", h.Short(), err)
	}
	defer rows.Close()
	var out []library.File
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, fmt.Errorf("files of %s: %w", h.Short(), err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Tx is a short write transaction of the writer.
type Tx struct {
	tx  *sql.Tx
	now int64
	// salvage is set while a rebuild's salvage is there to draw on.
	salvage bool
}

// Update runs fn in one write transaction and commits it when fn returns nil.
// It fails with ErrWriterReplaced, writing nothing, once another writer has
// taken the index over.
func (w *Writer) Update(ctx context.Context, fn func(*Tx) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return w.failed(fmt.Errorf("begin: %w", err))
	}
	if err := w.stillOurs(ctx, tx); err != nil {
		tx.Rollback()
		return w.failed(err)
	}
	w.noteFile(false)
	if err := fn(&Tx{tx: tx, now: time.Now().UnixNano(), salvage: w.salvage != nil}); err != nil {
		tx.Rollback()
		return w.failed(err)
	}
	err = tx.Commit()
	w.noteFile(true)
	if err != nil {
		return w.failed(fmt.Errorf("commit: %w", err))
	}
	return nil
}

// exec runs one statement as a write transaction of its own.
func (w *Writer) exec(ctx context.Context, query string, args ...any) (res sql.Result, err error) {
	err = w.Update(ctx, func(t *Tx) error {
		res, err = t.tx.ExecContext(ctx, query, args...)
		return err
	})
	return res, err
}

// failed notes a write that met damage, so that Close does not seal the
// file as sound, and names the index in the error.
func (w *Writer) failed(err error) error {
	if isDamage(err) {
		w.foreign = true
	}
	return ExplainDamage(err, w.path)
}

// PutFile inserts or replaces a file row, and makes sure its content has a
// book (pending when new) unless the content is excluded. When the path held
// other content before (previous), the new book is marked as replacing the
// old one, so the old version keeps answering until the new one is ready.
// A book it creates takes f.SourceType. It reports whether a book was
// created.
func (t *Tx) PutFile(ctx context.Context, f library.File, previous library.Hash) (created bool, err error) {
	_, err = t.tx.ExecContext(ctx, `
INSERT INTO file(`+fileColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(path) DO UPDATE SET root = excluded.root, hash = excluded.hash, size = excluded.size,
	mtime_ns = excluded.mtime_ns, inode = excluded.inode, verified_ns = excluded.verified_ns,
	source_type = excluded.source_type`,
		f.Path, f.Root, f.Hash, f.Size, f.MtimeNS, int64(f.Inode), f.VerifiedNS, f.SourceType)
	if err != nil {
		return false, fmt.Errorf("record %s: %w", f.Path, err)
	}
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM file_issue WHERE path = ?`, f.Path); err != nil {
		return false, fmt.Errorf("record %s: %w", f.Path, err)
	}
	var replaces int64
	if !previous.IsZero() && previous != f.Hash {
		replaces, err = t.successorOf(ctx, previous)
		if err != nil {
			return false, fmt.Errorf("record %s: %w", f.Path, err)
		}
	}
	return t.ensureBook(ctx, f.Hash, f.Path, f.Size, f.SourceType, replaces)
}

// successorOf returns the book a new version of the content prev should
// replace: prev's own book when it is ready, else the book prev itself was
// replacing (an unfinished version never answers, so the last finished one
// keeps answering). 0 when there is none or prev is still held elsewhere.
func (t *Tx) successorOf(ctx context.Context, prev library.Hash) (int64, error) {
	var id int64
	var status string
	var replaces sql.NullInt64
	err := t.tx.QueryRowContext(ctx, `SELECT id, status, replaces FROM book WHERE hash = ?`, prev).Scan(&id, &status, &replaces)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if library.BookStatus(status) == library.Ready {
		return id, nil
	}
	return replaces.Int64, nil
}

func (t *Tx) ensureBook(ctx context.Context, h library.Hash, path string, size int64, sourceType string, replaces int64) (bool, error) {
	var exists int
	err := t.tx.QueryRowContext(ctx, `
SELECT (SELECT count(*) FROM book WHERE hash = ?1) + (SELECT count(*) FROM exclusion WHERE hash = ?1)`, h).Scan(&exists)
	if err != nil {
		return false, fmt.Errorf("look up %s: %w", h.Short(), err)
	}
	if exists > 0 {
		return false, nil
	}
	slug, err := t.uniqueSlug(ctx, Slugify(fileStem(path)), 0)
	if err != nil {
		return false, err
	}
	var rep any
	if replaces != 0 {
		rep = replaces
	}
	_, err = t.tx.ExecContext(ctx, `
INSERT INTO book(hash, slug, title, source_type, size, origin_path, replaces, added_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		h, slug, fileStem(path), sourceType, size, path, rep, t.now)
	if err != nil {
		return false, fmt.Errorf("create book for %s: %w", path, err)
	}
	return true, nil
}

// RemoveFile deletes a file row. The book it pointed at is pruned later by
// Prune if no other file holds it.
func (t *Tx) RemoveFile(ctx context.Context, path string) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM file WHERE path = ?`, path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}

// RecordIssue remembers why a file could not be indexed (too large,
// unreadable), so status can show it until it is resolved.
func (t *Tx) RecordIssue(ctx context.Context, path, reason string) error {
	_, err := t.tx.ExecContext(ctx, `
INSERT INTO file_issue(path, error, seen_at) VALUES (?, ?, ?)
ON CONFLICT(path) DO UPDATE SET error = excluded.error, seen_at = excluded.seen_at`, path, reason, t.now)
	if err != nil {
		return fmt.Errorf("record issue with %s: %w", path, err)
	}
	return nil
}

// ClearIssues forgets the issues of paths that are not in keep and lie under
// one of roots (issues elsewhere belong to roots that were not scanned).
func (t *Tx) ClearIssues(ctx context.Context, roots []string, keep map[string]bool) error {
	rows, err := t.tx.QueryContext(ctx, `SELECT path FROM file_issue`)
	if err != nil {
		return fmt.Errorf("clear issues: %w", err)
	}
	var drop []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			rows.Close()
			return fmt.Errorf("clear issues: %w", err)
		}
		if !keep[p] && subtree.InAny(p, roots) {
			drop = append(drop, p)
		}
	}
	rows.Close()
	for _, p := range drop {
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM file_issue WHERE path = ?`, p); err != nil {
			return fmt.Errorf("clear issues: %w", err)
		}
	}
	return nil
}

// EnsureBooks creates a pending book for every file content that has none and
// is not excluded (after an exclusion is lifted, or a book was deleted by
// hand). Each takes the source type its first path's row records. It
// returns how many it created.
func (t *Tx) EnsureBooks(ctx context.Context) (int, error) {
	rows, err := t.tx.QueryContext(ctx, `
SELECT m.hash, m.path, m.size, f.source_type FROM (
	SELECT f.hash, min(f.path) AS path, max(f.size) AS size FROM file f
	WHERE NOT EXISTS (SELECT 1 FROM book b WHERE b.hash = f.hash)
	  AND NOT EXISTS (SELECT 1 FROM exclusion e WHERE e.hash = f.hash)
	GROUP BY f.hash
) m JOIN file f ON f.path = m.path
ORDER BY m.hash`)
	if err != nil {
		return 0, fmt.Errorf("find contents without a book: %w", err)
	}
	type missing struct {
		h    library.Hash
		path string
		size int64
		typ  string
	}
	var todo []missing
	for rows.Next() {
		var m missing
		if err := rows.Scan(&m.h, &m.path, &m.size, &m.typ); err != nil {
			rows.Close()
			return 0, err
		}
		todo = append(todo, m)
	}
	rows.Close()
	n := 0
	for _, m := range todo {
		created, err := t.ensureBook(ctx, m.h, m.path, m.size, m.typ, 0)
		if err != nil {
			return n, err
		}
		if created {
			n++
		}
	}
	return n, nil
}

// Prune deletes every book that no file holds, except one that still answers
// for a file whose new content is being ingested. It returns the books
// deleted (their hash, slug and title), for a caller that says what went.
func (t *Tx) Prune(ctx context.Context) ([]library.Book, error) { return t.prune(ctx, "") }

// prune deletes the books that Prune would, narrowed by an extra condition
// on b.
func (t *Tx) prune(ctx context.Context, cond string, args ...any) ([]library.Book, error) {
	rows, err := t.tx.QueryContext(ctx, `
DELETE FROM book WHERE id IN (
	SELECT b.id FROM book b
	WHERE NOT EXISTS (SELECT 1 FROM file f WHERE f.hash = b.hash)
	  AND NOT EXISTS (SELECT 1 FROM book s WHERE s.replaces = b.id AND s.status IN ('pending', 'parsed'))
	  `+cond+`
) RETURNING id, hash, slug, title`, args...)
	if err != nil {
		return nil, fmt.Errorf("prune books: %w", err)
	}
	var gone []library.Book
	for rows.Next() {
		var b library.Book
		if err := rows.Scan(&b.ID, &b.Hash, &b.Slug, &b.Title); err != nil {
			rows.Close()
			return nil, fmt.Errorf("prune books: %w", err)
		}
		gone = append(gone, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("prune books: %w", err)
	}
	if len(gone) > 0 {
		if err := t.bumpVectorGeneration(ctx); err != nil {
			return nil, fmt.Errorf("prune books: %w", err)
		}
	}
	return gone, nil
}

// BookOf returns the book of content h, with its paths; false when the
// index has none (new content not yet given a book, or excluded content).
func (t *Tx) BookOf(ctx context.Context, h library.Hash) (library.Book, bool, error) {
	books, err := queryBooksTx(ctx, t.tx, `WHERE b.hash = ?`, h)
	if err != nil || len(books) == 0 {
		return library.Book{}, false, err
	}
	return books[0], true, nil
}

// Excluded reports whether the user deleted the content h.
func (t *Tx) Excluded(ctx context.Context, h library.Hash) (bool, error) {
	var n int
	if err := t.tx.QueryRowContext(ctx, `SELECT count(*) FROM exclusion WHERE hash = ?`, h).Scan(&n); err != nil {
		return false, fmt.Errorf("look up exclusion of %s: %w", h.Short(), err)
	}
	return n > 0, nil
}
