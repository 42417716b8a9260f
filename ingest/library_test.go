package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/reconcile"
)

// testLibrary is a library folder with its index, for tests that run
// reconcile and ingest as sync does.
type testLibrary struct {
	t    testing.TB
	root string
	w    *index.Writer
}

func newTestLibrary(t testing.TB) *testLibrary {
	t.Helper()
	root := filepath.Join(t.TempDir(), "lib")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := index.OpenWriter(context.Background(), filepath.Join(t.TempDir(), "g.db"), "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &testLibrary{t: t, root: root, w: w}
}

// write puts a file in the library with an mtime safely in the past.
func (l *testLibrary) write(rel string, data []byte) string {
	l.t.Helper()
	p := filepath.Join(l.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		l.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		l.t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		l.t.Fatal(err)
	}
	return p
}

func (l *testLibrary) reconcile() {
	l.t.Helper()
	opts := reconcile.Options{Roots: []string{l.root}, Formats: Formats(), RacyWindow: time.Millisecond}
	if _, err := reconcile.Run(context.Background(), l.w, opts); err != nil {
		l.t.Fatal(err)
	}
}

func (l *testLibrary) ingest(ctx context.Context) (Result, error) {
	return Run(ctx, l.w, Options{Embedder: embed.NewBuiltin()})
}

func (l *testLibrary) books() []library.Book {
	l.t.Helper()
	books, err := l.w.Books(context.Background(), index.BookFilter{})
	if err != nil {
		l.t.Fatal(err)
	}
	return books
}
