package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestEscapeControls(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, keep, want string }{
		{"plain title", "", "plain title"},
		{"name\x1b[31mred.md", "", `name\x1b[31mred.md`},
		{"\x1b]0;title\a.md", "", `\x1b]0;title\a.md`},
		{"two\nlines\tand tab", "", `two\nlines\tand tab`},
		{"two\nlines\tand tab", "\n\t", "two\nlines\tand tab"},
		{"carriage\rreturn", "\n\t", `carriage\rreturn`},
		{"evil\u202egpj.exe", "", `evil\u202egpj.exe`},
		{"c1\u009bcontrol", "", `c1\u009bcontrol`},
		{"bad\xffutf8", "", `bad\xffutf8`},
		{"Éloïse – 東京", "", "Éloïse – 東京"},
	}
	for _, tc := range tests {
		if got := escapeControls(tc.in, tc.keep); got != tc.want {
			t.Errorf("escapeControls(%q, %q) = %q, want %q", tc.in, tc.keep, got, tc.want)
		}
		var b bytes.Buffer
		terminalWriter{&b}.Write([]byte(tc.in))
		if want := escapeControls(tc.in, "\n\t"); b.String() != want {
			t.Errorf("terminalWriter(%q) = %q, want %q", tc.in, b.String(), want)
		}
	}
}

func FuzzTerminalWriter(f *testing.F) {
	f.Add("name\x1b[31mred.md\n")
	f.Add("\u202e\xff\t")
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		terminalWriter{&b}.Write([]byte(s))
		out := b.String()
		for _, r := range out {
			if hidden(r) && r != '\n' && r != '\t' {
				t.Fatalf("%q passed %q through", s, r)
			}
		}
		if !needsEscape([]byte(s)) && out != s {
			t.Fatalf("clean text %q changed to %q", s, out)
		}
	})
}

// TestFileNamesCannotDriveTheTerminal: names and titles with escape
// sequences come out escaped in human output and exact in JSON.
func TestFileNamesCannotDriveTheTerminal(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	red := "name\x1b[31mred.md"
	title := "\x1b]0;title\a.md"
	writeFile(t, filepath.Join(lib, red), "# Red\n\nThe lighthouse keeper painted the lamp red.\n")
	writeFile(t, filepath.Join(lib, title), "---\ntitle: \"Owls \\e[5m blinking\"\n---\n# Owls\n\nOwls hunt at night near the lighthouse.\n")
	writeFile(t, filepath.Join(lib, "bad\x1b[2J.epub"), "not a zip at all")
	outs := map[string]string{
		"sync":   ok(t, lib, "sync"),
		"status": ok(t, lib, "status"),
		"list":   ok(t, lib, "list"),
		"query":  ok(t, lib, "query", "lighthouse"),
	}
	for cmd, out := range outs {
		if strings.ContainsAny(out, "\x1b\a") {
			t.Errorf("%s printed a raw control character:\n%q", cmd, out)
		}
	}
	if !strings.Contains(outs["status"], `bad\x1b[2J.epub`) || !strings.Contains(outs["query"], `name\x1b[31mred.md`) {
		t.Errorf("escaped names missing:\nstatus %q\nquery %q", outs["status"], outs["query"])
	}
	var books []bookOut
	okJSON(t, &books, lib, "list")
	found := false
	for _, b := range books {
		for _, p := range b.Paths {
			found = found || filepath.Base(p) == red
		}
	}
	if !found {
		b, _ := json.Marshal(books)
		t.Errorf("list --json does not hold the exact name %q: %s", red, b)
	}
}
