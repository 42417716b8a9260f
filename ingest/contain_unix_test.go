//go:build unix

package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/library"
)

// TestSwapBetweenScanAndIngest replaces a scanned book before ingest reads
// it. Ingest must neither block nor read past what the scan saw nor read
// through a link, even to bytes that hash the same.
func TestSwapBetweenScanAndIngest(t *testing.T) {
	const content = "# Notes\n\nharmless words\n"
	for _, tc := range []struct {
		name string
		swap func(t *testing.T, book, outside string)
	}{
		{"FIFO", func(t *testing.T, book, outside string) {
			swapFor(t, book, func(p string) error { return syscall.Mkfifo(p, 0o644) })
		}},
		{"link to /dev/zero", func(t *testing.T, book, outside string) {
			swapFor(t, book, func(p string) error { return os.Symlink("/dev/zero", p) })
		}},
		{"link to a copy outside", func(t *testing.T, book, outside string) {
			swapFor(t, book, func(p string) error { return os.Symlink(outside, p) })
		}},
		{"folder swapped for a link to a copy outside", func(t *testing.T, book, outside string) {
			sub := filepath.Dir(book)
			if err := os.Rename(sub, sub+"-moved"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Dir(outside), sub); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newTestLibrary(t)
			book := l.write("sub/notes.md", []byte(content))
			outside := filepath.Join(t.TempDir(), "notes.md")
			if err := os.WriteFile(outside, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			l.reconcile()
			tc.swap(t, book, outside)

			type outcome struct {
				res Result
				err error
			}
			done := make(chan outcome, 1)
			go func() {
				res, err := l.ingest(context.Background())
				done <- outcome{res, err}
			}()
			var o outcome
			select {
			case o = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("ingest did not finish")
			}
			if o.err != nil {
				t.Fatal(o.err)
			}
			if o.res.Ingested != 0 || len(o.res.Failures) != 1 || o.res.Failures[0].Path != book {
				t.Fatalf("ingested %d, failures %+v", o.res.Ingested, o.res.Failures)
			}
			if b := l.books(); len(b) != 1 || b[0].Status != library.Pending {
				t.Errorf("books %+v: want the book left pending for the next sync", b)
			}
			if !strings.Contains(o.res.Failures[0].Error, "not read") {
				t.Errorf("failure %q", o.res.Failures[0].Error)
			}
		})
	}
}

// swapFor puts something else at path.
func swapFor(t *testing.T, path string, make func(string) error) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := make(path); err != nil {
		t.Fatal(err)
	}
}
