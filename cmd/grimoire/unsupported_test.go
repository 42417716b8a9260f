package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/library"
)

type unsupportedOut struct {
	Files       int                   `json:"unsupported_files"`
	Unsupported []library.Unsupported `json:"unsupported"`
}

// unsupportedLine is status's line about the files grimoire does not
// read, or "" when it prints none.
func unsupportedLine(t *testing.T, lib string) string {
	t.Helper()
	for _, line := range strings.Split(ok(t, lib, "status"), "\n") {
		if strings.HasPrefix(line, "not read") {
			return line
		}
	}
	return ""
}

func TestStatusCountsFilesGrimoireDoesNotRead(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "notes.md"), "# Notes\n\nThe aardvark digs for termites at night.\n")
	for _, name := range []string{"comics/a.cbz", "comics/b.cbz", "comics/C.CBZ", "scans/atlas.cbr", "covers/a.jpg", "covers/b.jpg", "LICENSE"} {
		writeFile(t, filepath.Join(lib, name), "not a book")
	}
	// Names the walk leaves out are not counted: hidden files and folders
	// (the index's own .grimoire among them), partial downloads.
	for _, name := range []string{".hidden.cbz", ".git/objects/x.pack", "big.cbz.part"} {
		writeFile(t, filepath.Join(lib, name), "not a book")
	}
	if out := unsupportedLine(t, lib); out != "" {
		t.Errorf("before any sync: %q", out)
	}
	ok(t, lib, "sync")

	want := "not read  7 files: 3 .cbz, 2 .jpg, 1 .cbr, 1 without an extension (no format grimoire reads)"
	if got := unsupportedLine(t, lib); got != want {
		t.Errorf("status:\n got %q\nwant %q", got, want)
	}
	var st unsupportedOut
	okJSON(t, &st, lib, "status")
	wantJSON := []library.Unsupported{{Extension: ".cbz", Files: 3}, {Extension: ".jpg", Files: 2}, {Extension: ".cbr", Files: 1}, {Extension: "", Files: 1}}
	if st.Files != 7 || !sameUnsupported(st.Unsupported, wantJSON) {
		t.Errorf("status --json: %+v", st)
	}

	t.Run("a sync of one folder recounts that folder only", func(t *testing.T) {
		writeFile(t, filepath.Join(lib, "comics", "d.cbz"), "not a book")
		writeFile(t, filepath.Join(lib, "scans", "map.cbr"), "not a book")
		ok(t, lib, "sync", filepath.Join(lib, "comics"))
		want := "not read  8 files: 4 .cbz, 2 .jpg, 1 .cbr, 1 without an extension (no format grimoire reads)"
		if got := unsupportedLine(t, lib); got != want {
			t.Errorf("status:\n got %q\nwant %q", got, want)
		}
	})

	t.Run("removed files are no longer counted after the next sync", func(t *testing.T) {
		for _, dir := range []string{"comics", "covers"} {
			if err := os.RemoveAll(filepath.Join(lib, dir)); err != nil {
				t.Fatal(err)
			}
		}
		ok(t, lib, "sync")
		want := "not read  3 files: 2 .cbr, 1 without an extension (no format grimoire reads)"
		if got := unsupportedLine(t, lib); got != want {
			t.Errorf("status:\n got %q\nwant %q", got, want)
		}
		os.Remove(filepath.Join(lib, "LICENSE"))
		os.RemoveAll(filepath.Join(lib, "scans"))
		ok(t, lib, "sync")
		if got := unsupportedLine(t, lib); got != "" {
			t.Errorf("status with nothing left out: %q", got)
		}
		okJSON(t, &st, lib, "status")
		if st.Files != 0 || st.Unsupported == nil || len(st.Unsupported) != 0 {
			t.Errorf("status --json with nothing left out: %+v", st)
		}
	})
}

func TestStatusNamesTheMostCommonExtensions(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "notes.md"), "# Notes\n\nThe aardvark digs for termites at night.\n")
	for i, ext := range []string{".a", ".b", ".c", ".d", ".e", ".f", ".g"} {
		for j := 0; j <= 7-i; j++ {
			writeFile(t, filepath.Join(lib, ext[1:], string(rune('a'+j))+ext), "x")
		}
	}
	ok(t, lib, "sync")
	want := "not read  35 files: 8 .a, 7 .b, 6 .c, 5 .d, 4 .e, 5 of 2 other extensions (no format grimoire reads)"
	if got := unsupportedLine(t, lib); got != want {
		t.Errorf("status:\n got %q\nwant %q", got, want)
	}
}

func TestWatchKeepsTheCountOfFilesItDoesNotRead(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "notes.md"), "# Notes\n\nThe aardvark digs for termites at night.\n")
	writeFile(t, filepath.Join(lib, "a.cbz"), "not a book")
	w := start(t, lib, watchEnv, "watch")
	counted := func(want string) func() bool {
		return func() bool { return unsupportedLine(t, lib) == want }
	}
	eventually(t, "the initial scan's count", 20*time.Second, counted("not read  1 file: 1 .cbz (no format grimoire reads)"))

	writeFile(t, filepath.Join(lib, "comics", "b.cbz"), "not a book")
	eventually(t, "a new .cbz counted", 20*time.Second, counted("not read  2 files: 2 .cbz (no format grimoire reads)"))

	os.Remove(filepath.Join(lib, "a.cbz"))
	os.RemoveAll(filepath.Join(lib, "comics"))
	eventually(t, "the removed .cbz files no longer counted", 20*time.Second, counted(""))
	w.stopped(t, 20*time.Second)
}

func sameUnsupported(got, want []library.Unsupported) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}
