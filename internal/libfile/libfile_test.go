package libfile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// library makes a library folder with one book in a sub-folder, and returns
// the root and the book's path.
func library(t *testing.T) (root, book string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "lib")
	book = filepath.Join(root, "sub", "book.md")
	if err := os.MkdirAll(filepath.Dir(book), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(book, []byte("# Book\n\ninside the library\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, book
}

// wantOf is what a scan would have seen of path.
func wantOf(t *testing.T, path string) Want {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	w := Want{Size: fi.Size()}
	w.Dev, w.Ino = IDOf(fi)
	return w
}

func TestReadFile(t *testing.T) {
	root, book := library(t)
	want := wantOf(t, book)
	data, err := ReadFile(context.Background(), root, book, want)
	if err != nil || string(data) != "# Book\n\ninside the library\n" {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	other := filepath.Join(root, "other.md")
	if err := os.WriteFile(other, []byte("# Other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	otherWant := wantOf(t, other)

	for _, tc := range []struct {
		name string
		root string
		path string
		want Want
		err  error
	}{
		{"outside the root", root, filepath.Join(filepath.Dir(root), "x.md"), want, ErrOutside},
		{"the root itself", root, root, want, ErrOutside},
		{"a folder", root, filepath.Join(root, "sub"), want, ErrNotRegular},
		{"missing", root, filepath.Join(root, "sub", "gone.md"), want, fs.ErrNotExist},
		{"another size", root, book, Want{Size: want.Size + 1, Dev: want.Dev, Ino: want.Ino}, ErrChanged},
		{"another file", root, book, Want{Size: want.Size, Dev: otherWant.Dev, Ino: otherWant.Ino}, ErrChanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "another file" && otherWant.Ino == 0 {
				t.Skip("no file IDs from a stat on this system")
			}
			data, err := ReadFile(context.Background(), tc.root, tc.path, tc.want)
			if !errors.Is(err, tc.err) {
				t.Fatalf("ReadFile = %q, %v; want %v", data, err, tc.err)
			}
		})
	}
}

func TestReaderSeesGrowthAndShrinking(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(path string) error
	}{
		{"grew", func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString("appended after the scan\n")
			return err
		}},
		{"shrank", func(p string) error { return os.Truncate(p, 3) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, book := library(t)
			f, err := Open(root, book, wantOf(t, book))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := tc.change(book); err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(io.Discard, f.Reader(context.Background()))
			if !errors.Is(err, ErrChanged) {
				t.Fatalf("read %d bytes, err %v; want ErrChanged", n, err)
			}
			if n > f.Info().Size {
				t.Errorf("read %d bytes of a file scanned at %d", n, f.Info().Size)
			}
		})
	}
}

func TestReaderStopsWhenCancelled(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "big.txt")
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), 4*chunk), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(root, path, wantOf(t, path))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	r := f.Reader(ctx)
	buf := make([]byte, chunk)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	if n, err := r.Read(buf); n != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %d bytes, %v", n, err)
	}
	if _, err := ReadFile(ctx, root, path, wantOf(t, path)); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadFile with a cancelled context: %v", err)
	}
}
