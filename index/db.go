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
	"sync"

	"github.com/grimoire-search/grimoire/fault"
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
func (d *DB) Close() error {
	return d.db.Close()
}

// Writer is the one process allowed to change the index. It holds the
// writer lock from OpenWriter until Close.
type Writer struct {
	DB
	lock   *fileLock // nil when the lock belongs to a caller (a rebuild)
	lockID string
	token  string

	// mu pairs each write transaction with the look at the file around
	// it (see noteFile).
	mu sync.Mutex
	// last is the database file as this writer last left it; foreign is
	// set once something else changed it, or a write met damage: then the
	// file is not sealed on Close.
	last    seal
	foreign bool
	opened  bool

	// salvage is the state of the rebuild whose salvage this writer
	// reuses; nil outside a rebuild's sync.
	salvage *rebuildState
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
// second writer gets, e.g. "grimoire watch". An index that another process
// changed since a writer last closed it is checked first; a damaged one is
// refused with a fault.Damaged error.
func OpenWriter(ctx context.Context, path, holder string) (*Writer, error) {
	abs, lock, err := lockIndex(path, holder)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs + rebuildSuffix); err == nil {
		lock.release(nil)
		return nil, rebuildUnfinished(abs)
	}
	w, err := openWriter(ctx, abs, lock, lock.id, holder, writerOptions{check: true})
	if err != nil {
		lock.release(nil)
		return nil, err
	}
	return w, nil
}

// lockIndex takes the writer lock of the index at path.
func lockIndex(path, holder string) (string, *fileLock, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, fmt.Errorf("index %s: %w", path, err)
	}
	if err := mkdirIndex(filepath.Dir(abs)); err != nil {
		return "", nil, fmt.Errorf("index %s: create its folder: %w", abs, err)
	}
	lock, err := acquireLock(abs+".lock", holder)
	if err != nil {
		return "", nil, err
	}
	// Before a rebuild sets the old files aside under other names.
	keepPrivate(abs)
	return abs, lock, nil
}

// The index holds the books' text: it is kept from other users, whatever
// the umask, even when the books themselves are not. Its folder, when the
// index makes it, is the owner's alone; its files are the owner's to read
// and write.
const (
	indexDirMode  = 0o700
	indexFileMode = 0o600
)

// mkdirIndex makes the index's folder when it is missing: private, its
// parents as usual. A folder that exists is left as it is: it may be the
// user's own (a configuration folder), and the files in it are private.
func mkdirIndex(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(dir, indexDirMode); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// createPrivate makes the index file at abs, empty, readable by its owner
// only, before SQLite opens it: SQLite makes a database file readable by
// everyone the umask allows, and its -wal and -shm with the mode of the
// database file.
func createPrivate(abs string) error {
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, indexFileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("index %s: %w", abs, err)
	}
	return f.Close()
}

type writerOptions struct {
	// check runs quick_check unless the file is as the last writer left it.
	check bool
	// rebuilding lets the rebuild open an index whose rebuild is unfinished.
	rebuilding bool
	// sealed says the file is as the last writer left it.
	sealed bool
}

// openWriter opens the index at abs under a lock the caller holds. own is
// the lock when the Writer is to release it on Close, nil when the caller
// keeps it.
func openWriter(ctx context.Context, abs string, own *fileLock, lockID, holder string, o writerOptions) (*Writer, error) {
	_, statErr := os.Stat(abs)
	fresh := errors.Is(statErr, fs.ErrNotExist)
	// Before SQLite opens the file: opening creates the -wal.
	o.sealed = own.sealMatches(abs)
	if fresh {
		if err := createPrivate(abs); err != nil {
			return nil, err
		}
	}
	// An index made by an older grimoire, or copied in, is made private
	// too: its -wal and -shm keep their mode while they exist.
	keepPrivate(abs)
	db, err := openSQL(dsn(abs,
		"_pragma=busy_timeout(10000)",
		"_pragma=journal_mode(WAL)",
		"_pragma=synchronous(NORMAL)",
		"_pragma=foreign_keys(1)",
		"_pragma=cache_size(-32000)",
		"_pragma=mmap_size(268435456)",
		"_txlock=immediate",
	))
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", abs, err)
	}
	// One connection: SQLite has one writer anyway, and a pool would only
	// trade our serialisation for SQLITE_BUSY.
	db.SetMaxOpenConns(1)
	w := &Writer{DB: DB{db: db, path: abs}, lock: own, lockID: lockID, token: newToken()}
	if err := w.init(ctx, holder, o, fresh); err != nil {
		w.lock = nil // the caller releases it
		w.Close()
		return nil, err
	}
	return w, nil
}

func (w *Writer) init(ctx context.Context, holder string, o writerOptions, fresh bool) error {
	if err := ping(ctx, w.db, w.path); err != nil {
		return err
	}
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
	// A writer recorded in the index that still runs is refused before
	// the check, which would read the whole file for nothing.
	if rec, ok, err := readWriterRecord(ctx, w.db); err == nil && ok && otherWriterRuns(rec, w.lockID) {
		return lockedError(w.path, rec.LockHolder)
	}
	if o.check && !fresh && !o.sealed {
		if err := quickCheck(ctx, w.db, w.path); err != nil {
			return err
		}
	}
	if err := migrate(ctx, w.db); err != nil {
		return ExplainDamage(fmt.Errorf("index %s: %w", w.path, err), w.path)
	}
	st, rebuilding, err := w.rebuildState(ctx)
	if err != nil {
		return ExplainDamage(fmt.Errorf("index %s: %w", w.path, err), w.path)
	}
	switch {
	case rebuilding && !o.rebuilding:
		return rebuildUnfinished(w.path)
	case rebuilding && st.Salvaged:
		w.salvage = &st
	}
	if err := w.claim(ctx, holder); err != nil {
		return ExplainDamage(err, w.path)
	}
	w.last, _ = sealOf(w.path)
	w.opened = true
	return nil
}

// noteFile records the database file as this writer leaves it after a
// write, and notices when something else changed it since the last one:
// only checkpoints, which follow this writer's commits, change the file.
func (w *Writer) noteFile(after bool) {
	now, ok := sealOf(w.path)
	if !ok {
		w.foreign = true
		return
	}
	if !after && (now.Size != w.last.Size || now.ModNS != w.last.ModNS || now.ID != w.last.ID) {
		w.foreign = true
	}
	w.last = now
}

// Close releases the writer lock and closes the database. A writer that
// opened cleanly and saw no other hand on the file seals it, so that the
// next writer need not check it again.
func (w *Writer) Close() error {
	if w.opened {
		w.mu.Lock()
		w.noteFile(false)
		w.mu.Unlock()
		w.disown(context.Background())
	}
	err := w.db.Close()
	var s *seal
	if w.opened && !w.foreign && err == nil {
		if v, ok := sealOf(w.path); ok {
			s = &v
		}
	}
	w.lock.release(s)
	return err
}

// OpenReader opens the index at path read-only. It fails with a fault.NotFound
// error when there is no index yet. An index in a folder that no one can
// write to (a read-only mount, a folder without write permission) is read
// as an unchanging snapshot.
func OpenReader(ctx context.Context, path string) (*Reader, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return nil, (&fault.Error{Code: fault.NotFound, Msg: "no index at " + abs}).
			WithHint("run `grimoire sync` to build it")
	}
	r, err := openReader(ctx, abs, false)
	if c := sqliteCode(err); c == sqliteReadOnly || c == sqliteCantOpen {
		// SQLite reads a live index through a shared-memory file beside
		// it, which it could not create.
		if why := snapshotRefused(abs); why != nil {
			return nil, why
		}
		r, err = openReader(ctx, abs, true)
	}
	return r, err
}

func openReader(ctx context.Context, abs string, snapshot bool) (*Reader, error) {
	params := []string{"mode=ro"}
	if snapshot {
		// immutable: no locks, no -shm, no WAL. Safe only because no
		// writer can start beside it (snapshotRefused).
		params = append(params, "immutable=1")
	}
	db, err := openSQL(dsn(abs, append(params,
		"_pragma=busy_timeout(10000)",
		"_pragma=cache_size(-32000)",
		"_pragma=query_only(1)",
	)...))
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

// snapshotRefused says why the index at abs cannot be read as a snapshot,
// nil when it can: no write-ahead log with content may be waiting (it
// holds committed data the file lacks), and no writer may be able to start.
func snapshotRefused(abs string) error {
	dir := filepath.Dir(abs)
	if fi, err := os.Stat(abs + "-wal"); err == nil && fi.Size() > 0 {
		return (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("index %s cannot be read from its read-only folder: a writer stopped without folding its write-ahead log (%s) into it", abs, filepath.Base(abs)+"-wal")}).
			WithHint("open it once where its folder is writable (any grimoire command does it), then make the folder read-only again")
	}
	if !readOnlyForAll(dir) {
		return (&fault.Error{Code: fault.Internal, Msg: fmt.Sprintf("index %s cannot be read by this user: SQLite must create %s in %s", abs, filepath.Base(abs)+"-shm", dir)}).
			WithHint("let this user write to that folder, or make it read-only for everyone (chmod a-w) to read the index as a snapshot")
	}
	return nil
}

func (r *Reader) init(ctx context.Context) error {
	if err := ping(ctx, r.db, r.path); err != nil {
		return err
	}
	if err := checkFTS5(ctx, r.db); err != nil {
		return fmt.Errorf("index %s: %w", r.path, err)
	}
	v, err := userVersion(ctx, r.db)
	if err != nil {
		return ExplainDamage(fmt.Errorf("index %s: %w", r.path, err), r.path)
	}
	switch {
	case v == 0:
		return (&fault.Error{Code: fault.NotFound, Msg: "index " + r.path + " is empty"}).
			WithHint("run `grimoire sync` to build it")
	case v < SchemaVersion():
		return (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("index %s has schema version %d, this grimoire needs %d", r.path, v, SchemaVersion()), Err: ErrOutdated}).
			WithHint("run `grimoire sync` once to upgrade it")
	case v > SchemaVersion():
		return (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("index %s has schema version %d, newer than this grimoire (%d)", r.path, v, SchemaVersion())}).
			WithHint("upgrade grimoire")
	}
	return nil
}

// ErrOutdated is matched by errors.Is when a reader meets an index written
// by an older grimoire; opening a writer upgrades it.
var ErrOutdated = errors.New("older schema")

// checkFTS5 runs after ping, so an error here is about FTS5 alone.
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
