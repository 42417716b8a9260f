package calibre

import (
	"os"
	"path/filepath"
	"testing"
)

func touch(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestEntry(t *testing.T) {
	root := t.TempDir()
	touch(t, filepath.Join(root, "books", "Calibre", DB))
	touch(t, filepath.Join(root, "books", "Calibre", "Ann", "Book (1)", OPF))
	touch(t, filepath.Join(root, "books", "Calibre", "Ann", "Bare (2)", "book.epub"))
	touch(t, filepath.Join(root, "loose", "Book", OPF))
	if err := os.MkdirAll(filepath.Join(root, "books", "Calibre", "Ann", "Link (3)"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "books", "Calibre", "Ann", "Book (1)", OPF), filepath.Join(root, "books", "Calibre", "Ann", "Link (3)", OPF)); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{"books/Calibre/Ann/Book (1)", true},
		{"books/Calibre/Ann/Bare (2)", false}, // no metadata.opf
		{"books/Calibre/Ann/Link (3)", false}, // a link is not followed
		{"loose/Book", false},                 // no metadata.db above
		{"books/Calibre", false},
	} {
		if got := Entry(filepath.Join(root, tc.dir), root); got != tc.want {
			t.Errorf("Entry(%s) = %v, want %v", tc.dir, got, tc.want)
		}
	}
	// The library folder may be the calibre library itself, or lie in one.
	cal := filepath.Join(root, "books", "Calibre")
	if !Entry(filepath.Join(cal, "Ann", "Book (1)"), cal) {
		t.Error("an entry of a library folder that is the calibre library")
	}
}

func TestChoose(t *testing.T) {
	types := map[string]string{"b.mobi": "mobi", "b.epub": "epub", "b.pdf": "pdf", "a.pdf": "pdf", "b.cbz": "cbz"}
	typeOf := func(p string) string { return types[p] }
	for _, tc := range []struct {
		paths  []string
		prefer []string
		want   string
	}{
		{[]string{"b.mobi", "b.epub", "b.pdf"}, DefaultPrefer(), "b.epub"},
		{[]string{"b.mobi", "b.pdf"}, DefaultPrefer(), "b.mobi"},
		{[]string{"b.mobi", "b.epub", "b.pdf"}, []string{"pdf"}, "b.pdf"},
		{[]string{"b.pdf", "a.pdf"}, []string{"pdf"}, "a.pdf"},   // one rank: by name
		{[]string{"b.mobi", "b.cbz"}, []string{"epub"}, "b.cbz"}, // neither named: by name
		{[]string{"b.cbz", "b.mobi"}, []string{"cbz"}, "b.cbz"},
		{nil, DefaultPrefer(), ""},
	} {
		if got := Choose(tc.paths, typeOf, tc.prefer); got != tc.want {
			t.Errorf("Choose(%v, %v) = %q, want %q", tc.paths, tc.prefer, got, tc.want)
		}
	}
}
