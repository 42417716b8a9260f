//go:build unix

package libfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOpenNeverLeavesTheLibrary swaps the book, or a folder above it, for
// what an attacker would put there after a scan, and checks that Open
// refuses it at once, reading nothing from outside.
func TestOpenNeverLeavesTheLibrary(t *testing.T) {
	for _, tc := range []struct {
		name  string
		swap  func(t *testing.T, root, book, outside string)
		err   error
		root  bool // needs root
		fresh bool // the swapped-in file is what the caller expects
	}{
		{name: "book is a link to a file outside", err: ErrLink, swap: func(t *testing.T, root, book, outside string) {
			replace(t, book, func(p string) error { return os.Symlink(outside, p) })
		}},
		{name: "book is a link to /dev/zero", err: ErrLink, swap: func(t *testing.T, root, book, outside string) {
			replace(t, book, func(p string) error { return os.Symlink("/dev/zero", p) })
		}},
		{name: "book is a FIFO", err: ErrNotRegular, swap: func(t *testing.T, root, book, outside string) {
			replace(t, book, func(p string) error { return unix.Mkfifo(p, 0o644) })
		}},
		{name: "book is a character device", err: ErrNotRegular, root: true, swap: func(t *testing.T, root, book, outside string) {
			replace(t, book, func(p string) error { return unix.Mknod(p, unix.S_IFCHR|0o644, int(unix.Mkdev(1, 5))) })
		}},
		{name: "folder is a link to a folder outside", err: ErrLink, fresh: true, swap: func(t *testing.T, root, book, outside string) {
			dir := filepath.Dir(outside)
			if err := os.WriteFile(filepath.Join(dir, "book.md"), []byte("# Secret\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sub := filepath.Dir(book)
			if err := os.Rename(sub, sub+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(dir, sub); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "folder is a file", err: ErrChanged, swap: func(t *testing.T, root, book, outside string) {
			sub := filepath.Dir(book)
			if err := os.Rename(sub, sub+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(sub, []byte("# Sub\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "folder is a FIFO", err: ErrNotRegular, swap: func(t *testing.T, root, book, outside string) {
			sub := filepath.Dir(book)
			if err := os.Rename(sub, sub+".old"); err != nil {
				t.Fatal(err)
			}
			if err := unix.Mkfifo(sub, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("making a device needs root")
			}
			root, book := library(t)
			want := wantOf(t, book)
			outside := filepath.Join(t.TempDir(), "secret.md")
			if err := os.WriteFile(outside, []byte("# Secret\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			tc.swap(t, root, book, outside)
			if tc.fresh {
				// The caller's expectation fits what is there now: only
				// the walk from the root can tell.
				want = wantOf(t, book)
			}
			done := make(chan error, 1)
			go func() {
				data, err := ReadFile(context.Background(), root, book, want)
				if err == nil {
					err = errors.New("read " + string(data))
				}
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, tc.err) {
					t.Fatalf("ReadFile: %v; want %v", err, tc.err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("ReadFile blocked")
			}
		})
	}
}

func TestOpenFollowsALinkedRoot(t *testing.T) {
	root, book := library(t)
	link := filepath.Join(t.TempDir(), "books")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(link, "sub", "book.md")
	if _, err := ReadFile(context.Background(), link, path, wantOf(t, book)); err != nil {
		t.Fatalf("library folder reached through a link the user chose: %v", err)
	}
}

// replace puts something else at path, as an attacker with write access to
// the library would between a scan and a read.
func replace(t *testing.T, path string, make func(string) error) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := make(path); err != nil {
		t.Fatal(err)
	}
}
