package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUsageHints: an unknown command gets grimoire's name for it or the
// nearest commands, a misspelt flag the nearest flags, and a flag value
// that does not parse a message naming the flag and the value; all exit 2
// as usage errors do.
func TestUsageHints(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		args []string
		line string // stderr's first line
	}{
		{[]string{"search", "whales"}, "grimoire: unknown command \"search\": `grimoire query TEXT` searches the library"},
		{[]string{"index"}, "grimoire: unknown command \"index\": `grimoire sync` indexes the library (and `grimoire watch` keeps it indexed)"},
		{[]string{"version"}, "grimoire: unknown command \"version\": `grimoire --version` names the build"},
		{[]string{"qeury", "whales"}, `grimoire: unknown command "qeury": did you mean query?`},
		{[]string{"serch", "whales"}, `grimoire: unknown command "serch": did you mean query?`},
		{[]string{"exclusions", "lfit", "owls"}, `grimoire: unknown command "lfit" for "grimoire exclusions": did you mean lift?`},
		{[]string{"sync", "--prnue"}, "grimoire: unknown flag --prnue: did you mean --prune?"},
		{[]string{"query", "whales", "--limt", "3"}, "grimoire: unknown flag --limt: did you mean --limit?"},
		{[]string{"status", "--libary", dir}, "grimoire: unknown flag --libary: did you mean --library?"},
		{[]string{"query", "whales", "--limit", "abc"}, `grimoire: --limit "abc": not a whole number`},
		{[]string{"query", "whales", "--limit", "99999999999999999999"}, `grimoire: --limit "99999999999999999999": out of range`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := grimoire(t, dir, tc.args...)
			first, _, _ := strings.Cut(r.stderr, "\n")
			if r.code != exitInvalid || first != tc.line {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, first line:\n%s", r.code, r.stderr, exitInvalid, tc.line)
			}
		})
	}
}

// TestListNoneSelected: list's filters that select no book exit 3 with
// the reason, as query's do, with --json too; an empty library listed
// without filters is no error, and says how books get in.
func TestListNoneSelected(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "owls.md"), "# Owls\n\nOwls hunt at night.\n")
	ok(t, lib, "--library", lib, "sync")
	empty := t.TempDir()
	ok(t, empty, "--library", empty, "sync")

	const hint = " — `grimoire list` without filters shows every book\n"
	tests := []struct {
		name   string
		dir    string
		args   []string
		code   int
		stderr string
	}{
		{name: "an author no book has", dir: lib, args: []string{"--author", "Nobody"}, code: exitNotFound,
			stderr: `grimoire: no book's author contains "Nobody"` + hint},
		{name: "an author no book has, as JSON", dir: lib, args: []string{"--author", "Nobody", "--json"}, code: exitNotFound,
			stderr: `grimoire: no book's author contains "Nobody"` + hint},
		{name: "a title no book has", dir: lib, args: []string{"--match", "whales"}, code: exitNotFound,
			stderr: `grimoire: no book's title or author contains "whales"` + hint},
		{name: "an empty library without filters", dir: empty,
			stderr: "grimoire: the index holds no books yet; `grimoire sync` adds the library's\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := grimoire(t, tc.dir, append([]string{"--library", tc.dir, "list"}, tc.args...)...)
			if r.code != tc.code || r.stderr != tc.stderr || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d, no stdout, stderr:\n%s", r.code, r.stdout, r.stderr, tc.code, tc.stderr)
			}
		})
	}
}

// TestDeleteNamesTheBook: delete without --yes, where it cannot ask,
// names the book its slug or prefix resolved to in its refusal.
func TestDeleteNamesTheBook(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	book := filepath.Join(lib, "owls.md")
	writeFile(t, book, "---\ntitle: Owls of the North\nauthor: Ann Birder\n---\n\n# Owls\n\nOwls hunt at night.\n")
	ok(t, lib, "--library", lib, "sync")
	r := grimoire(t, lib, "--library", lib, "delete", "owl")
	want := `grimoire: delete owls-of-the-north ("Owls of the North" by Ann Birder, ` + book + `): pass --yes to confirm`
	if first, _, _ := strings.Cut(r.stderr, "\n"); r.code != exitInvalid || first != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d, first line:\n%s", r.code, r.stderr, exitInvalid, want)
	}
	if r := grimoire(t, lib, "--library", lib, "delete", "whales"); r.code != exitNotFound {
		t.Errorf("delete of an unknown book without --yes: exit %d, want %d\n%s", r.code, exitNotFound, r.stderr)
	}
}
