package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

type catalogBookOut struct {
	bookOut
	Authors     []string
	Series      string
	SeriesIndex float64 `json:"series_index"`
	Tags        []string
	Publisher   string
	Published   string
	Identifiers map[string]string
}

// calibreOPF is a metadata.opf as calibre writes one.
func calibreOPF(title, author, series, index string, tags ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version='1.0' encoding='utf-8'?>
<package xmlns="http://www.idpf.org/2007/opf" unique-identifier="uuid_id" version="2.0">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
    <dc:identifier opf:scheme="calibre" id="calibre_id">1</dc:identifier>
    <dc:identifier opf:scheme="uuid" id="uuid_id">878fd055-812d-4c6f-9074-0eb32f271ed2</dc:identifier>
    <dc:identifier opf:scheme="ISBN">9780000000001</dc:identifier>
    <dc:title>%s</dc:title>
    <dc:creator opf:file-as="x" opf:role="aut">%s</dc:creator>
    <dc:contributor opf:role="bkp">calibre (6.13.0)</dc:contributor>
    <dc:publisher>Small Press</dc:publisher>
    <dc:date>1999-03-01T00:00:00+00:00</dc:date>
    <dc:language>eng</dc:language>
`, title, author)
	for _, t := range tags {
		fmt.Fprintf(&b, "    <dc:subject>%s</dc:subject>\n", t)
	}
	if series != "" {
		fmt.Fprintf(&b, "    <meta name=\"calibre:series\" content=\"%s\"/>\n    <meta name=\"calibre:series_index\" content=\"%s\"/>\n", series, index)
	}
	b.WriteString("  </metadata>\n  <guide><reference type=\"cover\" title=\"Cover\" href=\"cover.jpg\"/></guide>\n</package>\n")
	return b.String()
}

// calibreLibrary makes a library folder holding loose notes, a folder
// with a metadata.opf that no calibre library holds, and a calibre
// library of two entries, one with two formats and a cover.
func calibreLibrary(t *testing.T) (lib, firstOPF string) {
	lib = t.TempDir()
	writeFile(t, filepath.Join(lib, "notes.md"), "# Notes\n\nLoose notes about otters and their dams.\n")
	writeFile(t, filepath.Join(lib, "loose", "metadata.opf"), calibreOPF("Not Calibre", "Nobody", "", ""))
	writeFile(t, filepath.Join(lib, "loose", "a.md"), "# Loose A\n\nA page on lighthouses and their keepers.\n")
	writeFile(t, filepath.Join(lib, "loose", "b.txt"), "Loose B\n\nA page on windmills and millers.\n")

	cal := filepath.Join(lib, "Calibre Library")
	writeFile(t, filepath.Join(cal, "metadata.db"), "")
	first := filepath.Join(cal, "Ann Author", "The Dragon Book (1)")
	firstOPF = filepath.Join(first, "metadata.opf")
	writeFile(t, firstOPF, calibreOPF("The Calibre Title", "Ann Author", "Dragon Saga", "2", "Fantasy", "Dragons"))
	writeFile(t, filepath.Join(first, "The Dragon Book - Ann Author.md"), "# dragon book\n\nThe dragon sleeps on a hoard of copper kettles.\n")
	writeFile(t, filepath.Join(first, "The Dragon Book - Ann Author.txt"), "dragon book\n\nThe dragon sleeps on a hoard of copper kettles, in plain text.\n")
	writeFile(t, filepath.Join(first, "cover.jpg"), "\xff\xd8\xff\xe0 not really a picture")
	second := filepath.Join(cal, "Bob Writer", "Second (2)")
	writeFile(t, filepath.Join(second, "metadata.opf"), calibreOPF("A History of Bridges", "Bob Writer", "", "", "History"))
	writeFile(t, filepath.Join(second, "Second - Bob Writer.txt"), "second\n\nThe stone bridge stood for nine hundred years over the river.\n")
	return lib, firstOPF
}

func booksByTitle(t *testing.T, lib string, args ...string) map[string]catalogBookOut {
	t.Helper()
	var books []catalogBookOut
	okJSON(t, &books, lib, append([]string{"list"}, args...)...)
	out := make(map[string]catalogBookOut)
	for _, b := range books {
		out[b.Title] = b
	}
	return out
}

func TestCalibreLibrary(t *testing.T) {
	t.Parallel()
	lib, _ := calibreLibrary(t)
	out := ok(t, lib, "sync", "-v")
	if !strings.Contains(out, "The Dragon Book - Ann Author.txt: calibre entry: MARKDOWN taken instead") {
		t.Errorf("sync -v does not say why the entry's other format is left out:\n%s", out)
	}

	books := booksByTitle(t, lib)
	var titles []string
	for title := range books {
		titles = append(titles, title)
	}
	slices.Sort(titles)
	// One book per calibre entry, with calibre's title; the folder with a
	// metadata.opf outside a calibre library is an ordinary folder.
	want := []string{"A History of Bridges", "Loose A", "Loose B", "Notes", "The Calibre Title"}
	if !slices.Equal(titles, want) {
		t.Fatalf("titles = %q, want %q", titles, want)
	}
	dragon := books["The Calibre Title"]
	if dragon.Author != "Ann Author" || !slices.Equal(dragon.Tags, []string{"Fantasy", "Dragons"}) ||
		dragon.Series != "Dragon Saga" || dragon.SeriesIndex != 2 || dragon.Publisher != "Small Press" ||
		dragon.Published != "1999-03-01T00:00:00+00:00" || dragon.Identifiers["isbn"] != "9780000000001" ||
		dragon.SourceType != "markdown" || len(dragon.Paths) != 1 {
		t.Errorf("the calibre entry's book: %+v", dragon)
	}
	if len(dragon.Identifiers) != 1 {
		t.Errorf("identifiers %v: calibre's own ids are not the book's", dragon.Identifiers)
	}
	if b := books["Loose A"]; len(b.Tags) != 0 || b.Series != "" {
		t.Errorf("a book outside the calibre library has catalogue data: %+v", b)
	}

	human := ok(t, lib, "list")
	if !strings.Contains(human, "TAGS") || !strings.Contains(human, "Fantasy | Dragons") || !strings.Contains(human, "Dragon Saga 2") {
		t.Errorf("list does not show series and tags:\n%s", human)
	}

	t.Run("filters", func(t *testing.T) {
		if got := booksByTitle(t, lib, "--tag", "dragons"); len(got) != 1 || got["The Calibre Title"].Slug == "" {
			t.Errorf("list --tag dragons: %v", got)
		}
		if got := booksByTitle(t, lib, "--series", "saga"); len(got) != 1 || got["The Calibre Title"].Slug == "" {
			t.Errorf("list --series saga: %v", got)
		}
		r := grimoire(t, lib, "list", "--tag", "dragon")
		if r.code != exitNotFound || !strings.Contains(r.stderr, `did you mean "Dragons"`) {
			t.Errorf("list --tag dragon: exit %d: %s", r.code, r.stderr)
		}
		var hits []struct {
			hitOut
			Tags []string
		}
		okJSON(t, &hits, lib, "query", "stone bridge river", "--tag", "History", "--mode", "fts")
		if len(hits) == 0 || hits[0].Title != "A History of Bridges" || !slices.Equal(hits[0].Tags, []string{"History"}) {
			t.Errorf("query --tag History: %+v", hits)
		}
		for _, h := range hits {
			if h.Title != "A History of Bridges" {
				t.Errorf("query --tag History found %q", h.Title)
			}
		}
		r = grimoire(t, lib, "query", "bridge", "--series", "no such series")
		if r.code != exitNotFound || !strings.Contains(r.stderr, "no book's series contains") {
			t.Errorf("query --series with no book: exit %d: %s", r.code, r.stderr)
		}
	})

	t.Run("status shows no problem", func(t *testing.T) {
		var st statusOut
		okJSON(t, &st, lib, "status")
		if st.Books != 5 || len(st.Failures) != 0 {
			t.Errorf("status: %d books, failures %v", st.Books, st.Failures)
		}
		// calibre's own files (its database, the entries' metadata.opf
		// and covers) are not counted as left out; an OPF outside a
		// calibre library is.
		var left struct {
			Unsupported []struct {
				Extension string `json:"extension"`
				Files     int    `json:"files"`
			} `json:"unsupported"`
		}
		okJSON(t, &left, lib, "status")
		if len(left.Unsupported) != 1 || left.Unsupported[0].Extension != ".opf" || left.Unsupported[0].Files != 1 {
			t.Errorf("status counts %+v as not read, want only the loose folder's .opf", left.Unsupported)
		}
	})
}

// A metadata edit in calibre rewrites metadata.opf, never the book: the
// description changes and the book is not ingested again.
func TestCalibreEditUnderWatch(t *testing.T) {
	t.Parallel()
	lib, opf := calibreLibrary(t)
	w := start(t, lib, watchEnv, "watch")
	eventually(t, "the initial scan", 30*time.Second, func() bool {
		r := grimoire(t, lib, "list", "--json", "--tag", "fantasy")
		return r.code == 0 && strings.Contains(r.stdout, `"status": "ready"`)
	})
	before := booksByTitle(t, lib)["The Calibre Title"]
	writeFile(t, opf, calibreOPF("The Renamed Title", "Ann Author", "Dragon Saga", "3", "Fantasy", "Wyrms"))
	eventually(t, "the new title", 30*time.Second, func() bool {
		_, ok := booksByTitle(t, lib)["The Renamed Title"]
		return ok
	})
	after := booksByTitle(t, lib)["The Renamed Title"]
	if after.Hash != before.Hash || after.Chunks != before.Chunks || after.SeriesIndex != 3 || !slices.Equal(after.Tags, []string{"Fantasy", "Wyrms"}) {
		t.Errorf("after the edit: %+v (before: %+v)", after, before)
	}
	w.stopped(t, 20*time.Second)
}

// The corpus's calibre library (made by calibredb): four entries, one of
// them with an EPUB and a MOBI, give four books with calibre's titles,
// authors and tags.
func TestCorpusCalibreLibrary(t *testing.T) {
	t.Parallel()
	src := testcorpus.Path(t, "calibre-library")
	lib := t.TempDir()
	filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		copyFile(t, p, filepath.Join(lib, "calibre", rel))
		return nil
	})
	ok(t, lib, "sync")
	books := booksByTitle(t, lib)
	if len(books) != 4 {
		t.Fatalf("%d books, want 4: %v", len(books), books)
	}
	for title, author := range map[string]string{
		"The Adventures of Sherlock Holmes": "Arthur Conan Doyle",
		"Pride and Prejudice":               "Jane Austen",
		"Alice's Adventures in Wonderland":  "Lewis Carroll",
	} {
		b, ok := books[title]
		if !ok || b.Author != author || len(b.Tags) == 0 || b.Status != "ready" {
			t.Errorf("%q: %+v", title, b)
		}
	}
	if b := books["The Adventures of Sherlock Holmes"]; b.SourceType != "epub" || !slices.Contains(b.Tags, "Detective and mystery stories") {
		t.Errorf("Sherlock Holmes: %+v", b)
	}
}

// TestCalibreTagWithComma: a calibre tag that holds a comma stays one tag:
// a list in JSON, parted from the others unmistakably in list's table and
// list_books' text, and a filter that names it whole finds the book.
func TestCalibreTagWithComma(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	cal := filepath.Join(lib, "Calibre Library")
	writeFile(t, filepath.Join(cal, "metadata.db"), "")
	entry := filepath.Join(cal, "Ann Author", "Harbour Tales (1)")
	writeFile(t, filepath.Join(entry, "metadata.opf"), calibreOPF("Harbour Tales", "Ann Author", "", "", "Fiction, general", "Sea stories"))
	writeFile(t, filepath.Join(entry, "Harbour Tales - Ann Author.txt"), "Harbour Tales\n\nThe pilot boat waited by the harbour mouth for the tide to turn.\n")
	ok(t, lib, "sync")

	want := []string{"Fiction, general", "Sea stories"}
	if b := booksByTitle(t, lib)["Harbour Tales"]; !slices.Equal(b.Tags, want) {
		t.Errorf("tags %q, want %q", b.Tags, want)
	}
	if human := ok(t, lib, "list"); !strings.Contains(human, "Fiction, general | Sea stories") {
		t.Errorf("list does not part the tags unmistakably:\n%s", human)
	}
	for _, args := range [][]string{
		{"list", "--tag", "Fiction, general"},
		{"query", "pilot boat harbour", "--tag", "fiction, GENERAL"},
	} {
		var got []struct{ Title string }
		okJSON(t, &got, lib, args...)
		if len(got) == 0 || got[0].Title != "Harbour Tales" {
			t.Errorf("%q: %+v, want the book", args, got)
		}
	}

	c := stdioClient(t, lib)
	res := callTool(t, c, "list_books", map[string]any{"tag": "Fiction, general"})
	var text string
	for _, part := range res.Content {
		if tc, ok := part.(mcpgo.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError || !strings.Contains(text, "tags: Fiction, general | Sea stories") {
		t.Errorf("list_books says:\n%s\nwant its tags parted unmistakably", text)
	}
}
