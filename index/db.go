package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver: pure Go, FTS5 built in
)

// DB holds the read queries that the writer and readers share.
type DB struct {
	db   *sql.DB
	path string
}

// Path returns the database file's path.
func (d *DB) Path() string { return d.path }

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// Writer is the one process allowed to change the index. It holds the
// writer lock from OpenWriter until Close.
type Writer struct {
	DB
	lock *fileLock
}

// Reader is a read-only view of the index. Any number of readers, in any
// number of processes, may run beside the writer.
type Reader struct {
	DB
}

// dsn builds a SQLite URI for path. Only "file:" URIs make SQLite honour
// mode=ro; a plain path would silently open read-write.
func dsn(path string, params ...string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: file:///C:/...
	}
	// EscapedPath turns '?', '#' and '%' in the path into %XX, which
	// SQLite decodes; the driver splits its own parameters at the first '?'.
	return "file://" + (&url.URL{Path: p}).EscapedPath() + "?" + strings.Join(params, "&")
}

// OpenWriter opens (creating when needed) the index at path for writing,
// taking the writer lock. holder describes this process for the error that a
// second writer gets, e.g. "grimoire watch".
func OpenWriter(ctx context.Context, path, holder string) (*Writer, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("index %s: create its folder: %w", abs, err)
	}
	lock, err := acquireLock(abs+".lock", holder)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(abs,
		"_pragma=busy_timeout(10000)",
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous(NORMAL)",
		"_pragma=foreign_keys(1)",
		"_pragma=cache_size(-32000)",
		"_pragma=mmap_size(268435456)",
		"_txlock=immediate",
	))
	if err != nil {
		lock.release()
		return nil, fmt.Errorf("index %s: %w", abs, err)
	}
	// One connection: SQLite has one writer anyway, and a pool would only
	// trade our serialisation for SQLITE_BUSY.
	db.SetMaxOpenConns(1)
	w := &Writer{DB: DB{db: db, path: abs}, lock: lock}
	if err := w.init(ctx); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

func (w *Writer) init(ctx context.Context) error {
	if err := checkFTS5(ctx, w.db); err != nil {
		return fmt.Errorf("index %s: %w", w.path, err)
	}
	var mode string
	if err := w.db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return fmt.Errorf("index %s: %w", w.path, err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("index %s: journal mode is %q, not WAL (is it on a network drive?)", w.path, mode)
	}
	if err := migrate(ctx, w.db); err != nil {
		return fmt.Errorf("index %s: %w", w.path, err)
	}
	return nil
}

// Close releases the writer lock and closes the database.
func (w *Writer) Close() error {
	err := w.db.Close()
	w.lock.release()
	return err
}

// OpenReader opens the index at path read-only. It fails with a NotFound
// error when there is no index yet.
func OpenReader(ctx context.Context, path string) (*Reader, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return nil, (&Error{Code: NotFound, Msg: "no index at " + abs}).
			WithHint("run `grimoire sync` to build it")
	}
	db, err := sql.Open("sqlite", dsn(abs,
		"mode=ro",
		"_pragma=busy_timeout(10000)",
		"_pragma=cache_size(-32000)",
		"_pragma=query_only(1)",
	))
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", abs, err)
	}
	r := &Reader{DB: DB{db: db, path: abs}}
	if err := r.init(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (r *Reader) init(ctx context.Context) error {
	if err := checkFTS5(ctx, r.db); err != nil {
		return fmt.Errorf("index %s: %w", r.path, err)
	}
	v, err := userVersion(ctx, r.db)
	if err != nil {
		return fmt.Errorf("index %s: %w", r.path, err)
	}
	switch {
	case v == 0:
		return (&Error{Code: NotFound, Msg: "index " + r.path + " is empty"}).
			WithHint("run `grimoire sync` to build it")
	case v < SchemaVersion():
		return (&Error{Code: Conflict, Msg: fmt.Sprintf("index %s has schema version %d, this grimoire needs %d", r.path, v, SchemaVersion()), Err: ErrOutdated}).
			WithHint("run `grimoire sync` once to upgrade it")
	case v > SchemaVersion():
		return (&Error{Code: Conflict, Msg: fmt.Sprintf("index %s has schema version %d, newer than this grimoire (%d)", r.path, v, SchemaVersion())}).
			WithHint("upgrade grimoire")
	}
	return nil
}

// ErrOutdated is matched by errors.Is when a reader meets an index written
// by an older grimoire; opening a writer upgrades it.
var ErrOutdated = errors.New("older schema")

func checkFTS5(ctx context.Context, db *sql.DB) error {
	var ok bool
	if err := db.QueryRowContext(ctx, "SELECT sqlite_compileoption_used('ENABLE_FTS5')").Scan(&ok); err != nil {
		return fmt.Errorf("check FTS5: %w", err)
	}
	if !ok {
		return errors.New("this SQLite build has no FTS5, which grimoire requires")
	}
	return nil
}
