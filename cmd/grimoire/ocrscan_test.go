//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testbook"
)

// The words of the scanned pages these tests make: rare enough that only
// the scan can answer a search for them.
var (
	herons = []string{
		"The lighthouse keeper counted seventeen herons",
		"on the breakwater at dawn, and wrote their number",
		"in the logbook beside the weather and the tide.",
	}
	gulls = []string{
		"Page two speaks of gulls over the harbour wall,",
		"where the fishing boats wait for the morning ferry.",
	}
)

// onlyTesseract is a PATH on which tesseract is found and nothing else of
// djvulibre's: DjVu pages cannot be drawn.
func onlyTesseract(t *testing.T) string {
	t.Helper()
	real := needTesseract(t)
	dir := t.TempDir()
	if err := os.Symlink(real, filepath.Join(dir, "tesseract")); err != nil {
		t.Fatal(err)
	}
	return "PATH=" + dir
}

// countingTesseract is a tesseract that logs each page it reads as a line
// of the file it returns, with the configuration that has grimoire use it.
func countingTesseract(t *testing.T, lib string) (log string) {
	t.Helper()
	real := needTesseract(t)
	tools := t.TempDir()
	log = filepath.Join(tools, "pages.log")
	wrapper := filepath.Join(tools, "tesseract")
	writeFile(t, wrapper, "#!/bin/sh\ncase \"$*\" in *tsv*) echo page >> '"+log+"' ;; esac\nexec '"+real+"' \"$@\"\n")
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(lib, "grimoire.toml"), "library = [\".\"]\n[ocr]\ntesseract = \""+wrapper+"\"\n")
	return log
}

// hitOn returns the first hit of a search for q in lib, and whether it is
// from the book in file and cited to page.
func hitOn(t *testing.T, lib, q, file string, page int) (hitOut, bool) {
	t.Helper()
	var hits []hitOut
	okJSON(t, &hits, lib, "query", q, "--limit", "1")
	if len(hits) == 0 {
		return hitOut{}, false
	}
	h := hits[0]
	return h, filepath.Base(h.Path) == file && h.PageStart != nil && *h.PageStart == page
}

// TestOCRMadeScan: a PDF the test makes of a scanned page of words and a
// page smeared past reading is read by OCR through the real binary: a
// search finds the words on their page, and status flags the smeared
// page as read with low confidence.
func TestOCRMadeScan(t *testing.T) {
	needTesseract(t)
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "logbook.pdf"), string(testbook.ScannedPDF(t,
		testbook.ScannedPage{Scan: testbook.ScanPage(t, herons...)},
		testbook.ScannedPage{Scan: testbook.SmearedPage(t, 2, gulls...)})))
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Ingested != 1 || s.Failed != 0 || s.NeedsOCR != 0 {
		t.Fatalf("sync %+v, want the scan ingested", s)
	}
	if h, ok := hitOn(t, lib, "lighthouse keeper seventeen herons breakwater", "logbook.pdf", 1); !ok || !strings.Contains(h.Text, "seventeen herons") {
		t.Errorf("hit %+v, want the words of page 1 cited to it", h)
	}
	var st ocrStatus
	okJSON(t, &st, lib, "status")
	if len(st.OCR) != 1 || !slices.Equal(st.OCR[0].LowConfidence, []int{2}) {
		t.Errorf("status OCR %+v, want page 2 alone flagged as of low confidence", st.OCR)
	}
	db := filepath.Join(lib, ".grimoire", "grimoire.db")
	if words := countRows(t, db, "SELECT words FROM ocr_page WHERE page = 2"); words == 0 {
		t.Errorf("OCR read no word on the smeared page: its confidence says nothing")
	}
	if out := ok(t, lib, "status"); !strings.Contains(out, "low OCR confidence") || !strings.Contains(out, "logbook.pdf: page 2 ") {
		t.Errorf("status says:\n%s\nwant page 2 flagged", out)
	}
}
