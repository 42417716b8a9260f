//go:build unix

package reconcile

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/library"
)

// onMessage runs fn, once, in the goroutine that logs msg: a test can act at
// an exact point of a run.
type onMessage struct {
	slog.Handler
	msg  string
	fn   func()
	once sync.Once
}

func (h *onMessage) Enabled(context.Context, slog.Level) bool { return true }

func (h *onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(h.fn)
	}
	return nil
}

// TestSwapBetweenScanAndHash replaces a just-written book while the hasher
// waits for its mtime to settle, after the walk saw a regular file. Nothing
// from outside the library may be indexed, and the run must finish.
func TestSwapBetweenScanAndHash(t *testing.T) {
	for _, tc := range []struct {
		name string
		swap func(t *testing.T, book, outside string)
	}{
		{"link to a file outside", func(t *testing.T, book, outside string) {
			replaceWith(t, book, func(p string) error { return os.Symlink(outside, p) })
		}},
		{"link to /dev/zero", func(t *testing.T, book, outside string) {
			replaceWith(t, book, func(p string) error { return os.Symlink("/dev/zero", p) })
		}},
		{"FIFO", func(t *testing.T, book, outside string) {
			replaceWith(t, book, func(p string) error { return syscall.Mkfifo(p, 0o644) })
		}},
		{"folder swapped for a link to a folder outside", func(t *testing.T, book, outside string) {
			sub := filepath.Dir(book)
			if err := os.Rename(sub, sub+"-moved"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Dir(outside), sub); err != nil {
				t.Fatal(err)
			}
		}},
		{"another file renamed over it", func(t *testing.T, book, outside string) {
			other := filepath.Join(filepath.Dir(book), "other.tmp")
			if err := os.WriteFile(other, []byte("# Notes\n\nswapped in\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, book); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			book := filepath.Join(f.root, "sub", "notes.md")
			if err := os.MkdirAll(filepath.Dir(book), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(book, []byte("# Notes\n\nharmless\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(t.TempDir(), "notes.md")
			secret := "# Secret\n\nthe launch code\n"
			if err := os.WriteFile(outside, []byte(secret), 0o644); err != nil {
				t.Fatal(err)
			}
			// Just written: the hasher waits for the racy window, and
			// the swap happens as it starts to wait.
			now := time.Now()
			if err := os.Chtimes(book, now, now); err != nil {
				t.Fatal(err)
			}
			f.opts.RacyWindow = 200 * time.Millisecond
			f.opts.Logger = slog.New(&onMessage{Handler: slog.DiscardHandler, msg: msgSettling, fn: func() { tc.swap(t, book, outside) }})

			done := make(chan Result, 1)
			go func() {
				r, err := Run(context.Background(), f.w, f.opts)
				if err != nil {
					t.Error(err)
				}
				done <- r
			}()
			var r Result
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("reconcile did not finish")
			}
			expect(t, r, library.Counters{Scanned: 1, Hashed: 1, Skipped: 1})
			files, err := f.w.Files(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != 0 {
				t.Errorf("file rows after the swap: %+v", files)
			}
			if f.books() != 0 {
				t.Errorf("%d books from a file swapped after the scan", f.books())
			}
		})
	}
}

// replaceWith puts something else at path.
func replaceWith(t *testing.T, path string, make func(string) error) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := make(path); err != nil {
		t.Fatal(err)
	}
}

// TestPathsFileReplacedByFIFO: a watched book swapped for a FIFO is gone.
func TestPathsFileReplacedByFIFO(t *testing.T) {
	f := newFixture(t)
	f.write("a.txt", "alpha")
	f.write("b.txt", "beta")
	f.run()
	p := filepath.Join(f.root, "a.txt")
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	r, err := Paths(context.Background(), f.w, f.opts, []string{p})
	if err != nil {
		t.Fatal(err)
	}
	if r.Removed != 1 {
		t.Errorf("counters %+v, want the FIFO's path removed", r.Counters)
	}
}
