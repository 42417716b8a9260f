//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// scannedCorpus copies the corpus's scanned PDFs named into a new library
// folder, skipping the test without the corpus.
func scannedCorpus(t *testing.T, names ...string) string {
	t.Helper()
	dir := testcorpus.Path(t, "books", "scanned")
	lib := t.TempDir()
	for _, n := range names {
		copyFile(t, filepath.Join(dir, n), filepath.Join(lib, n))
	}
	return lib
}

func needTesseract(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("tesseract")
	if err != nil {
		t.Skip("tesseract is not installed; skipping (apt-get install tesseract-ocr)")
	}
	return path
}

type ocrStatus struct {
	Ready, Pending, Failed int
	OCR                    []index.OCRBook `json:"ocr"`
}

// TestOCRScannedBook: a scanned PDF beside a note is read by OCR after
// the note, and a passage from a scanned page is found and cited to its
// page.
func TestOCRScannedBook(t *testing.T) {
	t.Parallel()
	needTesseract(t)
	lib := scannedCorpus(t, "freeculture-p18-21.pdf")
	writeFile(t, filepath.Join(lib, "note.md"), "# Gardens\n\nA short note about gardens and hedges.\n")
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Ingested != 2 || s.Failed != 0 || s.NeedsOCR != 0 {
		t.Fatalf("sync: %+v, want both books ingested", s)
	}
	var hits []hitOut
	okJSON(t, &hits, lib, "query", "Causby farmers chickens low-flying military aircraft", "--limit", "3")
	if len(hits) == 0 || !strings.HasPrefix(filepath.Base(hits[0].Path), "freeculture") {
		t.Fatalf("hits %+v, want the scan first", hits)
	}
	if h := hits[0]; h.PageStart == nil || *h.PageStart != 1 || !strings.Contains(h.Text, "Causby") {
		t.Errorf("first hit %+v, want the passage on page 1", h)
	}
	var st ocrStatus
	okJSON(t, &st, lib, "status")
	if st.Ready != 2 || len(st.OCR) != 0 {
		t.Errorf("status %+v, want two books ready and no OCR left or doubtful", st)
	}
}

// TestOCRWaitsForTesseract: without tesseract a book of scans is not a
// failure but waits, listed by status with how to install it; once
// tesseract is there, the next sync reads it with no other step.
func TestOCRWaitsForTesseract(t *testing.T) {
	t.Parallel()
	lib := scannedCorpus(t, "freeculture-p18-21.pdf")
	missing := filepath.Join(t.TempDir(), "no", "tesseract")
	writeFile(t, filepath.Join(lib, "grimoire.toml"), "library = [\".\"]\n[ocr]\ntesseract = \""+missing+"\"\n")
	out := ok(t, lib, "sync")
	if !strings.Contains(out, "1 book waiting for OCR") {
		t.Errorf("sync says:\n%s\nwant it to say a book waits for OCR", out)
	}
	var st ocrStatus
	okJSON(t, &st, lib, "status")
	if st.Failed != 0 || st.Pending != 0 || len(st.OCR) != 1 || st.OCR[0].Pages != 4 || !strings.Contains(st.OCR[0].Waiting, "[ocr] tesseract") {
		t.Fatalf("status %+v, want the book waiting for OCR, not failed", st)
	}
	human := ok(t, lib, "status")
	if !strings.Contains(human, "needs OCR 1 book") || !strings.Contains(human, "tesseract is not installed") {
		t.Errorf("status says:\n%s\nwant the book listed as needing OCR", human)
	}

	needTesseract(t)
	writeFile(t, filepath.Join(lib, "grimoire.toml"), "library = [\".\"]\n")
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Ingested != 1 || s.NeedsOCR != 0 {
		t.Errorf("sync once tesseract is there: %+v, want the book ingested", s)
	}
}

// TestOCRResumesAfterKill9 kills `grimoire sync` with SIGKILL while it
// reads a scan, then syncs again: the pages stored before the kill are not
// read again, and the book comes out whole.
func TestOCRResumesAfterKill9(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills real processes; slow")
	}
	real := needTesseract(t)
	lib := scannedCorpus(t, "nist-sp800-207-p13-16-noisy.pdf")
	tools := t.TempDir()
	log := filepath.Join(tools, "pages.log")
	wrapper := filepath.Join(tools, "tesseract")
	// Each page read is a line in the log; --list-langs is not.
	writeFile(t, wrapper, "#!/bin/sh\ncase \"$*\" in *tsv*) echo page >> '"+log+"' ;; esac\nexec '"+real+"' \"$@\"\n")
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(lib, "grimoire.toml"), "library = [\".\"]\n[ocr]\nconcurrency = 1\ntesseract = \""+wrapper+"\"\n")
	db := filepath.Join(lib, ".grimoire", "grimoire.db")

	p := start(t, lib, nil, "sync")
	deadline := time.Now().Add(4 * time.Minute)
	stored := 0
	for stored == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no page stored within 4 minutes\nstderr: %s", p.errb.String())
		}
		time.Sleep(200 * time.Millisecond)
		if _, err := os.Stat(db); err == nil {
			stored = countRowsIfReady(t, db, "SELECT count(*) FROM ocr_page")
		}
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	p.done <- nil // for the cleanup
	stored = countRows(t, db, "SELECT count(*) FROM ocr_page")
	if stored >= 4 {
		t.Skipf("the sync read every page before it was killed; nothing to resume")
	}
	readBefore := lines(t, log)
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}

	var s syncOut
	okJSON(t, &s, lib, "sync")
	readAfter := lines(t, log)
	t.Logf("killed after %d pages stored (%d read or in flight); the second sync read %d", stored, readBefore, readAfter)
	if readAfter != 4-stored {
		t.Errorf("the second sync read %d pages, want %d: the %d stored must not be read again", readAfter, 4-stored, stored)
	}
	if s.Ingested != 1 || countRows(t, db, "SELECT count(*) FROM ocr_page") != 4 {
		t.Errorf("sync %+v, want the book ingested with its 4 pages", s)
	}
	var hits []hitOut
	okJSON(t, &hits, lib, "query", "zero trust architecture", "--limit", "1")
	if len(hits) == 0 || hits[0].PageStart == nil {
		t.Errorf("hits %+v, want a passage cited to its page", hits)
	}
}

// countRowsIfReady counts rows, 0 while the table is not there yet.
func countRowsIfReady(t *testing.T, db, q string) int {
	t.Helper()
	if countRows(t, db, "SELECT count(*) FROM sqlite_master WHERE name = 'ocr_page'") == 0 {
		return 0
	}
	return countRows(t, db, q)
}

func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}
