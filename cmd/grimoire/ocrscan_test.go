//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

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
// from the book in file and cited to pages that take in page.
func hitOn(t *testing.T, lib, q, file string, page int) (hitOut, bool) {
	t.Helper()
	var hits []hitOut
	okJSON(t, &hits, lib, "query", q, "--limit", "1")
	if len(hits) == 0 {
		return hitOut{}, false
	}
	h := hits[0]
	return h, filepath.Base(h.Path) == file && h.PageStart != nil && *h.PageStart <= page && page <= pageEnd(h)
}

// TestOCRMadeScan: a PDF the test makes of a scanned page of words and a
// page smeared past reading is read by OCR through the real binary: a
// search finds the words on their page, and status flags the smeared
// page as read with low confidence.
func TestOCRMadeScan(t *testing.T) {
	t.Parallel()
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

var ferry = []string{
	"The ferry captain rang the copper bell twice",
	"before the crossing to the island of Skerrymore.",
}

// TestOCRMixedPDFWaitsThenRead: a PDF of a text page and a scanned page,
// indexed while tesseract is missing, is searchable from its text page
// and listed by status as having a page unread; once tesseract is there,
// the next sync reads that page and lays the book out again, with no
// other step.
func TestOCRMixedPDFWaitsThenRead(t *testing.T) {
	t.Parallel()
	needTesseract(t)
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "harbour.pdf"), string(testbook.ScannedPDF(t,
		testbook.ScannedPage{Text: gulls},
		testbook.ScannedPage{Scan: testbook.ScanPage(t, herons...)})))
	missing := filepath.Join(t.TempDir(), "no", "tesseract")
	writeFile(t, filepath.Join(lib, "grimoire.toml"), "library = [\".\"]\n[ocr]\ntesseract = \""+missing+"\"\n")
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Ingested != 1 || s.Failed != 0 {
		t.Fatalf("sync without tesseract: %+v, want the book ingested from its text page", s)
	}
	if h, ok := hitOn(t, lib, "gulls harbour wall fishing boats ferry", "harbour.pdf", 1); !ok {
		t.Errorf("hit %+v, want the text page", h)
	}
	if h, ok := hitOn(t, lib, "lighthouse keeper seventeen herons breakwater", "harbour.pdf", 2); ok {
		t.Errorf("hit %+v on the scanned page before any OCR", h)
	}
	var st ocrStatus
	okJSON(t, &st, lib, "status")
	if len(st.OCR) != 1 || !st.OCR[0].Ready || st.OCR[0].Pages != 1 || !strings.Contains(st.OCR[0].Waiting, "tesseract") {
		t.Fatalf("status OCR %+v, want the book ready with its scanned page waiting for tesseract", st.OCR)
	}
	if out := ok(t, lib, "status"); !strings.Contains(out, "scanned pages unread, searchable from the rest meanwhile") {
		t.Errorf("status says:\n%s\nwant the book listed as partly read", out)
	}

	writeFile(t, filepath.Join(lib, "grimoire.toml"), "library = [\".\"]\n")
	okJSON(t, &s, lib, "sync")
	if s.Ingested != 1 || s.Failed != 0 {
		t.Errorf("sync once tesseract is there: %+v, want the book laid out again", s)
	}
	if h, ok := hitOn(t, lib, "lighthouse keeper seventeen herons breakwater", "harbour.pdf", 2); !ok {
		t.Errorf("hit %+v, want the scanned page, read", h)
	}
	if h, ok := hitOn(t, lib, "gulls harbour wall fishing boats ferry", "harbour.pdf", 1); !ok {
		t.Errorf("hit %+v, want the text page still", h)
	}
	okJSON(t, &st, lib, "status")
	if len(st.OCR) != 0 || st.Ready != 1 {
		t.Errorf("status %+v, want the book ready and nothing left for OCR", st)
	}
	okJSON(t, &s, lib, "sync")
	if s.Ingested != 0 {
		t.Errorf("a third sync ingested %d books, want none", s.Ingested)
	}
}

// TestOCRDjVu: DjVu pages without a text layer are read by OCR, drawn by
// ddjvu. Without ddjvu, a DjVu of scans waits and a DjVu with text besides
// is searchable from it, both listed by status with the package to
// install; once ddjvu is there, the next sync reads them.
func TestOCRDjVu(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "logbook.djvu"), string(testbook.ScannedDjVu(t, "Logbook",
		testbook.ScannedPage{Scan: testbook.ScanPage(t, herons...)})))
	writeFile(t, filepath.Join(lib, "ferry.djvu"), string(testbook.ScannedDjVu(t, "Ferry",
		testbook.ScannedPage{Text: gulls},
		testbook.ScannedPage{Scan: testbook.ScanPage(t, ferry...)})))
	if _, err := exec.LookPath("ddjvu"); err != nil {
		t.Skip("ddjvu (djvulibre-bin) is not installed; skipping")
	}
	noDDJVU := []string{onlyTesseract(t)}

	var s syncOut
	okEnv(t, lib, noDDJVU, &s, "sync", "--json")
	if s.Ingested != 1 || s.NeedsOCR != 1 || s.Failed != 0 {
		t.Fatalf("sync without ddjvu: %+v, want the mixed book ingested and the scan waiting", s)
	}
	var st ocrStatus
	okEnv(t, lib, noDDJVU, &st, "status", "--json")
	if len(st.OCR) != 2 {
		t.Fatalf("status OCR %+v, want both books listed", st.OCR)
	}
	for _, b := range st.OCR {
		if !strings.Contains(b.Waiting, "djvulibre") || b.Ready != (filepath.Base(b.Path) == "ferry.djvu") {
			t.Errorf("status OCR %+v, want it waiting for djvulibre, ready only if it has text", b)
		}
	}
	if h, ok := hitOn(t, lib, "gulls harbour wall fishing boats", "ferry.djvu", 1); !ok {
		t.Errorf("hit %+v, want the text page of the mixed book", h)
	}

	okJSON(t, &s, lib, "sync")
	if s.Ingested != 2 || s.NeedsOCR != 0 || s.Failed != 0 {
		t.Errorf("sync with ddjvu: %+v, want both books ingested", s)
	}
	if h, ok := hitOn(t, lib, "lighthouse keeper seventeen herons breakwater", "logbook.djvu", 1); !ok || !strings.Contains(h.Text, "herons") {
		t.Errorf("hit %+v, want the scan's words on its page", h)
	}
	if h, ok := hitOn(t, lib, "ferry captain copper bell Skerrymore", "ferry.djvu", 2); !ok {
		t.Errorf("hit %+v, want the mixed book's scanned page", h)
	}
	okJSON(t, &st, lib, "status")
	if len(st.OCR) != 0 || st.Ready != 2 {
		t.Errorf("status %+v, want both books ready and nothing left for OCR", st)
	}
}

// TestRebuildKeepsOCR: a rebuild carries over the text OCR read, so that
// tesseract reads no page again, and the scan is found on its page after
// it.
func TestRebuildKeepsOCR(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	log := countingTesseract(t, lib)
	writeFile(t, filepath.Join(lib, "logbook.pdf"), string(testbook.ScannedPDF(t,
		testbook.ScannedPage{Text: gulls},
		testbook.ScannedPage{Scan: testbook.ScanPage(t, herons...)},
		testbook.ScannedPage{Scan: testbook.ScanPage(t, ferry...)})))
	ok(t, lib, "sync")
	if n := lines(t, log); n != 2 {
		t.Fatalf("the sync read %d pages, want the 2 scans", n)
	}
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Books          int
		OCRPagesReused int `json:"ocr_pages_reused"`
	}
	okJSON(t, &rep, lib, "rebuild")
	if n := lines(t, log); n != 0 || rep.OCRPagesReused != 2 || rep.Books != 1 {
		t.Errorf("the rebuild read %d pages again (%+v), want none: both kept", n, rep)
	}
	if h, ok := hitOn(t, lib, "lighthouse keeper seventeen herons breakwater", "logbook.pdf", 2); !ok {
		t.Errorf("hit %+v after the rebuild, want the scanned page", h)
	}
	if out := ok(t, lib, "rebuild"); !strings.Contains(out, "the text of 2 scanned pages read by OCR") {
		t.Errorf("rebuild says:\n%s\nwant it to count the pages kept", out)
	}
}

// TestOCRFailureKeepsBookSearchable: when OCR fails on the scans of a book
// searchable from its text, the book stays searchable, status says why
// its scans are unread and what tries them again, and later syncs do not
// try them again: a rebuild does.
func TestOCRFailureKeepsBookSearchable(t *testing.T) {
	t.Parallel()
	real := needTesseract(t)
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "harbour.pdf"), string(testbook.ScannedPDF(t,
		testbook.ScannedPage{Text: gulls},
		testbook.ScannedPage{Scan: testbook.ScanPage(t, herons...)})))
	writeFile(t, filepath.Join(lib, "grimoire.toml"), "library = [\".\"]\n[ocr]\ntesseract = \"/nonexistent/tesseract\"\n")
	ok(t, lib, "sync")

	tools := t.TempDir()
	log := filepath.Join(tools, "pages.log")
	broken := filepath.Join(tools, "tesseract")
	// Lists its languages, then fails on every page.
	writeFile(t, broken, "#!/bin/sh\ncase \"$*\" in *tsv*) echo page >> '"+log+"'; echo 'cannot read the page' >&2; exit 1 ;; esac\nprintf 'List of available languages (1):\\neng\\n'\n")
	if err := os.Chmod(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(lib, "grimoire.toml"), "library = [\".\"]\n[ocr]\ntesseract = \""+broken+"\"\n")
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Failed != 0 || len(s.Failures) != 1 || !strings.Contains(s.Failures[0].Error, "OCR failed") {
		t.Errorf("sync %+v, want OCR's failure reported and the book not failed", s)
	}
	var st ocrStatus
	okJSON(t, &st, lib, "status")
	if st.Ready != 1 || len(st.OCR) != 1 || !strings.Contains(st.OCR[0].Waiting, "cannot read the page") {
		t.Errorf("status %+v, want the book ready, its scan unread with why", st)
	}
	if h, ok := hitOn(t, lib, "gulls harbour wall fishing boats", "harbour.pdf", 1); !ok {
		t.Errorf("hit %+v, want the text page still", h)
	}
	tried := lines(t, log)
	okJSON(t, &s, lib, "sync")
	if n := lines(t, log); n != tried || s.Ingested != 0 {
		t.Errorf("a later sync tried %d pages again and ingested %d books, want none", n-tried, s.Ingested)
	}

	// Status says what will try them again, not that something is
	// missing; and that is what happens, once tesseract works.
	out := ok(t, lib, "status")
	if !strings.Contains(out, "where OCR failed, it tries again when the file changes, or at `grimoire rebuild`") || strings.Contains(out, "installed") {
		t.Errorf("status says:\n%s\nwant when OCR is tried again, and nothing of installing", out)
	}
	writeFile(t, filepath.Join(lib, "grimoire.toml"), "library = [\".\"]\n[ocr]\ntesseract = \""+real+"\"\n")
	okJSON(t, &s, lib, "sync")
	if h, found := hitOn(t, lib, "lighthouse keeper seventeen herons breakwater", "harbour.pdf", 2); found || s.Ingested != 0 {
		t.Errorf("a sync with tesseract working ingested %d books, hit %+v; want the failed scan left be", s.Ingested, h)
	}
	ok(t, lib, "rebuild")
	if h, found := hitOn(t, lib, "lighthouse keeper seventeen herons breakwater", "harbour.pdf", 2); !found {
		t.Errorf("hit %+v after the rebuild, want the scanned page read", h)
	}
}

// TestOCRStatusSaysWhatReadsTheScans: status's note under the books
// waiting for OCR fits why they wait: something to install, or OCR turned
// off.
func TestOCRStatusSaysWhatReadsTheScans(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, ocr   string
		want, never string
	}{
		{"tesseract missing", "tesseract = \"/nonexistent/tesseract\"",
			"reads them once that is installed", "enabled"},
		{"OCR off", "enabled = \"off\"",
			"reads them once [ocr] enabled is \"auto\"", "installed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lib := t.TempDir()
			writeFile(t, filepath.Join(lib, "logbook.pdf"), string(testbook.ScannedPDF(t,
				testbook.ScannedPage{Scan: testbook.ScanPage(t, herons...)})))
			writeFile(t, filepath.Join(lib, "grimoire.toml"), "library = [\".\"]\n[ocr]\n"+tc.ocr+"\n")
			ok(t, lib, "sync")
			out := ok(t, lib, "status")
			if !strings.Contains(out, "needs OCR 1 book") || !strings.Contains(out, tc.want) || strings.Contains(out, tc.never) {
				t.Errorf("status says:\n%s\nwant %q and nothing of %q", out, tc.want, tc.never)
			}
		})
	}
}

// TestDjVuDrawingKilledLeavesNoCopy kills `grimoire sync` with SIGKILL
// while ddjvu draws a DjVu page: the copy of the book ddjvu reads must
// not be left behind in the temporary folder.
func TestDjVuDrawingKilledLeavesNoCopy(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills real processes; slow")
	}
	needTesseract(t)
	real, err := exec.LookPath("ddjvu")
	if err != nil {
		t.Skip("ddjvu (djvulibre-bin) is not installed; skipping")
	}
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "logbook.djvu"), string(testbook.ScannedDjVu(t, "Logbook",
		testbook.ScannedPage{Scan: testbook.ScanPage(t, herons...)})))
	tools, tmp := t.TempDir(), t.TempDir()
	log := filepath.Join(tools, "pages.log")
	// A ddjvu slow enough to be killed in, that says when it starts.
	writeFile(t, filepath.Join(tools, "ddjvu"), "#!/bin/sh\necho page >> '"+log+"'\nsleep 2\nexec '"+real+"' \"$@\"\n")
	if err := os.Chmod(filepath.Join(tools, "ddjvu"), 0o755); err != nil {
		t.Fatal(err)
	}

	p := start(t, lib, []string{"TMPDIR=" + tmp, "PATH=" + tools + string(os.PathListSeparator) + os.Getenv("PATH")}, "sync")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(log); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ddjvu not started within 2 minutes\nstderr: %s", p.errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	p.done <- nil // for the cleanup

	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "grimoire") {
			t.Errorf("%s left in the temporary folder", e.Name())
		}
	}
}

// TestOCRScanTitledByFileName: a scanned PDF whose file names no title is
// called by its file name, as a text PDF without one is, and not by the
// first line OCR read on it.
func TestOCRScanTitledByFileName(t *testing.T) {
	t.Parallel()
	needTesseract(t)
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "Harbour Logbook.pdf"), string(testbook.ScannedPDF(t,
		testbook.ScannedPage{Scan: testbook.ScanPage(t, herons...)})))
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Ingested != 1 || s.Failed != 0 {
		t.Fatalf("sync %+v, want the scan ingested", s)
	}
	var books []bookOut
	okJSON(t, &books, lib, "list")
	if len(books) != 1 || books[0].Title != "Harbour Logbook" || books[0].Slug != "harbour-logbook" {
		t.Errorf("listed %+v, want one book titled %q with slug %q", books, "Harbour Logbook", "harbour-logbook")
	}
}
