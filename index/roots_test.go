package index

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/grimoire-search/grimoire/library"
)

// TestRememberedFolders: an index from before mount points were
// remembered says which library folders it knows before any upgrade,
// and after the upgrade keeps its library folders and learns mount
// points beside them.
func TestRememberedFolders(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.db")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range append(migrations[:18:18],
		`INSERT INTO library_root(path, device, inode) VALUES ('/lib', 1, 2)`,
		`INSERT INTO file(path, root, hash, size, mtime_ns, inode, verified_ns) VALUES ('/old/a.txt', '/old', 'h', 1, 0, 0, 0)`,
		`PRAGMA user_version = 18`) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	for _, tc := range []struct {
		folder string
		known  bool
	}{{"/lib", true}, {"/old", true}, {"/lib/nas", false}, {"/Lib", false}} {
		if known, err := RemembersFolder(ctx, path, tc.folder); err != nil || known != tc.known {
			t.Errorf("RemembersFolder(%s) = %v, %v; want %v", tc.folder, known, err, tc.known)
		}
	}

	w, err := OpenWriter(ctx, path, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Update(ctx, func(tx *Tx) error {
		if err := tx.TrustMount(ctx, "/lib/nas", library.RootIdentity{Device: 7, Inode: 1}); err != nil {
			return err
		}
		return tx.HoldRemovals(ctx, "/lib/nas", "unmounted", 3)
	})
	if err != nil {
		t.Fatal(err)
	}
	roots, err := w.LibraryRoots(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lib, nas := roots["/lib"], roots["/lib/nas"]
	if lib.Mount || lib.Identity != (library.RootIdentity{Device: 1, Inode: 2}) {
		t.Errorf("library folder after the upgrade: %+v", lib)
	}
	if !nas.Mount || nas.Identity != (library.RootIdentity{Device: 7, Inode: 1}) || nas.Hold == nil || nas.Hold.Files != 3 {
		t.Errorf("mount point: %+v", nas)
	}
	if holds, err := w.Holds(ctx); err != nil || len(holds) != 1 || holds[0].Root != "/lib/nas" {
		t.Errorf("holds %+v, %v", holds, err)
	}
}
