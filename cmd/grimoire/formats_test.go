package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testbook"
)

// TestEmptyFilesAndSharedBytes syncs empty files under three extensions,
// Markdown bytes saved as .md and .epub, and an EPUB's bytes saved as .epub
// and .pdf. Empty files are no books; the others are one book each, of the
// format that reads them, and nothing is reported as a wrong format.
func TestEmptyFilesAndSharedBytes(t *testing.T) {
	lib := t.TempDir()
	for _, name := range []string{"empty.epub", "empty.md", "empty.pdf"} {
		writeFile(t, filepath.Join(lib, name), "")
	}
	md := "# Harbour Notes\n\nThe ferry leaves at dawn.\n"
	writeFile(t, filepath.Join(lib, "x.epub"), md)
	writeFile(t, filepath.Join(lib, "x.md"), md)
	epub := string(testbook.EPUB(t, "Lighthouse Log", "The lamp was lit at dusk."))
	writeFile(t, filepath.Join(lib, "copy.pdf"), epub)
	writeFile(t, filepath.Join(lib, "log.epub"), epub)

	var s syncOut
	okJSON(t, &s, lib, "sync")
	wantCounters(t, "sync", s, map[string]int{"scanned": 4, "skipped": 3, "new": 2, "copied": 2, "ingested": 2, "failed": 0})
	var empty []string
	for _, f := range s.Failures {
		if f.Error != "file is empty; nothing to index" {
			t.Errorf("failure %+v", f)
			continue
		}
		empty = append(empty, filepath.Base(f.Path))
	}
	if slices.Sort(empty); !slices.Equal(empty, []string{"empty.epub", "empty.md", "empty.pdf"}) {
		t.Errorf("reported empty: %v", empty)
	}

	var st statusOut
	okJSON(t, &st, lib, "status")
	if st.Books != 2 || st.Ready != 2 || st.Failed != 0 || len(st.Failures) != 3 {
		t.Errorf("status: %+v", st)
	}
	for _, f := range st.Failures {
		if !strings.HasPrefix(filepath.Base(f.Path), "empty.") || !strings.Contains(f.Error, "empty") {
			t.Errorf("status problem %+v", f)
		}
	}

	var books []bookOut
	okJSON(t, &books, lib, "list")
	types := map[string]string{}
	for _, b := range books {
		types[b.Title] = b.SourceType
		if len(b.Paths) != 2 {
			t.Errorf("%s: paths %v", b.Title, b.Paths)
		}
	}
	if len(books) != 2 || types["Harbour Notes"] != "markdown" || types["Lighthouse Log"] != "epub" {
		t.Errorf("books: %+v", books)
	}
	var hits []hitOut
	okJSON(t, &hits, lib, "query", "ferry leaves at dawn", "--mode", "fts")
	if len(hits) == 0 || hits[0].Title != "Harbour Notes" {
		t.Errorf("query: %+v", hits)
	}
}
