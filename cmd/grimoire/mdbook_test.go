package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// chapterTitles lists an outline's chapters, each with its sections after
// a colon.
func chapterTitles(o outlineOut) []string {
	var out []string
	for _, c := range o.Chapters {
		var secs []string
		for _, s := range c.Sections {
			secs = append(secs, s.Title)
		}
		out = append(out, c.Title+": "+strings.Join(secs, " | "))
	}
	return out
}

// mdBookLibrary makes a library with an mdBook (book.toml, src/SUMMARY.md
// with a prefix chapter, a part title, nested chapters, a draft, a link to
// a missing file and one outside the folder, and an {{#include}}), a
// folder of loose notes, and a file outside the library that a SUMMARY.md
// link points to.
func mdBookLibrary(t *testing.T) (lib, book string) {
	t.Helper()
	base := t.TempDir()
	lib = filepath.Join(base, "lib")
	writeFile(t, filepath.Join(base, "secret.md"), "# Secret\n\nThe vault code is marmalade.\n")
	book = filepath.Join(lib, "tides")
	writeFile(t, filepath.Join(book, "book.toml"), "[book]\ntitle = \"Tides and Harbours\"\nauthors = [\"Ada Marsh\"]\nlanguage = \"en\"\n")
	writeFile(t, filepath.Join(book, "src", "SUMMARY.md"), `# Summary

[Preface](preface.md)

# Part One

- [Harbours](harbours.md)
    - [Breakwaters](harbours/breakwaters.md)
    - [Lost Chapter](missing.md)
    - [Not Written Yet]()
- [Tides](tides.md)

[Secret](../../../secret.md)
[Again](harbours.md)
`)
	writeFile(t, filepath.Join(book, "src", "preface.md"), "# Preface\n\nThis book began on a pier in Falmouth.\n")
	writeFile(t, filepath.Join(book, "src", "harbours.md"), "# Harbours\n\nA harbour shelters ships from the open sea.\n\n```rust\n{{#include ../listings/harbour.rs}}\n```\n\n## Quays\n\nQuays are where cargo is loaded.\n")
	writeFile(t, filepath.Join(book, "src", "harbours", "breakwaters.md"), "## Breakwaters\n\nA breakwater of granite blocks calms the swell before it reaches the moorings.\n")
	writeFile(t, filepath.Join(book, "src", "tides.md"), "# Tides\n\nSpring tides follow the full moon by a day or two.\n")
	writeFile(t, filepath.Join(book, "src", "drafts.md"), "# Drafts\n\nUnlisted notes about lighthouses.\n")
	writeFile(t, filepath.Join(lib, "notes", "a.md"), "# Note A\n\nOtters build no dams.\n")
	writeFile(t, filepath.Join(lib, "notes", "b.md"), "# Note B\n\nBeavers do.\n")
	return lib, book
}

func TestMDBookFolderIsOneBook(t *testing.T) {
	t.Parallel()
	lib, book := mdBookLibrary(t)
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Failed != 0 || s.New != 4 {
		t.Fatalf("sync: %+v (want the mdBook, the unlisted draft and two notes)", s)
	}
	var books []bookOut
	okJSON(t, &books, lib, "list")
	var titles []string
	var tides bookOut
	for _, b := range books {
		titles = append(titles, b.Title)
		if b.SourceType == "mdbook" {
			tides = b
		}
	}
	slices.Sort(titles)
	if want := []string{"Drafts", "Note A", "Note B", "Tides and Harbours"}; !slices.Equal(titles, want) {
		t.Fatalf("books %q, want %q", titles, want)
	}
	if tides.Author != "Ada Marsh" || len(tides.Paths) != 1 || tides.Paths[0] != filepath.Join(book, "src", "SUMMARY.md") {
		t.Errorf("the mdBook: %+v", tides)
	}

	t.Run("outline follows SUMMARY.md", func(t *testing.T) {
		var o outlineOut
		okJSON(t, &o, lib, "outline", tides.Slug)
		want := []string{
			"Preface: Preface",
			"Part One › Harbours: Harbours | Harbours › Quays | Breakwaters",
			"Part One › Tides: Tides",
		}
		if got := chapterTitles(o); !slices.Equal(got, want) {
			t.Errorf("outline:\n got %q\nwant %q", got, want)
		}
	})

	t.Run("a passage is cited to its chapter file", func(t *testing.T) {
		var hits []hitOut
		okJSON(t, &hits, lib, "query", "granite breakwater swell", "--limit", "1")
		if len(hits) == 0 || hits[0].Book != tides.Slug {
			t.Fatalf("hits: %+v", first(hits))
		}
		h := hits[0]
		if h.Section != "Breakwaters" || h.Path != filepath.Join(book, "src", "harbours", "breakwaters.md") || h.Anchor != "harbours/breakwaters.md#L3" {
			t.Errorf("hit: section %q, path %q, anchor %q", h.Section, h.Path, h.Anchor)
		}
	})

	t.Run("nothing outside the folder, no preprocessor lines", func(t *testing.T) {
		for _, q := range []string{"vault code marmalade", "include listings harbour.rs"} {
			var hits []hitOut
			okJSON(t, &hits, lib, "query", q, "--mode", "fts")
			for _, h := range hits {
				if strings.Contains(h.Text, "marmalade") || strings.Contains(h.Text, "{{#") {
					t.Errorf("%q found %q in %s", q, h.Text, h.Path)
				}
			}
		}
	})

	t.Run("status counts no chapter as not read", func(t *testing.T) {
		out := ok(t, lib, "status")
		if strings.Contains(out, "not read") {
			t.Errorf("status:\n%s", out)
		}
	})

	t.Run("a chapter edit re-ingests the book", func(t *testing.T) {
		writeFile(t, filepath.Join(book, "src", "tides.md"), "# Tides\n\nNeap tides come with the half moon.\n")
		var s syncOut
		okJSON(t, &s, lib, "sync")
		wantCounters(t, "chapter edit", s, map[string]int{"changed": 1, "ingested": 1, "pruned": 1})
		if h, found := topBook(t, lib, "neap tides half moon"); !found || h.Book != tides.Slug {
			t.Errorf("the edited chapter: %+v", h)
		}
	})

	t.Run("a moved folder is a move", func(t *testing.T) {
		moved := filepath.Join(lib, "shelf", "tides")
		os.MkdirAll(filepath.Dir(moved), 0o755)
		if err := os.Rename(book, moved); err != nil {
			t.Fatal(err)
		}
		var s syncOut
		okJSON(t, &s, lib, "sync")
		// The book and the draft no SUMMARY.md lists, each without a read.
		wantCounters(t, "folder move", s, map[string]int{"moved": 2, "hashed": 0, "new": 0, "ingested": 0, "removed": 0})
		book = moved
	})

	t.Run("without SUMMARY.md the files are books each", func(t *testing.T) {
		os.Remove(filepath.Join(book, "src", "SUMMARY.md"))
		okJSON(t, &s, lib, "sync")
		var books []bookOut
		okJSON(t, &books, lib, "list")
		var types []string
		for _, b := range books {
			types = append(types, b.SourceType)
		}
		if len(books) != 7 || slices.Contains(types, "mdbook") {
			t.Errorf("%d books of types %v, want 7 Markdown files", len(books), types)
		}
	})
}

// TestMDBookWatch checks that watch re-reads an mdBook whose chapter
// changes, and takes a folder whose SUMMARY.md appears for one book.
func TestMDBookWatch(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	dir := filepath.Join(lib, "guide")
	writeFile(t, filepath.Join(dir, "one.md"), "# One\n\nPelicans fish in the estuary at dawn.\n")
	writeFile(t, filepath.Join(dir, "two.md"), "# Two\n\nCormorants dry their wings on the rocks.\n")
	w := start(t, lib, watchEnv, "watch")
	eventually(t, "the two notes", 20*time.Second, func() bool {
		h, ok := topBook(t, lib, "cormorants wings")
		return ok && h.Title == "Two"
	})
	writeFile(t, filepath.Join(dir, "SUMMARY.md"), "# Seabirds\n\n- [One](one.md)\n- [Two](two.md)\n")
	eventually(t, "one book of the folder", 20*time.Second, func() bool {
		h, ok := topBook(t, lib, "cormorants wings")
		return ok && h.Title == "Seabirds" && h.Chapter == "Two"
	})
	writeFile(t, filepath.Join(dir, "two.md"), "# Two\n\nGannets dive from a great height.\n")
	eventually(t, "the edited chapter", 20*time.Second, func() bool {
		h, ok := topBook(t, lib, "gannets dive")
		_, old := topBook(t, lib, "cormorants wings")
		return ok && h.Title == "Seabirds" && !old
	})
	w.stopped(t, 10*time.Second)
	var books []bookOut
	okJSON(t, &books, lib, "list")
	if len(books) != 1 || books[0].SourceType != "mdbook" {
		t.Errorf("books: %+v", books)
	}
}

// TestMDBookHostile checks that a SUMMARY.md cannot make grimoire read
// outside the book's folder or work without end: links above the folder,
// absolute paths, URLs, a link to SUMMARY.md itself, one chapter named
// thousands of times, nesting hundreds deep, and a chapter reached through
// a symbolic link.
func TestMDBookHostile(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	lib := filepath.Join(base, "lib")
	writeFile(t, filepath.Join(base, "outside.md"), "# Outside\n\nThe password is periwinkle.\n")
	dir := filepath.Join(lib, "book")
	var summary strings.Builder
	summary.WriteString("# Hostile\n\n- [Up](../../outside.md)\n- [Abs](" + filepath.Join(base, "outside.md") + ")\n- [URL](https://example.com/x.md)\n- [Self](SUMMARY.md)\n- [Linked](linked/outside.md)\n")
	for i := range 5000 {
		summary.WriteString(strings.Repeat("  ", i%300) + "- [Loop](real.md)\n")
	}
	writeFile(t, filepath.Join(dir, "SUMMARY.md"), summary.String())
	writeFile(t, filepath.Join(dir, "real.md"), "# Real\n\nOnly this chapter is read, and only once.\n")
	if err := os.Symlink(base, filepath.Join(dir, "linked")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	start := time.Now()
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("sync took %v", took)
	}
	var books []bookOut
	okJSON(t, &books, lib, "list")
	if len(books) != 1 || books[0].Title != "Hostile" || books[0].Chunks != 1 {
		t.Fatalf("books: %+v", books)
	}
	var hits []hitOut
	okJSON(t, &hits, lib, "query", "password periwinkle", "--mode", "fts")
	for _, h := range hits {
		if strings.Contains(h.Text, "periwinkle") {
			t.Errorf("read outside the library: %+v", h)
		}
	}
}

// TestCorpusRustBook checks that the corpus's Rust book folder, twelve
// chapter files and a SUMMARY.md that names many more, is one book whose
// chapters are those SUMMARY.md names that are there.
func TestCorpusRustBook(t *testing.T) {
	t.Parallel()
	src := testcorpus.Path(t, "books", "markdown", "rust-book")
	lib := t.TempDir()
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		copyFile(t, filepath.Join(src, e.Name()), filepath.Join(lib, "rust-book", e.Name()))
	}
	var s syncOut
	okJSON(t, &s, lib, "sync")
	var books []bookOut
	okJSON(t, &books, lib, "list")
	if len(books) != 1 || books[0].Title != "The Rust Programming Language" || books[0].SourceType != "mdbook" {
		t.Fatalf("books: %+v", books)
	}
	var o outlineOut
	okJSON(t, &o, lib, "outline", books[0].Slug)
	var chapters []string
	sections := 0
	for _, c := range o.Chapters {
		chapters = append(chapters, c.Title)
		sections += len(c.Sections)
	}
	if want := []string{"Introduction", "Common Programming Concepts", "Understanding Ownership"}; !slices.Equal(chapters, want) || sections < 20 {
		t.Errorf("chapters %q with %d sections, want %q", chapters, sections, want)
	}
	var hits []hitOut
	okJSON(t, &hits, lib, "query", "shadowing a variable with let", "--limit", "1")
	if len(hits) == 0 || !strings.HasSuffix(hits[0].Path, "ch03-01-variables-and-mutability.md") {
		t.Errorf("shadowing: %+v", first(hits))
	}
	okJSON(t, &hits, lib, "query", "rustdoc_include listings", "--mode", "fts")
	for _, h := range hits {
		if strings.Contains(h.Text, "{{#") {
			t.Errorf("a preprocessor line was indexed: %q", h.Text)
		}
	}
}
