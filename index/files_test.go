package index

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/grimoire-search/grimoire/library"
)

func TestFilesOf(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	same, other := library.SumBytes([]byte("same")), library.SumBytes([]byte("other"))
	err := w.Update(ctx, func(tx *Tx) error {
		for _, f := range []library.File{
			{Path: "/lib/b.epub", Root: "/lib", Hash: same, Size: 4, Inode: 7, SourceType: "markdown"},
			{Path: "/lib/a.md", Root: "/lib", Hash: same, Size: 4, Inode: 8, SourceType: "markdown"},
			{Path: "/lib/c.md", Root: "/lib", Hash: other, Size: 5, SourceType: "markdown"},
		} {
			if _, err := tx.PutFile(ctx, f, library.Hash{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files, err := w.FilesOf(ctx, same)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || files[0].Path != "/lib/a.md" || files[0].Inode != 8 || files[1].Root != "/lib" || files[1].Size != 4 {
		t.Errorf("FilesOf = %+v", files)
	}
	if files, err := w.FilesOf(ctx, library.SumBytes([]byte("none"))); err != nil || len(files) != 0 {
		t.Errorf("FilesOf an unknown content = %+v, %v", files, err)
	}
}

// TestEnsureBooksTakesTheRowsType checks that a book made again for a
// content (its exclusion lifted) takes the type its first path's row
// records.
func TestEnsureBooksTakesTheRowsType(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	h := library.SumBytes([]byte("notes"))
	err := w.Update(ctx, func(tx *Tx) error {
		for _, f := range []library.File{
			{Path: "/lib/b.txt", Root: "/lib", Hash: h, Size: 5, SourceType: "text"},
			{Path: "/lib/a.md", Root: "/lib", Hash: h, Size: 5, SourceType: "markdown"},
		} {
			if _, err := tx.PutFile(ctx, f, library.Hash{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.DeleteBook(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if b.SourceType != "text" {
		t.Errorf("the first book took type %q from the path put first, want text", b.SourceType)
	}
	if _, err := w.LiftExclusion(ctx, h.String()[7:19]); err != nil {
		t.Fatal(err)
	}
	var created int
	err = w.Update(ctx, func(tx *Tx) error {
		created, err = tx.EnsureBooks(ctx)
		return err
	})
	if err != nil || created != 1 {
		t.Fatalf("EnsureBooks = %d, %v", created, err)
	}
	books, err := w.Books(ctx, BookFilter{})
	if err != nil || len(books) != 1 || books[0].SourceType != "markdown" {
		t.Fatalf("books = %+v, %v; want one markdown book, from a.md's row", books, err)
	}
}

// TestMigrationTypesExistingFiles checks that rows written before files
// recorded their type get the type their extension names.
func TestMigrationTypesExistingFiles(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.db")
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range migrations[:7] {
		if _, err := db.ExecContext(ctx, m); err != nil {
			t.Fatalf("migration %d: %v", i+1, err)
		}
	}
	want := map[string]string{
		"/lib/a.PDF": "pdf", "/lib/b.epub": "epub", "/lib/c.md": "markdown", "/lib/d.Markdown": "markdown",
		"/lib/e.mdown": "markdown", "/lib/f.mkd": "markdown", "/lib/g.txt": "text", "/lib/h.TEXT": "text",
		"/lib/i.pdf.bak": "", "/lib/jmd": "",
	}
	for p := range want {
		if _, err := db.ExecContext(ctx, `INSERT INTO file(path, root, hash, size, mtime_ns, inode, verified_ns) VALUES (?, '/lib', ?, 1, 0, 0, 0)`,
			p, library.SumBytes([]byte(p))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, "PRAGMA user_version = 7"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	w, err := OpenWriter(ctx, path, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	files, err := w.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for p, typ := range want {
		if got := files[p].SourceType; got != typ {
			t.Errorf("%s: type %q, want %q", p, got, typ)
		}
	}
}
