package index

import (
	"os"
	"path/filepath"
	"testing"
)

// fileID, by which a writer notices its lock file replaced, is the same
// for two opens of one file and differs for another file.
func TestFileID(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) *os.File {
		t.Helper()
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, again, b := open("a.lock"), open("a.lock"), open("b.lock")
	id := fileID(a)
	if id == "" {
		t.Fatal("no identity for an open file")
	}
	if got := fileID(again); got != id {
		t.Errorf("one file, two identities: %q and %q", id, got)
	}
	if got := fileID(b); got == id {
		t.Errorf("two files, one identity %q", id)
	}
}
