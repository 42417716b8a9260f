//go:build unix || windows

package reconcile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/grimoire-search/grimoire/library"
)

// A library folder is known by its identity (device and inode; on Windows
// volume serial and file index): the same after a rename, another for a
// folder put in its place.
func TestFolderIdentity(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	identity := func(p string) library.RootIdentity {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return folderIdentity(p, fi)
	}
	first := identity(lib)
	if first.Inode == 0 {
		t.Fatalf("no identity for a folder: %+v", first)
	}
	if again := identity(lib); again != first {
		t.Errorf("identity %+v, then %+v", first, again)
	}
	moved := filepath.Join(dir, "moved")
	if err := os.Rename(lib, moved); err != nil {
		t.Fatal(err)
	}
	if got := identity(moved); got != first {
		t.Errorf("renamed: identity %+v, want %+v", got, first)
	}
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := identity(lib); got == first {
		t.Errorf("a new folder in its place has the old identity %+v", got)
	}
}
