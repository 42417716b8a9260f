package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest/embed"
	"github.com/grimoire-search/grimoire/reconcile"
)

// testLibrary is a library folder with its index, for tests that run
// reconcile and ingest as sync does.
type testLibrary struct {
	t    *testing.T
	root string
	w    *index.Writer
}

func newTestLibrary(t *testing.T) *testLibrary {
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
	opts := reconcile.Options{Roots: []string{l.root}, TypeOf: SourceType, RacyWindow: time.Millisecond}
	if _, err := reconcile.Run(context.Background(), l.w, opts); err != nil {
		l.t.Fatal(err)
	}
}

func (l *testLibrary) ingest(ctx context.Context) (Result, error) {
	return Run(ctx, l.w, Options{Embedder: embed.NewBuiltin()})
}

func (l *testLibrary) books() []index.Book {
	l.t.Helper()
	books, err := l.w.Books(context.Background(), index.BookFilter{})
	if err != nil {
		l.t.Fatal(err)
	}
	return books
}

// epubOf makes a small EPUB 3 whose one chapter holds text.
func epubOf(t *testing.T, title, text string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range []struct{ name, body string }{
		{"mimetype", "application/epub+zip"},
		{"META-INF/container.xml", `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`},
		{"OEBPS/content.opf", `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:test</dc:identifier>
    <dc:title>` + title + `</dc:title>
  </metadata>
  <manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>
  <spine><itemref idref="c1"/></spine>
</package>`},
		{"OEBPS/c1.xhtml", `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head>
<body><h1>One</h1><p>` + text + `</p></body></html>`},
	} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
