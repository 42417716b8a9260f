//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/internal/testbook"
)

// gatedTesseract is a tesseract that reads page n only once the test
// opens gate n: the test, not the clock, says when OCR moves on.
type gatedTesseract struct {
	dir string
}

func newGatedTesseract(t *testing.T, lib string) *gatedTesseract {
	t.Helper()
	real := needTesseract(t)
	g := &gatedTesseract{dir: t.TempDir()}
	wrapper := filepath.Join(g.dir, "tesseract")
	writeFile(t, wrapper, fmt.Sprintf(`#!/bin/sh
case "$*" in *tsv*)
	n=$(( $(cat '%[1]s/count' 2>/dev/null || echo 0) + 1 ))
	echo $n > '%[1]s/count'
	while [ ! -e '%[1]s/gate'$n ]; do sleep 0.05; done ;;
esac
exec '%[2]s' "$@"
`, g.dir, real))
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(lib, "grimoire.toml"), "library = [\".\"]\n[ocr]\nconcurrency = 1\ntesseract = \""+wrapper+"\"\n")
	t.Cleanup(func() { g.open(t, 1, 2, 3, 4, 5, 6, 7, 8, 9) })
	return g
}

// open lets pages through.
func (g *gatedTesseract) open(t *testing.T, pages ...int) {
	for _, n := range pages {
		if err := os.WriteFile(filepath.Join(g.dir, fmt.Sprint("gate", n)), nil, 0o644); err != nil {
			t.Error(err)
		}
	}
}

// ocrShown is a progress line while OCR reads: the bar measures the
// book's pages, not the run's bytes, which OCR adds nothing to.
var ocrShown = regexp.MustCompile(`^OCR (\d)/3 pages \[[=> ]{20}\] +(\d+)%  \d+s(, about \d+s left)?  "logbook"(, [0-9.]+ pages/min)?, book 1/1$`)

// TestOCRProgressOnATerminal runs sync on a terminal over a scan of three
// pages whose reading the test lets through one page at a time, and reads
// the screen: the line names the book and counts its pages read, its bar
// moving with them, with their pace and the time left once there is one,
// and is gone before the summary.
func TestOCRProgressOnATerminal(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	g := newGatedTesseract(t, lib)
	writeFile(t, filepath.Join(lib, "logbook.pdf"), string(testbook.ScannedPDF(t,
		testbook.ScannedPage{Scan: testbook.ScanPage(t, herons...)},
		testbook.ScannedPage{Scan: testbook.ScanPage(t, gulls...)},
		testbook.ScannedPage{Scan: testbook.ScanPage(t, ferry...)})))
	cmd := exec.Command(binary, "sync")
	cmd.Dir = lib
	cmd.Env = cleanEnv()
	term := startOnTerminal(t, cmd)
	screen := term.screen

	// shown returns the OCR lines drawn so far, by pages read.
	shown := func() map[string][]string {
		seen := map[string][]string{}
		for _, l := range screenLines(screen.String()) {
			if m := ocrShown.FindStringSubmatch(l); m != nil {
				seen[m[1]] = m
			}
		}
		return seen
	}
	eventually(t, "a line counting no page read yet", time.Minute, func() bool { return shown()["0"] != nil })
	g.open(t, 1)
	eventually(t, "a line counting one page read, with its pace and the time left", time.Minute, func() bool {
		m := shown()["1"]
		return m != nil && m[3] != "" && m[4] != ""
	})
	if m := shown()["0"]; m[2] != "0" || m[3] != "" || m[4] != "" {
		t.Errorf("before any page was read: %q, want 0%% and neither pace nor time left", m[0])
	}
	if m := shown()["1"]; m[2] != "33" {
		t.Errorf("one page of three read: %q, want the bar at 33%%", m[0])
	}
	g.open(t, 2, 3)
	raw := term.finish(t, "sync did not finish once its pages were let through")
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("sync exited %d:\n%q", code, raw)
	}
	for n, m := range shown() {
		t.Logf("drawn at %s pages read: %q", n, m[0])
	}
	if !strings.Contains(raw, "ingested 1 book") || !strings.Contains(raw, "\r\x1b[Kscanned ") {
		t.Errorf("no summary, or the progress line left under it:\n%q", raw)
	}
}
