package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testbook"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// TestDjVu syncs a DjVu document made by the test, a blank page (no text
// layer, no image) and a file that only carries the extension: the
// document is a book whose passages are cited with their page; the blank
// page fails saying it has neither text nor images (scans are read by OCR:
// ocrscan_test.go); the other says it is no DjVu file.
func TestDjVu(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "charts.djvu"), string(testbook.DjVu(t, "Harbour Charts",
		"The tide turns at noon.",
		"The pilot cutter waits beyond the outer buoy until the flood.")))
	writeFile(t, filepath.Join(lib, "bad", "scan.djv"), "AT&TFORM\x00\x00\x00\x16DJVUINFO\x00\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	writeFile(t, filepath.Join(lib, "bad", "fake.djvu"), "not a scan at all")

	var s syncOut
	okJSON(t, &s, lib, "sync")
	wantCounters(t, "sync", s, map[string]int{"scanned": 3, "ingested": 1, "failed": 2})
	reasons := map[string]string{}
	for _, f := range s.Failures {
		reasons[filepath.Base(f.Path)] = f.Error
	}
	for name, want := range map[string]string{
		"scan.djv":  "neither a text layer nor page images",
		"fake.djvu": "not a DjVu file",
	} {
		if !strings.Contains(reasons[name], want) {
			t.Errorf("%s: reason %q, want %q", name, reasons[name], want)
		}
	}

	var hits []hitOut
	okJSON(t, &hits, lib, "query", "pilot cutter waits beyond the outer buoy", "--mode", "fts", "--limit", "3")
	// The two short pages make one passage, cited with both.
	if len(hits) == 0 || hits[0].Title != "Harbour Charts" || hits[0].PageStart == nil || *hits[0].PageStart != 1 || *hits[0].PageEnd != 2 {
		t.Fatalf("query: %+v", hits)
	}
	out := ok(t, lib, "query", "pilot cutter waits beyond the outer buoy", "--mode", "fts", "--limit", "1")
	if !strings.Contains(out, "pp. 1–2") {
		t.Errorf("the hit is not cited with its page:\n%s", out)
	}
}

// TestCorpusDjVu syncs the corpus's DjVu files: the specification's
// outline gives its chapters, and a passage is found on its page.
func TestCorpusDjVu(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	src := testcorpus.Path(t, "books", "djvu")
	entries, _ := os.ReadDir(src)
	for _, e := range entries {
		copyFile(t, filepath.Join(src, e.Name()), filepath.Join(lib, e.Name()))
	}
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Ingested != len(entries) || s.Failed != 0 {
		t.Fatalf("sync: %+v", s)
	}
	var hits []hitOut
	okJSON(t, &hits, lib, "query", "the traditional Move To Front permutation table is augmented with a frequency estimation", "--mode", "fts", "--limit", "3")
	if len(hits) == 0 || hits[0].PageStart == nil || *hits[0].PageStart != 64 || !strings.Contains(hits[0].Chapter, "BZZ") {
		t.Errorf("query: %+v", first(hits))
	}
}
