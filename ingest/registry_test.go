package ingest

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/library"
	folder "github.com/grimoire-search/grimoire/source/mdbook"
)

func TestTypeOf(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/lib/book.pdf", "pdf"},
		{"/lib/Book.PDF", "pdf"},
		{"/lib/novel.epub", "epub"},
		{"/lib/notes.md", "markdown"},
		{"/lib/notes.markdown", "markdown"},
		{"/lib/notes.mdown", "markdown"},
		{"/lib/notes.MKD", "markdown"},
		{"/lib/plain.txt", "text"},
		{"/lib/plain.text", "text"},
		{"/lib/kindle.mobi", "mobi"},
		{"/lib/kindle.AZW", "mobi"},
		{"/lib/old.prc", "mobi"},
		{"/lib/kindle.azw3", "azw3"},
		{"/lib/letter.rtf", "rtf"},
		{"/lib/book.kfx", ""},
		{"/lib/book.pdf.bak", ""},
		{"/lib/README", ""},
		{"/lib/photo.jpg", ""},
		{"/lib/dir.pdf/inside", ""},
		{"/lib/Tom Sawyer.fb2", "fb2"},
		{"/lib/Tom.Sawyer.FB2.ZIP", "fb2"},
		{"/lib/archive.zip", ""},
		{"/lib/report.docx", "docx"},
		{"/lib/report.doc", ""},
		{"/lib/essay.odt", "odt"},
		{"/lib/page.html", "html"},
		{"/lib/page.HTM", "html"},
		{"/lib/page.xhtml", "html"},
		{"/lib/book.htmlz", "htmlz"},
	} {
		if got := Formats().TypeOf(tc.path); got != tc.want {
			t.Errorf("TypeOf(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestRegistryEntries(t *testing.T) {
	owner := make(map[string]string)
	for _, f := range Formats() {
		if f.Type == "" || f.Name == "" || f.open == nil || len(f.Extensions) == 0 && !f.Folder {
			t.Errorf("format %q lacks a type, a name, a parser or extensions", f.Type)
		}
		if f.Folder && len(f.Extensions) > 0 {
			t.Errorf("folder format %q has extensions", f.Type)
		}
		for _, ext := range f.Extensions {
			if !strings.HasPrefix(ext, ".") || ext != strings.ToLower(ext) {
				t.Errorf("%s: extension %q is not a lower-case ending with its dot", f.Type, ext)
			}
			if o, ok := owner[ext]; ok {
				t.Errorf("extension %s belongs to both %s and %s", ext, o, f.Type)
			}
			owner[ext] = f.Type
		}
	}
}

// TestFolderFormat checks that the walk and the parser agree on what an
// mdBook folder's bytes are: the walk writes them (internal/mdbook), the
// parser reads them (ingest/mdbook).
func TestFolderFormat(t *testing.T) {
	f, ok := Formats().lookup(folder.Type)
	if !ok || !f.Folder || f.Magic != folder.Magic || folder.Type != doc.MDBook {
		t.Errorf("mdbook format: %+v, want type %q with magic %q", f, folder.Type, folder.Magic)
	}
}

// TestOrder checks the order in which a book's formats are tried: a format
// with magic refuses other content, so it goes before those that read any
// text.
func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		name     string
		types    []string
		fallback string
		want     []string
	}{
		{"one format", []string{"text"}, "text", []string{"text"}},
		{"all four", []string{"text", "markdown", "epub", "pdf"}, "text", []string{"pdf", "epub", "markdown", "text"}},
		{"each once", []string{"markdown", "pdf", "markdown"}, "markdown", []string{"pdf", "markdown"}},
		{"text and markdown", []string{"text", "markdown"}, "text", []string{"markdown", "text"}},
		{"no typed path", []string{"", ""}, "epub", []string{"epub"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var files []library.File
			for _, typ := range tc.types {
				files = append(files, library.File{SourceType: typ})
			}
			if got := Formats().order(files, tc.fallback); !slices.Equal(got, tc.want) {
				t.Errorf("order = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestMagic checks what the order relies on: a format with magic refuses
// content without it, and one without magic reads any text.
func TestMagic(t *testing.T) {
	ps := NewParsers(nil)
	defer ps.Close()
	plain := []byte("Chapter One\n\nThe ferry leaves at dawn, whatever the weather.\n")
	for _, f := range Formats() {
		_, err := ps.Parse(context.Background(), f.Type, plain, nil)
		if f.Magic != "" && err == nil {
			t.Errorf("%s has magic %q but read plain text", f.Type, f.Magic)
		}
		if f.Magic == "" && err != nil {
			t.Errorf("%s has no magic but did not read plain text: %v", f.Type, err)
		}
	}
}

func TestParsersClose(t *testing.T) {
	ps := NewParsers(nil)
	ctx := context.Background()
	if _, err := ps.Parse(ctx, "cbz", []byte("x"), nil); err == nil || !strings.Contains(err.Error(), `no parser for "cbz" files`) {
		t.Errorf("parsing an unknown format: %v", err)
	}
	if _, err := ps.Parse(ctx, "pdf", []byte("not a PDF"), nil); err == nil {
		t.Error("a PDF parser read text")
	}
	if err := ps.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ps.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := ps.Parse(ctx, "text", []byte("words"), nil); err == nil {
		t.Error("Parse after Close succeeded")
	}
}
