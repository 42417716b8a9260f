package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testbook"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// TestEmptyFilesAndSharedBytes syncs empty files under three extensions,
// Markdown bytes saved as .md and .epub, and an EPUB's bytes saved as .epub
// and .pdf. Empty files are no books; the others are one book each, of the
// format that reads them, and nothing is reported as a wrong format.
func TestEmptyFilesAndSharedBytes(t *testing.T) {
	t.Parallel()
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

// TestKindleAndRTF syncs a MOBI, an AZW3 and an RTF made by the test, and
// one broken file of each format: the good ones are books of their
// format, found by a query with the citation their format has; each broken
// one fails with a reason that says what is wrong with it.
func TestKindleAndRTF(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "harbour.mobi"), string(testbook.MOBI(t, "Harbour Log", "The pilot boarded the steamer beyond the breakwater at slack water.")))
	writeFile(t, filepath.Join(lib, "lamp.azw3"), string(testbook.AZW3(t, "Lamp Journal", "The keeper trimmed the wicks of the great lamp before the gale.")))
	writeFile(t, filepath.Join(lib, "letters.rtf"), string(testbook.RTF(t, "Letters Home", "Dear Anna, the café on the quay serves mussels on Fridays.")))

	drm := testbook.AZW3(t, "Locked", "Nothing to read here.")
	r0 := int(drm[78])<<24 | int(drm[79])<<16 | int(drm[80])<<8 | int(drm[81])
	drm[r0+13] = 2 // Mobipocket encryption
	writeFile(t, filepath.Join(lib, "bad", "locked.azw3"), string(drm))
	writeFile(t, filepath.Join(lib, "bad", "cut.mobi"), string(testbook.MOBI(t, "Cut", "text")[:70]))
	writeFile(t, filepath.Join(lib, "bad", "note.rtf"), "Dear Anna,\nthis is no RTF at all.\n")

	var s syncOut
	okJSON(t, &s, lib, "sync")
	wantCounters(t, "sync", s, map[string]int{"scanned": 6, "ingested": 3, "failed": 3})
	reasons := map[string]string{}
	for _, f := range s.Failures {
		reasons[filepath.Base(f.Path)] = f.Error
	}
	for name, want := range map[string]string{
		"locked.azw3": "DRM-protected: the Kindle book's text is encrypted",
		"cut.mobi":    "not a MOBI file: 70 bytes, too short for a Palm database header",
		"note.rtf":    "not an RTF document: the file does not start with {\\rtf (it looks like plain text)",
	} {
		if !strings.Contains(reasons[name], want) {
			t.Errorf("%s: reason %q, want %q", name, reasons[name], want)
		}
	}

	var books []bookOut
	okJSON(t, &books, lib, "list")
	types := map[string]string{}
	for _, b := range books {
		types[b.Title] = b.SourceType
	}
	if types["Harbour Log"] != "mobi" || types["Lamp Journal"] != "azw3" || types["Letters Home"] != "rtf" {
		t.Errorf("books: %v", types)
	}
	for _, tc := range []struct{ query, title, anchor string }{
		{"pilot boarded the steamer beyond the breakwater", "Harbour Log", "filepos="},
		{"keeper trimmed the wicks of the great lamp", "Lamp Journal", ""},
		{"café on the quay serves mussels", "Letters Home", "L"},
	} {
		var hits []hitOut
		okJSON(t, &hits, lib, "query", tc.query, "--mode", "fts", "--limit", "3")
		if len(hits) == 0 || hits[0].Title != tc.title || !strings.HasPrefix(hits[0].Anchor, tc.anchor) {
			t.Errorf("%q: %+v", tc.query, hits)
		}
	}
}

// TestCorpusKindleAndRTF syncs the corpus's Kindle books and RTF files and
// finds a passage of each kind.
func TestCorpusKindleAndRTF(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	n := 0
	for _, dir := range []string{"mobi", "azw3", "rtf"} {
		src := testcorpus.Path(t, "books", dir)
		entries, _ := os.ReadDir(src)
		for _, e := range entries {
			copyFile(t, filepath.Join(src, e.Name()), filepath.Join(lib, dir, e.Name()))
			n++
		}
	}
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Ingested != n || s.Failed != 0 {
		t.Fatalf("sync: %+v", s)
	}
	for _, tc := range []struct{ query, title string }{
		{"Mr. Sherlock Holmes, who was usually very late in the mornings", "The Hound of the Baskervilles"},
		{"To Sherlock Holmes she is always THE woman", "The Adventures of Sherlock Holmes"},
		{"reconstructing dictionary markup orth infl tags", "Libmobi"},
		{"Alice was beginning to get very tired of sitting by her sister on the bank", "Alice's Adventures in Wonderland"},
		{"This is a set of tests for pandoc", "pandoc-writer"},
	} {
		var hits []hitOut
		okJSON(t, &hits, lib, "query", tc.query, "--mode", "fts", "--limit", "3")
		if len(hits) == 0 || hits[0].Title != tc.title {
			t.Errorf("%q: %v", tc.query, first(hits))
		}
	}
}
