package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testbook"
)

// fileCatalogEPUB says of itself what a publisher's EPUB 3 does: subjects,
// a publisher, a date, an ISBN and a collection with the book's place.
const fileCatalogEPUB = `<dc:subject>Lighthouses</dc:subject><dc:subject>Sea stories</dc:subject>
<dc:publisher>Harbour Press</dc:publisher><dc:date>1901-05-04</dc:date><dc:identifier>urn:isbn:9780000000002</dc:identifier>
<meta property="belongs-to-collection" id="c1">Coast Tales</meta><meta refines="#c1" property="group-position">2</meta>`

// A book that no calibre library holds has the catalogue its own file
// gives: listed, shown and filtered as a calibre book's; a calibre entry's
// book keeps calibre's, whatever its file says, and reading calibre's
// descriptions again touches neither.
func TestFileCatalog(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeBytes(t, filepath.Join(lib, "keeper.epub"), testbook.EPUBWith(t, "The Keeper's Log", "The lamp was lit at dusk while the gulls wheeled.", fileCatalogEPUB))
	writeFile(t, filepath.Join(lib, "notes.md"), "# Notes\n\nLoose notes about otters and their dams.\n")
	cal := filepath.Join(lib, "Calibre Library")
	writeFile(t, filepath.Join(cal, "metadata.db"), "")
	entry := filepath.Join(cal, "Ann Author", "Bridges (1)")
	writeFile(t, filepath.Join(entry, "metadata.opf"), calibreOPF("A History of Bridges", "Ann Author", "", "", "History"))
	writeBytes(t, filepath.Join(entry, "Bridges - Ann Author.epub"), testbook.EPUBWith(t, "Bridges", "The stone bridge stood over the river.",
		`<dc:subject>File Subject</dc:subject><dc:publisher>File Press</dc:publisher>`))
	// An entry whose metadata.opf calibre is writing: its book waits for
	// calibre's word rather than take its file's.
	broken := filepath.Join(cal, "Bob Writer", "Half Written (2)")
	writeFile(t, filepath.Join(broken, "metadata.opf"), `<?xml version='1.0'?><package><metadata><dc:title>Half`)
	writeBytes(t, filepath.Join(broken, "Half - Bob Writer.epub"), testbook.EPUBWith(t, "Half Written", "The ferry waited at the quay.",
		`<dc:subject>File Subject</dc:subject>`))
	ok(t, lib, "sync")

	books := booksByTitle(t, lib)
	if half := books["Half Written"]; len(half.Tags) != 0 || half.Slug == "" {
		t.Errorf("a calibre entry's book took its file's catalogue: %+v", half)
	}
	keeper := books["The Keeper's Log"]
	if !slices.Equal(keeper.Tags, []string{"Lighthouses", "Sea stories"}) || keeper.Series != "Coast Tales" || keeper.SeriesIndex != 2 ||
		keeper.Publisher != "Harbour Press" || keeper.Published != "1901-05-04" || keeper.Identifiers["isbn"] != "9780000000002" ||
		len(keeper.Identifiers) != 1 {
		t.Errorf("the EPUB's own catalogue: %+v", keeper)
	}
	bridges := books["A History of Bridges"]
	if !slices.Equal(bridges.Tags, []string{"History"}) || bridges.Publisher != "Small Press" {
		t.Errorf("the calibre entry's book has its file's catalogue, not calibre's: %+v", bridges)
	}
	if notes := books["Notes"]; len(notes.Tags) != 0 || notes.Series != "" || notes.Publisher != "" {
		t.Errorf("a book whose file says nothing: %+v", notes)
	}

	human := ok(t, lib, "list")
	if !strings.Contains(human, "Lighthouses | Sea stories") || !strings.Contains(human, "Coast Tales 2") {
		t.Errorf("list does not show the EPUB's series and tags:\n%s", human)
	}
	if got := booksByTitle(t, lib, "--tag", "sea stories"); len(got) != 1 || got["The Keeper's Log"].Slug == "" {
		t.Errorf("list --tag 'sea stories': %v", got)
	}
	if got := booksByTitle(t, lib, "--series", "coast"); len(got) != 1 || got["The Keeper's Log"].Slug == "" {
		t.Errorf("list --series coast: %v", got)
	}
	if r := grimoire(t, lib, "list", "--tag", "file subject"); r.code != exitNotFound {
		t.Errorf("list --tag with the calibre book's file subject: exit %d, %s%s", r.code, r.stdout, r.stderr)
	}
	var hits []struct {
		hitOut
		Tags   []string
		Series string
	}
	okJSON(t, &hits, lib, "query", "lamp lit at dusk", "--tag", "lighthouses", "--mode", "fts")
	if len(hits) == 0 || hits[0].Title != "The Keeper's Log" || hits[0].Series != "Coast Tales" || !slices.Equal(hits[0].Tags, []string{"Lighthouses", "Sea stories"}) {
		t.Errorf("query --tag lighthouses: %+v", hits)
	}

	// calibre's descriptions read again, one edited: the EPUB outside
	// keeps its own.
	writeFile(t, filepath.Join(entry, "metadata.opf"), calibreOPF("A History of Bridges", "Ann Author", "", "", "History", "Engineering"))
	ok(t, lib, "sync")
	books = booksByTitle(t, lib)
	if !slices.Equal(books["A History of Bridges"].Tags, []string{"History", "Engineering"}) {
		t.Errorf("calibre's edit: %+v", books["A History of Bridges"])
	}
	if after := books["The Keeper's Log"]; !slices.Equal(after.Tags, keeper.Tags) || after.Series != keeper.Series || after.Publisher != keeper.Publisher {
		t.Errorf("reading calibre again changed the EPUB's own catalogue: %+v", after)
	}

	// An edited file is a new book, described by what it says now.
	writeBytes(t, filepath.Join(lib, "keeper.epub"), testbook.EPUBWith(t, "The Keeper's Log", "The lamp was lit at dusk, and again at dawn.",
		`<dc:subject>Lamps</dc:subject>`))
	ok(t, lib, "sync")
	if after := booksByTitle(t, lib)["The Keeper's Log"]; !slices.Equal(after.Tags, []string{"Lamps"}) || after.Series != "" || after.Publisher != "" {
		t.Errorf("the edited EPUB: %+v", after)
	}
}

func writeBytes(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
