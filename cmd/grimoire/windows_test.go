//go:build windows

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWindowsNames: a sync takes a book whose path is past MAX_PATH, and
// a book under a name Windows keeps for a device, or in a folder whose name
// ends in a dot, is either indexed or reported by its name with the
// reason, never passed over in silence; the other books are indexed.
func TestWindowsNames(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "tides.md"), "# Tides\n\nSpring tides follow the full and the new moon.\n")
	long := filepath.Join(lib, strings.Repeat("a-long-folder-name-", 8), strings.Repeat("and-another-one-", 8), "owls.md")
	if len(long) <= 260 {
		t.Fatalf("%d characters is no long path", len(long))
	}
	writeFile(t, long, "# Owls\n\nOwls hunt at night and swallow their prey whole.\n")
	// Written by the \\?\ form, which Windows takes as it is: these names
	// come from other systems' disks and shares.
	for _, p := range []string{filepath.Join(lib, "aux.md"), filepath.Join(lib, "Vol. 1.", "knots.md")} {
		if err := os.MkdirAll(`\\?\`+filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		title := strings.TrimSuffix(filepath.Base(p), ".md")
		if err := os.WriteFile(`\\?\`+p, []byte("# "+title+" book\n\nThe bowline makes a fixed loop.\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	var s syncOut
	okJSON(t, &s, lib, "sync")
	got := " " + slugs(t, lib) + " "
	for _, want := range []string{"tides:ready", "owls:ready"} {
		if !strings.Contains(got, " "+want+" ") {
			t.Errorf("books %q, want %s\nfailures: %+v", got, want, s.Failures)
		}
	}
	failed := func(name, reason string) bool {
		for _, f := range s.Failures {
			if strings.Contains(f.Path, name) && strings.Contains(f.Error, reason) {
				return true
			}
		}
		return false
	}
	// Windows 11 no longer keeps a device name with an extension.
	if filepath.IsLocal("aux.md") {
		if !strings.Contains(got, " aux-book:ready ") {
			t.Errorf("books %q, want aux.md indexed\nfailures: %+v", got, s.Failures)
		}
	} else if !failed("aux.md", "Windows keeps this name for a device") {
		t.Errorf("aux.md is not reported as a device's name\nbooks %q\nfailures: %+v", got, s.Failures)
	}
	if !strings.Contains(got, " knots-book:ready ") && !failed("Vol. 1.", "") {
		t.Errorf("the book in \"Vol. 1.\" is neither indexed nor reported\nbooks %q\nfailures: %+v", got, s.Failures)
	}
}
