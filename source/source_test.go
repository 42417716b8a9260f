package source

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/internal/libfile"
	"github.com/grimoire-search/grimoire/internal/testbook"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/source/calibre"
	"github.com/grimoire-search/grimoire/source/mdbook"
)

// shelf is a library with a plain file, a calibre library of one entry in
// two formats, and an mdBook folder.
func shelf(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	testbook.Write(t, filepath.Join(root, "notes.md"), "# Notes\n\nA plain file is a book.\n")
	testbook.Write(t, filepath.Join(root, "calibre", calibre.DB), "")
	entry := filepath.Join(root, "calibre", "Author", "Title (1)")
	testbook.Write(t, filepath.Join(entry, calibre.OPF), "<package/>")
	testbook.Write(t, filepath.Join(entry, "cover.jpg"), "jpeg")
	testbook.Write(t, filepath.Join(entry, "Title.epub"), "epub bytes")
	testbook.Write(t, filepath.Join(entry, "Title.pdf"), "pdf bytes")
	book := filepath.Join(root, "guide")
	testbook.Write(t, filepath.Join(book, mdbook.SummaryName), "# Summary\n\n- [One](one.md)\n- [Two](two.md)\n")
	testbook.Write(t, filepath.Join(book, "one.md"), "# One\n\nThe first chapter.\n")
	testbook.Write(t, filepath.Join(book, "two.md"), "# Two\n\nThe second chapter.\n")
	return root
}

var opts = Options{CalibrePrefer: calibre.DefaultPrefer(), MDBook: true}

func fileSource(t *testing.T, p, root, typ string) Source {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return File(p, root, typ, fi)
}

// row is the file row a walk records for s, with its hash.
func row(s Source, h library.Hash) library.File {
	return library.File{Path: s.Path, Root: s.Root, Hash: h, Size: s.Size, MtimeNS: s.ModTimeNS, Inode: s.Inode, SourceType: s.Type}
}

// TestEachKindHashesWhatIsRead: a plain file, the format a calibre entry
// is read from and an mdBook folder are each one Source, whose hash is the
// hash of the bytes Read gives back for the row recorded from it.
func TestEachKindHashesWhatIsRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := shelf(t)
	entry := filepath.Join(root, "calibre", "Author", "Title (1)")
	ents, err := os.ReadDir(entry)
	if err != nil {
		t.Fatal(err)
	}
	if !opts.CalibreEntry(entry, root, ents) {
		t.Fatal("the calibre entry is not one")
	}
	chosen, passed := opts.Choose([]Source{fileSource(t, filepath.Join(entry, "Title.epub"), root, "epub"), fileSource(t, filepath.Join(entry, "Title.pdf"), root, "pdf")})
	if filepath.Base(chosen.Path) != "Title.epub" || len(passed) != 1 || passed[0].Reason != "calibre entry: EPUB taken instead" {
		t.Errorf("chose %s, passed over %+v", chosen.Path, passed)
	}
	guide := filepath.Join(root, "guide")
	ents, err = os.ReadDir(guide)
	if err != nil {
		t.Fatal(err)
	}
	folder, members, trouble, err := opts.MDBookIn(ctx, root, guide, ents, func(string) bool { return false })
	if err != nil || trouble != nil || folder == nil || len(members) != 3 || !folder.Folder() {
		t.Fatalf("mdBook: %+v, members %v, %+v, %v", folder, members, trouble, err)
	}
	for _, s := range []Source{fileSource(t, filepath.Join(root, "notes.md"), root, "markdown"), chosen, *folder} {
		h, _, err := s.Hash(ctx, make([]byte, 4096))
		if err != nil {
			t.Fatalf("%s: %v", s.Path, err)
		}
		data, err := new(Reader).Read(ctx, row(s, h))
		if err != nil {
			t.Fatalf("%s: %v", s.Path, err)
		}
		if library.SumBytes(data) != h {
			t.Errorf("%s: read bytes whose hash is not the one hashed", s.Path)
		}
	}
	// A chapter changed since the walk: the folder is not read as it was.
	testbook.Write(t, filepath.Join(guide, "two.md"), "# Two\n\nThe second chapter, longer now.\n")
	if _, err := new(Reader).Read(ctx, row(*folder, library.Hash{})); !errors.Is(err, libfile.ErrChanged) {
		t.Errorf("a changed mdBook read: %v", err)
	}
}

// TestFolderOf: a change at a path is looked at with the book's other
// files when it is part of an mdBook or a calibre entry, there or gone.
func TestFolderOf(t *testing.T) {
	t.Parallel()
	root := shelf(t)
	entry := filepath.Join(root, "calibre", "Author", "Title (1)")
	guide := filepath.Join(root, "guide")
	if err := os.Remove(filepath.Join(entry, "Title.pdf")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		opts Options
		want string
	}{
		{"notes.md", opts, ""},
		{"gone.md", opts, ""},
		{"guide/one.md", opts, guide},
		{"guide/three.md", opts, guide},
		{"guide/one.md", Options{CalibrePrefer: opts.CalibrePrefer}, ""},
		{"calibre/Author/Title (1)/Title.epub", opts, entry},
		{"calibre/Author/Title (1)/Title.pdf", opts, entry},
		{"calibre/Author/Title (1)/metadata.opf", opts, entry},
		{"calibre/Author/Title (1)/Title.epub", Options{MDBook: true}, ""},
	}
	for _, tc := range tests {
		if got := tc.opts.FolderOf(filepath.Join(root, tc.path), root); got != tc.want {
			t.Errorf("FolderOf(%s) with %+v = %q, want %q", tc.path, tc.opts, got, tc.want)
		}
	}
}

// TestNow: a file row is the same until the file is written again; an
// mdBook's and a gone file's are not told.
func TestNow(t *testing.T) {
	t.Parallel()
	root := shelf(t)
	p := filepath.Join(root, "notes.md")
	s := fileSource(t, p, root, "markdown")
	f := row(s, library.Hash{})
	if same, mod, ok := Now(f); !same || !ok || mod.UnixNano() != s.ModTimeNS {
		t.Errorf("unchanged file: same %v, %v, ok %v", same, mod, ok)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if same, _, ok := Now(f); same || !ok {
		t.Errorf("a file written again: same %v, ok %v", same, ok)
	}
	if _, _, ok := Now(library.File{Path: filepath.Join(root, "guide", mdbook.SummaryName), Root: root, SourceType: mdbook.Type}); ok {
		t.Error("an mdBook's row told")
	}
	os.Remove(p)
	if _, _, ok := Now(f); ok {
		t.Error("a gone file told")
	}
}

func TestCalibreOwn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		inEntry bool
		want    bool
	}{
		{calibre.DB, false, true},
		{"metadata_db_prefs_backup.json", false, true},
		{calibre.OPF, true, true},
		{"Cover.JPG", true, true},
		{"cover.jpg", false, false},
		{"notes.txt", true, false},
	}
	for _, tc := range tests {
		if got := CalibreOwn(tc.name, tc.inEntry); got != tc.want {
			t.Errorf("CalibreOwn(%q, %v) = %v", tc.name, tc.inEntry, got)
		}
	}
}
