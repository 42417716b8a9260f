package ingest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testbook"
	"github.com/grimoire-search/grimoire/library"
)

// TestSameBytesUnderSeveralExtensions checks that a content held by paths
// of different formats is parsed by whichever of those formats reads it,
// and that a failure blames each path for its own format only.
func TestSameBytesUnderSeveralExtensions(t *testing.T) {
	markdown := []byte("# Harbour Notes\n\nThe ferry leaves at dawn.\n")
	junk := []byte("neither a zip archive nor a PDF \x00\x01\x02")
	for _, tc := range []struct {
		name     string
		files    map[string][]byte
		status   library.BookStatus
		typ      string
		failures map[string]string // base name → part of its error
	}{
		{
			name:   "Markdown bytes as .md and .epub",
			files:  map[string][]byte{"x.epub": markdown, "x.md": markdown},
			status: library.Ready, typ: "markdown",
		},
		{
			name: "EPUB bytes as .epub and .pdf",
			// The PDF path comes first: its type may not stick to the book.
			files:  map[string][]byte{"copy.pdf": nil, "novel.epub": nil}, // filled below
			status: library.Ready, typ: "epub",
		},
		{
			name:   "junk as .epub and .pdf",
			files:  map[string][]byte{"j.epub": junk, "j.pdf": junk},
			status: library.Failed,
			failures: map[string]string{
				"j.epub": "not an EPUB",
				"j.pdf":  "not a PDF",
			},
		},
		{
			name:   "junk as each zipped or XML format",
			files:  map[string][]byte{"j.docx": junk, "j.odt": junk, "j.fb2": junk, "j.fb2.zip": junk, "j.htmlz": junk},
			status: library.Failed,
			failures: map[string]string{
				"j.docx":  "not a DOCX document",
				"j.odt":   "not an ODT document",
				"j.fb2":   "not an FB2 book",
				"j.htmlz": "not an HTML page",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newTestLibrary(t)
			epub := testbook.EPUB(t, "Harbour Notes", "The ferry leaves at dawn.")
			for name, data := range tc.files {
				if data == nil {
					data = epub
				}
				l.write(name, data)
			}
			l.reconcile()
			res, err := l.ingest(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			books := l.books()
			if len(books) != 1 {
				t.Fatalf("%d books, want 1: %+v", len(books), books)
			}
			b := books[0]
			if b.Status != tc.status {
				t.Fatalf("status %s (%s), want %s", b.Status, b.Error, tc.status)
			}
			if tc.typ != "" && b.SourceType != tc.typ {
				t.Errorf("source type %s, want %s", b.SourceType, tc.typ)
			}
			if len(res.Failures) != len(tc.failures) {
				t.Fatalf("failures %+v, want %d", res.Failures, len(tc.failures))
			}
			for _, f := range res.Failures {
				name := filepath.Base(f.Path)
				if want := tc.failures[name]; !strings.Contains(f.Error, want) {
					t.Errorf("%s: %q, want it to say %q", name, f.Error, want)
				}
				for other, otherErr := range tc.failures {
					if other != name && strings.Contains(f.Error, otherErr) {
						t.Errorf("%s blamed for %s's format: %q", name, other, f.Error)
					}
				}
			}
			for name, want := range tc.failures {
				if !strings.Contains(b.Error, name+": ") || !strings.Contains(b.Error, want) {
					t.Errorf("book error %q does not name %s with %q", b.Error, name, want)
				}
			}
		})
	}
}
