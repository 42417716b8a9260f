package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model"
)

// Status is a summary of the index for `grimoire status`.
type Status struct {
	Books          int
	Files          int
	Chunks         int
	Pending        int // books waiting to be parsed (those waiting for OCR are in OCR)
	Parsed         int // books parsed, chunks still being embedded
	Ready          int
	Failed         int
	Embedded       int // chunks with a vector
	Contextualized int // chunks with a generated context
	Exclusions     int
	// Failures are failed books (with a path that holds them) and files
	// that could not be indexed at all.
	Failures []library.Failure
	// OCR are the books whose scanned pages wait for OCR or are being
	// recognised, and the books done with pages of low confidence.
	OCR []OCRBook
	// Held are the removals held back for want of evidence.
	Held []library.Hold
	// Unsupported counts the library's files that are no book grimoire
	// reads, by extension, most first.
	Unsupported []library.Unsupported
	Stamp       *model.Stamp
	LastRun     *library.Run
	// SizeBytes is the size of the database file and its WAL.
	SizeBytes int64
}

// Status summarises the index.
func (d *DB) Status(ctx context.Context) (Status, error) {
	var s Status
	err := d.db.QueryRowContext(ctx, `
SELECT
	(SELECT count(*) FROM book),
	(SELECT count(*) FROM file),
	(SELECT count(*) FROM chunk),
	(SELECT count(*) FROM book b WHERE status = 'pending' AND NOT EXISTS (SELECT 1 FROM ocr_book o WHERE o.hash = b.hash AND o.waiting != '')),
	(SELECT count(*) FROM book WHERE status = 'parsed'),
	(SELECT count(*) FROM book WHERE status = 'ready'),
	(SELECT count(*) FROM book WHERE status = 'failed'),
	(SELECT count(*) FROM embedding),
	(SELECT count(*) FROM chunk WHERE context != ''),
	(SELECT count(*) FROM exclusion)`).Scan(
		&s.Books, &s.Files, &s.Chunks, &s.Pending, &s.Parsed, &s.Ready, &s.Failed, &s.Embedded, &s.Contextualized, &s.Exclusions)
	if err != nil {
		return s, fmt.Errorf("status: %w", err)
	}
	rows, err := d.db.QueryContext(ctx, `
SELECT coalesce((SELECT min(f.path) FROM file f WHERE f.hash = b.hash), b.origin_path), b.error
FROM book b WHERE b.status = 'failed'
UNION ALL
SELECT path, error FROM file_issue
ORDER BY 1`)
	if err != nil {
		return s, fmt.Errorf("status: %w", err)
	}
	for rows.Next() {
		var f library.Failure
		if err := rows.Scan(&f.Path, &f.Error); err != nil {
			rows.Close()
			return s, err
		}
		s.Failures = append(s.Failures, f)
	}
	rows.Close()
	if s.OCR, err = d.OCRBooks(ctx); err != nil {
		return s, err
	}
	if s.Held, err = d.Holds(ctx); err != nil {
		return s, err
	}
	if s.Unsupported, err = d.Unsupported(ctx); err != nil {
		return s, err
	}
	if st, ok, err := d.Stamp(ctx); err != nil {
		return s, err
	} else if ok {
		s.Stamp = &st
	}
	if s.LastRun, err = d.LastRun(ctx); err != nil {
		return s, err
	}
	for _, p := range []string{d.path, d.path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			s.SizeBytes += fi.Size()
		}
	}
	return s, nil
}

// Progress is how far indexing has got: the books still on their way to
// searches, and the books searches read.
type Progress struct {
	Indexing int // books pending or parsed, not yet searched
	// Ready is counted only while Indexing > 0, and is 0 otherwise: once
	// indexing is done nobody asks, and not counting keeps the check an
	// index seek.
	Ready int
}

// Progress says how far indexing has got, cheaply enough to run before
// every search: with nothing left to index it is one seek in the status
// index, else two counts over it. Failed books are in neither count, nor
// are books waiting for tesseract to be installed: they will not become
// ready by waiting. (A ready book can wait for OCR too, for the scans it
// was stored without: it is in the ready count alone.)
func (d *DB) Progress(ctx context.Context) (Progress, error) {
	var p Progress
	err := d.db.QueryRowContext(ctx, `
SELECT
	(SELECT count(*) FROM book b WHERE b.status IN ('pending', 'parsed')
		AND NOT EXISTS (SELECT 1 FROM ocr_book o WHERE o.hash = b.hash AND o.waiting != '')),
	CASE WHEN EXISTS (SELECT 1 FROM book WHERE status IN ('pending', 'parsed'))
		THEN (SELECT count(*) FROM book WHERE status = 'ready') ELSE 0 END`).Scan(&p.Indexing, &p.Ready)
	if err != nil {
		return Progress{}, fmt.Errorf("count books being indexed: %w", err)
	}
	return p, nil
}

// StartRun records the start of a sync run and returns its id.
func (w *Writer) StartRun(ctx context.Context, kind string, started time.Time) (int64, error) {
	res, err := w.exec(ctx, `INSERT INTO run(kind, started) VALUES (?, ?)`, kind, started.UnixNano())
	if err != nil {
		return 0, fmt.Errorf("record run: %w", err)
	}
	return res.LastInsertId()
}

// FinishRun records a run's outcome. Only the last few hundred runs are
// kept.
func (w *Writer) FinishRun(ctx context.Context, id int64, r library.Run) error {
	counters, _ := json.Marshal(r.Counters)
	failures, _ := json.Marshal(nonNilFailures(r.Failures))
	return w.Update(ctx, func(t *Tx) error {
		if _, err := t.tx.ExecContext(ctx, `UPDATE run SET finished = ?, counters = ?, failures = ? WHERE id = ?`,
			r.Finished.UnixNano(), string(counters), string(failures), id); err != nil {
			return fmt.Errorf("record run: %w", err)
		}
		_, err := t.tx.ExecContext(ctx, `DELETE FROM run WHERE id <= ? - 500`, id)
		return err
	})
}

// LastRun returns the last finished run, or nil before the first.
func (d *DB) LastRun(ctx context.Context) (*library.Run, error) {
	var r library.Run
	var started, finished int64
	var counters, failures string
	err := d.db.QueryRowContext(ctx, `
SELECT id, kind, started, finished, counters, failures FROM run WHERE finished != 0 ORDER BY id DESC LIMIT 1`).
		Scan(&r.ID, &r.Kind, &started, &finished, &counters, &failures)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("last run: %w", err)
	}
	r.Started = time.Unix(0, started).UTC()
	r.Finished = time.Unix(0, finished).UTC()
	json.Unmarshal([]byte(counters), &r.Counters)
	json.Unmarshal([]byte(failures), &r.Failures)
	return &r, nil
}

func nonNilFailures(f []library.Failure) []library.Failure {
	if f == nil {
		return []library.Failure{}
	}
	return f
}

// SetMeta stores a small value under key, for state other processes read
// (the watcher's progress).
func (w *Writer) SetMeta(ctx context.Context, key, value string) error {
	_, err := w.exec(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("store %s: %w", key, err)
	}
	return nil
}

// Meta returns the value stored under key, "" when none.
func (d *DB) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := d.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if err == sql.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", key, err)
	}
	return v, nil
}

// BookExists reports whether the book with id is still in the index (a
// concurrent reconcile may have pruned it).
func (d *DB) BookExists(ctx context.Context, id int64) (bool, error) {
	var n int
	if err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM book WHERE id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("look up book %d: %w", id, err)
	}
	return n > 0, nil
}

// WatchState is what a running watcher publishes for `grimoire status`.
type WatchState struct {
	PID          int       `json:"pid"`
	Started      time.Time `json:"started"`
	Updated      time.Time `json:"updated"`
	LastFullScan time.Time `json:"last_full_scan,omitzero"`
	// Queue is the number of changed paths waiting to be reconciled.
	Queue int `json:"queue"`
	// Ingesting is the book being ingested now, if any.
	Ingesting string `json:"ingesting,omitempty"`
	Watched   int    `json:"watched_folders"`
	Degraded  string `json:"degraded,omitempty"`
}

// watchStateKey is the meta key a watcher publishes its state under.
const watchStateKey = "watch_state"

// PublishWatchState stores the state of the running watcher for status,
// replacing what it published before.
func (w *Writer) PublishWatchState(ctx context.Context, s WatchState) error {
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("store %s: %w", watchStateKey, err)
	}
	return w.SetMeta(ctx, watchStateKey, string(b))
}

// ClearWatchState removes the published state when the watcher stops, so
// that status does not show a watcher that is gone.
func (w *Writer) ClearWatchState(ctx context.Context) error {
	return w.SetMeta(ctx, watchStateKey, "")
}

// WatchState returns the state the watcher last published, or nil.
func (d *DB) WatchState(ctx context.Context) (*WatchState, error) {
	v, err := d.Meta(ctx, watchStateKey)
	if err != nil || v == "" {
		return nil, err
	}
	var s WatchState
	if json.Unmarshal([]byte(v), &s) != nil {
		return nil, nil
	}
	return &s, nil
}

// zoteroReadKey prefixes the meta keys that hold, for each Zotero library,
// which database the last pass read it from.
const zoteroReadKey = "zotero "

// SetZoteroRead records which database a pass read a Zotero library from.
func (w *Writer) SetZoteroRead(ctx context.Context, r library.ZoteroRead) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return w.SetMeta(ctx, zoteroReadKey+r.Dir, string(b))
}

// ZoteroReads returns, for each Zotero library a pass read, which
// database it was read from, by data directory.
func (d *DB) ZoteroReads(ctx context.Context) ([]library.ZoteroRead, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT value FROM meta WHERE key >= ? AND key < ? ORDER BY key`, zoteroReadKey, "zotero!")
	if err != nil {
		return nil, fmt.Errorf("read the Zotero libraries' state: %w", err)
	}
	defer rows.Close()
	var out []library.ZoteroRead
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("read the Zotero libraries' state: %w", err)
		}
		var r library.ZoteroRead
		if json.Unmarshal([]byte(v), &r) == nil {
			out = append(out, r)
		}
	}
	return out, rows.Err()
}
