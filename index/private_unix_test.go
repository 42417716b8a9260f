//go:build unix

package index

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestIndexIsPrivate: whatever the umask, the index's folder (when the
// index makes it) is its owner's alone, and the database, its -wal and
// -shm, the lock file and a rebuild's files are readable by the owner
// only; an index made readable by all is made private by the next writer.
func TestIndexIsPrivate(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	ctx := context.Background()
	tests := []struct {
		name string
		// prepare makes what is there before the writer opens the index
		// at db.
		prepare func(t *testing.T, db string)
		// open opens the writer.
		open func(t *testing.T, db string) (*Writer, error)
		// dirMode is the folder's mode afterwards.
		dirMode os.FileMode
	}{
		{
			name:    "a new index in a new folder",
			prepare: func(*testing.T, string) {},
			dirMode: 0o700,
		},
		{
			name: "an index readable by all, in the user's folder",
			prepare: func(t *testing.T, db string) {
				if err := os.Mkdir(filepath.Dir(db), 0o755); err != nil {
					t.Fatal(err)
				}
				w, err := OpenWriter(ctx, db, "grimoire test")
				if err != nil {
					t.Fatal(err)
				}
				// Keep a -wal and -shm behind, as a crash does.
				r, err := OpenReader(ctx, db)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := r.db.ExecContext(ctx, "SELECT count(*) FROM meta"); err != nil {
					t.Fatal(err)
				}
				w.Close()
				defer r.Close()
				for _, p := range []string{db, db + "-wal", db + "-shm", db + ".lock"} {
					if err := os.Chmod(p, 0o644); err != nil && !os.IsNotExist(err) {
						t.Fatal(err)
					}
				}
			},
			dirMode: 0o755,
		},
		{
			name:    "a rebuild",
			prepare: func(*testing.T, string) {},
			open: func(t *testing.T, db string) (*Writer, error) {
				w, err := OpenWriter(ctx, db, "grimoire test")
				if err != nil {
					t.Fatal(err)
				}
				w.Close()
				os.Chmod(db, 0o644)
				return Rebuild(ctx, db, "grimoire rebuild")
			},
			dirMode: 0o700,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), ".grimoire", "grimoire.db")
			tc.prepare(t, db)
			open := tc.open
			if open == nil {
				open = func(t *testing.T, db string) (*Writer, error) { return OpenWriter(ctx, db, "grimoire test") }
			}
			w, err := open(t, db)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.SetMeta(ctx, "test", "x"); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Dir(db)
			if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != tc.dirMode {
				t.Errorf("folder mode %v, want %v (%v)", fi.Mode().Perm(), tc.dirMode, err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, e := range entries {
				fi, err := os.Lstat(filepath.Join(dir, e.Name()))
				if err != nil || !fi.Mode().IsRegular() {
					continue
				}
				seen[e.Name()] = true
				if fi.Mode().Perm() != 0o600 {
					t.Errorf("%s: mode %v, want 0600", e.Name(), fi.Mode().Perm())
				}
			}
			for _, name := range []string{"grimoire.db", "grimoire.db-wal", "grimoire.db-shm", "grimoire.db.lock"} {
				if !seen[name] {
					t.Errorf("no %s (%v)", name, seen)
				}
			}
		})
	}
}
