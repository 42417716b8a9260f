//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

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

var ocrLine = regexp.MustCompile(`"logbook": OCR (\d)/3 pages(, [0-9.]+ pages/min)?`)

// TestOCRProgressOnATerminal runs sync on a terminal over a scan of three
// pages whose reading the test lets through one page at a time, and reads
// the screen: the line names the book and counts its pages read, with
// their pace once there is one, and is gone before the summary.
func TestOCRProgressOnATerminal(t *testing.T) {
	lib := t.TempDir()
	g := newGatedTesseract(t, lib)
	writeFile(t, filepath.Join(lib, "logbook.pdf"), string(testbook.ScannedPDF(t,
		testbook.ScannedPage{Scan: testbook.ScanPage(t, herons...)},
		testbook.ScannedPage{Scan: testbook.ScanPage(t, gulls...)},
		testbook.ScannedPage{Scan: testbook.ScanPage(t, ferry...)})))
	cmd := exec.Command(binary, "sync")
	cmd.Dir = lib
	cmd.Env = cleanEnv()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	screen := &lockedBuffer{}
	copied := make(chan struct{})
	go func() {
		io.Copy(screen, tty) // ends with an error once the process is gone
		close(copied)
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})

	// shown returns the OCR lines drawn so far, by pages read.
	shown := func() map[string]string {
		seen := map[string]string{}
		for _, l := range screenLines(screen.String()) {
			if m := ocrLine.FindStringSubmatch(l); m != nil && strings.HasPrefix(l, "indexing book 1/1") {
				seen[m[1]] = l
			}
		}
		return seen
	}
	eventually(t, "a line counting no page read yet", time.Minute, func() bool { return shown()["0"] != "" })
	g.open(t, 1)
	eventually(t, "a line counting one page read, with its pace", time.Minute, func() bool {
		l := shown()["1"]
		return l != "" && strings.Contains(l, " pages/min")
	})
	if l := shown()["0"]; strings.Contains(l, "pages/min") {
		t.Errorf("a pace before any page was read: %q", l)
	}
	g.open(t, 2, 3)
	select {
	case <-done:
		done <- nil // for the cleanup
	case <-time.After(2 * time.Minute):
		t.Fatal("sync did not finish once its pages were let through")
	}
	<-copied
	raw := screen.String()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("sync exited %d:\n%q", code, raw)
	}
	t.Logf("lines drawn: %q", shown())
	if !strings.Contains(raw, "ingested 1 book") || !strings.Contains(raw, "\r\x1b[Kscanned ") {
		t.Errorf("no summary, or the progress line left under it:\n%q", raw)
	}
}
