package zotero

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the SQLite driver, "sqlite"
)

// copyAttempts is how many times Open copies a file that changes while it
// is copied before it gives up on it.
const copyAttempts = 3

// errChanging is the reason a file was given up on: Zotero kept writing it.
var errChanging = errors.New("kept changing while it was copied")

// errScratch marks a failure to make the copy in the scratch folder: the
// backup would fail the same way, so Open does not try it.
var errScratch = errors.New("scratch folder")

// hooks are what tests change of Open's behaviour.
type hooks struct {
	// copied runs after each copy of the file at src, before the files
	// are looked at again: a test makes the file change there.
	copied func(src string)
	// pause is the wait before copying again a file that changed.
	pause time.Duration
}

// Open reads the library in dir without ever writing to Zotero's files or
// taking a SQLite lock on them. It copies DB, with its -journal or -wal
// when present, to a folder in o.Scratch, checking that the files did not
// change during the copy (and copying again a few times when they did),
// opens the copy read-write (a hot journal copied with it rolls back
// there: it is ours), reads everything, and removes the copy. When no
// consistent copy can be had, or the copy is no Zotero database, it reads
// Backup the same way and says why in Library.Read. Errors name the file
// and the reason.
func Open(ctx context.Context, dir string, o Options) (*Library, error) {
	return open(ctx, dir, o, hooks{pause: 20 * time.Millisecond})
}

func open(ctx context.Context, dir string, o Options, h hooks) (*Library, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("zotero: %w", err)
	}
	dbPath := filepath.Join(abs, DB)
	fi, err := os.Lstat(dbPath)
	if err != nil {
		return nil, fmt.Errorf("zotero: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("zotero: %s: not a regular file", dbPath)
	}
	locked := lockedByOther(dbPath)
	lib, mod, err := readFile(ctx, abs, dbPath, o, h)
	if err == nil {
		lib.Dir = dir
		lib.Read = Read{From: FromDatabase, Locked: locked, ModTime: mod}
		return lib, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if errors.Is(err, errScratch) {
		return nil, fmt.Errorf("zotero: copying %s: %w", dbPath, err)
	}
	why := reason(err)
	bakPath := filepath.Join(abs, Backup)
	if _, serr := os.Lstat(bakPath); serr != nil {
		return nil, fmt.Errorf("zotero: %s: %w (and no %s to read instead)", dbPath, err, Backup)
	}
	lib, mod, berr := readFile(ctx, abs, bakPath, o, h)
	if berr != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("zotero: %s: %w; %s: %w", dbPath, err, bakPath, berr)
	}
	lib.Dir = dir
	lib.Read = Read{From: FromBackup, Locked: locked, ModTime: mod, Why: why}
	return lib, nil
}

// reason is why DB was not read, for Read.Why.
func reason(err error) string {
	if errors.Is(err, errChanging) {
		return DB + " " + err.Error()
	}
	return DB + ": " + err.Error()
}

// readFile reads the library from a snapshot of the database at src (DB
// or Backup) and returns it with the modification time of src as copied.
func readFile(ctx context.Context, dir, src string, o Options, h hooks) (*Library, time.Time, error) {
	scratch, err := os.MkdirTemp(o.Scratch, "zotero-snapshot-")
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: %w", errScratch, err)
	}
	defer os.RemoveAll(scratch)

	cp := filepath.Join(scratch, DB)
	mod, err := snapshot(ctx, src, cp, h)
	if err != nil {
		return nil, time.Time{}, err
	}
	db, err := sql.Open("sqlite", dsn(cp))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("does not open as SQLite: %w", err)
	}
	defer db.Close()
	// One connection: the copy is read in one go, and a second one would
	// only add locking between them.
	db.SetMaxOpenConns(1)
	lib, err := read(ctx, db, dir, o)
	if err != nil {
		return nil, time.Time{}, err
	}
	return lib, mod, nil
}

// dsn names the copy at p for the driver: as a URI, so that a '?' or '#'
// in the scratch folder's path is not taken for the query.
func dsn(p string) string {
	u := url.URL{Path: filepath.ToSlash(p)}
	return "file:" + u.EscapedPath() + "?_pragma=busy_timeout(1000)"
}

// state is what tells whether a file changed between two looks at it.
type state struct {
	exists bool
	info   fs.FileInfo
	// header is the start of the file: a database's change counter, which
	// SQLite moves at every commit, is there, so that a change within a
	// coarse modification time is seen too.
	header [100]byte
}

// look looks at the file at p, a regular file or none (see openOwn).
func look(p string) (state, error) {
	var s state
	f, err := openOwn(p)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return s, err
	}
	s.exists, s.info = true, fi
	if _, err := io.ReadFull(f, s.header[:]); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return s, err
	}
	return s, nil
}

func (s state) same(t state) bool {
	if s.exists != t.exists {
		return false
	}
	if !s.exists {
		return true
	}
	return os.SameFile(s.info, t.info) && s.info.Size() == t.info.Size() &&
		s.info.ModTime().Equal(t.info.ModTime()) && s.header == t.header
}

// snapshot copies the database at src and its companions to dst, trying
// again while they change under it, and returns src's modification time.
func snapshot(ctx context.Context, src, dst string, h hooks) (time.Time, error) {
	paths := companions(src)
	for attempt := range copyAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return time.Time{}, ctx.Err()
			case <-time.After(h.pause * time.Duration(attempt)):
			}
		}
		before, err := lookAll(paths)
		if err != nil {
			return time.Time{}, err
		}
		if !before[0].exists {
			return time.Time{}, fmt.Errorf("%s: %w", src, fs.ErrNotExist)
		}
		for i, p := range paths {
			target := dst + p[len(src):]
			os.Remove(target)
			if before[i].exists {
				if err := copyFile(ctx, p, target); err != nil {
					return time.Time{}, err
				}
			}
		}
		if h.copied != nil {
			h.copied(src)
		}
		after, err := lookAll(paths)
		if err != nil {
			return time.Time{}, err
		}
		same := true
		for i := range before {
			same = same && before[i].same(after[i])
		}
		if same {
			return before[0].info.ModTime(), nil
		}
	}
	return time.Time{}, errChanging
}

// companions are the database at src and the files SQLite keeps beside
// it while it is written, a rollback journal or a write-ahead log: the
// database's pages make sense only with them.
func companions(src string) []string {
	return []string{src, src + "-journal", src + "-wal"}
}

// Stamp tells the database in dir and its companions apart from what
// they were when it changes: Zotero writes one of them at every edit.
func Stamp(dir string) string {
	var b strings.Builder
	for _, p := range companions(filepath.Join(dir, DB)) {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%s %d %d;", filepath.Base(p), fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
}

func lookAll(paths []string) ([]state, error) {
	out := make([]state, len(paths))
	for i, p := range paths {
		s, err := look(p)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// copyFile copies src to a new file dst, stopping when ctx is done: a
// library's database may hold hundreds of megabytes.
func copyFile(ctx context.Context, src, dst string) error {
	in, err := openOwn(src)
	if err != nil {
		return fmt.Errorf("copying: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("copying: %w: %w", errScratch, err)
	}
	if _, err := io.Copy(scratchWriter{out}, ctxReader{ctx, in}); err != nil {
		out.Close()
		return fmt.Errorf("copying: %w", err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("copying: %w: %w", errScratch, err)
	}
	return nil
}

// scratchWriter marks the errors of writing the copy as the scratch
// folder's (a full disk), apart from those of reading Zotero's file.
type scratchWriter struct{ w io.Writer }

func (s scratchWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		err = fmt.Errorf("%w: %w", errScratch, err)
	}
	return n, err
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
