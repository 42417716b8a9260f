package index

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/library"
)

// LibraryRoot is what the index remembers of a library folder, or of a
// folder below one that is a mount point.
type LibraryRoot struct {
	Path string
	// Mount: the folder lies below a library folder and was a mount point
	// (of another device than its parent) when its files were last
	// trusted; its removals are judged as a library folder's.
	Mount bool
	// Identity is the folder's identity when its files were last trusted;
	// zero before the first pass that saw it.
	Identity library.RootIdentity
	// Hold is the removal held back under it; nil when none is.
	Hold *library.Hold
}

// LibraryRoots returns every remembered library folder, keyed by path.
func (d *DB) LibraryRoots(ctx context.Context) (map[string]LibraryRoot, error) {
	rows, err := d.db.QueryContext(ctx,
		`SELECT path, device, inode, held, held_files, held_since, mount FROM library_root`)
	if err != nil {
		return nil, fmt.Errorf("load library folders: %w", err)
	}
	defer rows.Close()
	out := make(map[string]LibraryRoot)
	for rows.Next() {
		var r LibraryRoot
		var dev, ino, since int64
		var reason string
		var files int
		if err := rows.Scan(&r.Path, &dev, &ino, &reason, &files, &since, &r.Mount); err != nil {
			return nil, fmt.Errorf("load library folders: %w", err)
		}
		r.Identity = library.RootIdentity{Device: uint64(dev), Inode: uint64(ino)}
		if reason != "" {
			r.Hold = &library.Hold{Root: r.Path, Reason: reason, Files: files, Since: time.Unix(0, since).UTC()}
		}
		out[r.Path] = r
	}
	return out, rows.Err()
}

// Holds returns the removals held back, by folder.
func (d *DB) Holds(ctx context.Context) ([]library.Hold, error) {
	roots, err := d.LibraryRoots(ctx)
	if err != nil {
		return nil, err
	}
	var out []library.Hold
	for _, r := range roots {
		if r.Hold != nil {
			out = append(out, *r.Hold)
		}
	}
	slices.SortFunc(out, func(a, b library.Hold) int { return strings.Compare(a.Root, b.Root) })
	return out, nil
}

// TrustRoot records a library folder's identity as the one its files
// belong to and clears any hold under it: a pass saw the folder and
// applied every removal under it.
func (t *Tx) TrustRoot(ctx context.Context, path string, id library.RootIdentity) error {
	return t.trustFolder(ctx, path, id, false)
}

// TrustMount is TrustRoot for a folder below a library folder that is a
// mount point: remembered as one, so that a later pass that finds it
// missing, emptied or unmounted holds the removals under it.
func (t *Tx) TrustMount(ctx context.Context, path string, id library.RootIdentity) error {
	return t.trustFolder(ctx, path, id, true)
}

func (t *Tx) trustFolder(ctx context.Context, path string, id library.RootIdentity, mount bool) error {
	_, err := t.tx.ExecContext(ctx, `
INSERT INTO library_root(path, device, inode, mount) VALUES (?, ?, ?, ?)
ON CONFLICT(path) DO UPDATE SET device = excluded.device, inode = excluded.inode, mount = excluded.mount,
	held = '', held_files = 0, held_since = 0`, path, int64(id.Device), int64(id.Inode), mount)
	if err != nil {
		what := "library folder"
		if mount {
			what = "mount point"
		}
		return fmt.Errorf("remember %s %s: %w", what, path, err)
	}
	return nil
}

// RemembersFolder reports whether the index at path knows folder as a
// library folder: one a pass has looked at, or that files were found in.
// A folder it does not know that does not exist is a misspelt one, not an
// unmounted drive. It reads an index of any schema since folders were
// remembered (7), so that it answers before a writer upgrades the index,
// and writes nothing.
func RemembersFolder(ctx context.Context, path, folder string) (bool, error) {
	db, err := openSQL(dsn(path, "mode=ro", "_pragma=busy_timeout(10000)", "_pragma=query_only(1)"))
	if err != nil {
		return false, fmt.Errorf("index %s: %w", path, err)
	}
	defer db.Close()
	var known bool
	err = db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM library_root WHERE path = ?1)
	OR EXISTS (SELECT 1 FROM file WHERE root = ?1)`, folder).Scan(&known)
	if err != nil {
		return false, fmt.Errorf("index %s: look up library folder %s: %w", path, folder, err)
	}
	return known, nil
}

// HoldRemovals records that files under a folder are gone but were kept,
// and why. The folder's remembered identity stays as it was. A hold that
// is already there keeps its start time.
func (t *Tx) HoldRemovals(ctx context.Context, root, reason string, files int) error {
	_, err := t.tx.ExecContext(ctx, `
INSERT INTO library_root(path, held, held_files, held_since) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT(path) DO UPDATE SET held = ?2, held_files = ?3,
	held_since = CASE WHEN held_since = 0 THEN ?4 ELSE held_since END`, root, reason, files, t.now)
	if err != nil {
		return fmt.Errorf("hold removals under %s: %w", root, err)
	}
	return nil
}

// ForgetRoot drops what the index remembers of a folder that is no longer
// in the library and holds no file.
func (t *Tx) ForgetRoot(ctx context.Context, path string) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM library_root WHERE path = ?`, path); err != nil {
		return fmt.Errorf("forget library folder %s: %w", path, err)
	}
	return nil
}
