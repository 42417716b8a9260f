package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNotesWithoutText: a note with nothing to search (front matter alone,
// headings alone, blank lines) is no ready book of 0 passages: its sync
// fails it with the reason, as it fails a PDF without text, and status
// lists it among the problems; a note with a line of text is a book.
func TestNotesWithoutText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file, body, reason string
	}{
		{"front-matter.md", "---\ntitle: Harbour Notes\ntags: [tides, boats]\n---\n", "front matter"},
		{"headings.md", "# Harbour\n\n## Tides\n", "headings"},
		{"blank.md", "\n  \n\n", "blank lines"},
		{"blank.txt", "  \n\n\t\n", "whitespace"},
		{"blank.rtf", `{\rtf1\ansi{\fonttbl\f0 Helvetica;}\f0\par\par}`, "no text found"},
	}
	lib := t.TempDir()
	for _, tc := range tests {
		writeFile(t, filepath.Join(lib, tc.file), tc.body)
	}
	writeFile(t, filepath.Join(lib, "tides.md"), "---\ntitle: Tides\n---\nThe tide turns twice a day.\n")
	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Ingested != 1 || s.Failed != len(tests) {
		t.Errorf("sync: %d ingested, %d failed, want 1 and %d: %+v", s.Ingested, s.Failed, len(tests), s.Failures)
	}
	reasons := map[string]string{}
	for _, f := range s.Failures {
		reasons[filepath.Base(f.Path)] = f.Error
	}
	var books []bookOut
	okJSON(t, &books, lib, "list")
	status := map[string]string{}
	for _, b := range books {
		status[filepath.Base(b.Paths[0])] = b.Status
	}
	problems := ok(t, lib, "status")
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			if r := reasons[tc.file]; !strings.HasPrefix(r, "no text found") || !strings.Contains(r, tc.reason) {
				t.Errorf("reason %q, want no text found, saying %q", r, tc.reason)
			}
			if status[tc.file] == "ready" {
				t.Errorf("listed as a ready book")
			}
			if !strings.Contains(problems, tc.file+": no text found") {
				t.Errorf("status does not list it:\n%s", problems)
			}
		})
	}
	if status["tides.md"] != "ready" {
		t.Errorf("the note with text is %q, want ready", status["tides.md"])
	}
}
