package libfile

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkOpen compares reading a small book three folders below the root
// through Open with a plain os.Open, the cost of walking down the folders
// one by one.
func BenchmarkOpen(b *testing.B) {
	root := b.TempDir()
	path := filepath.Join(root, "a", "b", "c", "book.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("# Book\n\nsmall\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		b.Fatal(err)
	}
	want := Want{Size: fi.Size()}
	want.Dev, want.Ino = IDOf(fi)
	buf := make([]byte, 1<<20)
	b.Run("libfile", func(b *testing.B) {
		for b.Loop() {
			f, err := Open(root, path, want)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.CopyBuffer(io.Discard, f.Reader(context.Background()), buf); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	b.Run("os.Open", func(b *testing.B) {
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.CopyBuffer(io.Discard, f, buf); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
}
