//go:build unix

package watcher

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadNamesOfAFIFO counts the entries of a folder that was swapped for
// a FIFO after it was listed: the count must fail at once, not wait for a
// writer that never comes.
func TestReadNamesOfAFIFO(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sub")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if n, err := readNames(dir); n != 0 || err != nil {
		t.Fatalf("empty folder: %d names, %v", n, err)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(dir, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := readNames(dir)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a FIFO was listed as a folder")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("readNames blocked on a FIFO")
	}
}
