package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/library"
)

// TestMissingLibraryIsRefused: a library folder that does not exist, with
// no index yet, is a typo to report, not an empty library to create.
func TestMissingLibraryIsRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
	}{
		{"sync", []string{"--library", "Bookz", "sync"}},
		{"sync PATH", []string{"--library", "Bookz", "sync", "Bookz/a.md"}},
		{"watch", []string{"--library", "Bookz", "watch"}},
		{"serve", []string{"--library", "Bookz", "serve"}},
		{"serve --watch", []string{"--library", "Bookz", "serve", "--watch"}},
		{"status", []string{"--library", "Bookz", "status"}},
		{"query", []string{"--library", "Bookz", "query", "owls"}},
		{"list", []string{"--library", "Bookz", "list"}},
		{"outline", []string{"--library", "Bookz", "outline", "owls"}},
		{"section", []string{"--library", "Bookz", "section", "owls", "1", "0"}},
		{"delete", []string{"--library", "Bookz", "delete", "owls", "--yes"}},
		{"exclusions", []string{"--library", "Bookz", "exclusions"}},
		{"reindex", []string{"--library", "Bookz", "reindex", "--fts"}},
		{"rebuild", []string{"--library", "Bookz", "rebuild"}},
		{"mcp-config", []string{"--library", "Bookz", "mcp-config"}},
		{"init", []string{"init", "Bookz"}},
		{"config file", []string{"--config", "grimoire.toml", "sync"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "grimoire.toml"), "library = [\"Bookz\"]\n")
			r := grimoire(t, dir, tc.args...)
			if r.code != exitNotFound || !strings.Contains(r.stderr, filepath.Join(dir, "Bookz")+" does not exist") ||
				!strings.Contains(r.stderr, "check the spelling") {
				t.Errorf("exit %d, stderr %q; want %d, the path and a hint", r.code, r.stderr, exitNotFound)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				t.Errorf("%d entries in the folder, want only grimoire.toml: %v", len(entries), entries)
			}
		})
	}
}

// TestLibraryThatIsAFile: a file given as the library is a usage error.
func TestLibraryThatIsAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "book.md"), "# A\n\nalpha\n")
	r := grimoire(t, dir, "--library", "book.md", "sync")
	if r.code != exitInvalid || !strings.Contains(r.stderr, "not a folder") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the folder, want only book.md: %v", len(entries), entries)
	}
}

// TestUsageErrorsExit2: every mistake in how a command is called exits 2
// and says, on stderr, how the command is called.
func TestUsageErrorsExit2(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		hint string // on stderr
	}{
		{"query without text", []string{"query"}, "usage: grimoire query TEXT"},
		{"section with two arguments", []string{"section", "SLUG", "3"}, "usage: grimoire section SLUG CHAPTER SECTION"},
		{"status with an argument", []string{"status", "extra"}, "usage: grimoire status"},
		{"sync with two paths", []string{"sync", "a", "b"}, "usage: grimoire sync [PATH]"},
		{"eval compare with one run", []string{"eval", "compare", "a.jsonl"}, "usage: grimoire eval compare A B"},
		{"unknown command", []string{"serch", "owls"}, "grimoire --help"},
		{"unknown flag", []string{"sync", "--bogus"}, "usage: grimoire sync [PATH]"},
		{"unknown global flag", []string{"--bogus"}, "usage: grimoire COMMAND"},
		{"bad flag value", []string{"query", "owls", "--limit", "many"}, "usage: grimoire query TEXT"},
		{"numbers that are not", []string{"section", "owls", "one", "two"}, "CHAPTER and SECTION are numbers"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r := grimoire(t, dir, tc.args...)
			if r.code != exitInvalid || !strings.Contains(r.stderr, tc.hint) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, exitInvalid, tc.hint)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a usage error left %v", entries)
			}
		})
	}
}

// TestCountsReadRight: one of a thing is printed in the singular, and the
// sync summary does not make a new book look like a part of what was
// hashed.
func TestCountsReadRight(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "owls.md"), "# Owls\n\nOwls hunt at night.\n")
	steps := []struct {
		name string
		args []string
		want []string
	}{
		{"first sync", []string{"sync"}, []string{
			"scanned 1 file, hashed 1; 1 new book; 0 files changed, 0 moved, 0 copied, 0 removed\n",
			"ingested 1 book, pruned 0, 0 failed",
		}},
		{"status", []string{"status"}, []string{"books     1 ready, 0 pending, 0 ingesting, 0 failed (1 file)\n"}},
		{"delete", []string{"delete", "owls", "--yes"}, nil},
		{"lift", []string{"exclusions", "lift", "owls"}, nil},
		// The file is known by its size and time: its book is made again
		// without hashing it.
		{"sync after lift", []string{"sync"}, []string{"scanned 1 file, hashed 0; 1 new book; 0 files changed"}},
		{"status after", []string{"status"}, []string{"(1 file)"}},
	}
	for _, s := range steps {
		out := ok(t, lib, s.args...)
		for _, w := range s.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", s.name, w, out)
			}
		}
		for _, bad := range []string{" 1 books", " 1 files", " 1 chapters"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: %q in:\n%s", s.name, bad, out)
			}
		}
	}
}

// TestExclusionsSpeakLikeList deletes a book by its slug and checks that
// `exclusions --json` names its content as `list --json` did, and that the
// same slug lifts the exclusion.
func TestExclusionsSpeakLikeList(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "owls.md"), "---\ntitle: On Owls\n---\n# Night hunters\n\nOwls hunt at night.\n")
	ok(t, lib, "sync")
	var books []bookOut
	okJSON(t, &books, lib, "list")
	if len(books) != 1 || !strings.HasPrefix(books[0].Hash, "blake3-") {
		t.Fatalf("list = %+v", books)
	}
	slug, hash := books[0].Slug, books[0].Hash

	ok(t, lib, "delete", slug, "--yes")
	out := ok(t, lib, "exclusions", "--json")
	var ex []struct{ Hash, Slug, Title string }
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatalf("exclusions --json: %v\n%s", err, out)
	}
	if len(ex) != 1 || ex[0].Hash != hash || ex[0].Slug != slug {
		t.Fatalf("exclusions = %+v, want hash %s and slug %s as list gave them", ex, hash, slug)
	}

	if r := grimoire(t, lib, "exclusions", "lift", slug); r.code != 0 || !strings.Contains(r.stdout, "lifted") {
		t.Fatalf("exclusions lift %s: exit %d\n%s%s", slug, r.code, r.stdout, r.stderr)
	}
	var s syncOut
	okJSON(t, &s, lib, "sync")
	wantCounters(t, "sync after lifting", s, map[string]int{"new": 1, "ingested": 1})
}

// addPendingBooks records files in the index as a sync's scan does, before
// their books are ingested: the books are pending, as in a first sync.
func addPendingBooks(t *testing.T, lib string, names ...string) {
	t.Helper()
	ctx := context.Background()
	w, err := index.OpenWriter(ctx, filepath.Join(lib, ".grimoire", "grimoire.db"), "grimoire sync")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, name := range names {
		f := library.File{Path: filepath.Join(lib, name), Root: lib, Hash: library.SumBytes([]byte(name)), SourceType: "markdown"}
		if err := w.Update(ctx, func(tx *index.Tx) error {
			_, err := tx.PutFile(ctx, f, library.Hash{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQueryDuringFirstSync: while books wait to be indexed, a search says
// so and how far indexing has got, on stderr (stdout stays the results),
// and --json marks each hit; "no matches" then speaks only of the ready
// books.
func TestQueryDuringFirstSync(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "owls.md"), "# Owls\n\nOwls hunt at night.\n")
	ok(t, lib, "sync")
	// Once every book is ready, nothing is said of indexing.
	r := grimoire(t, lib, "query", "owls hunt", "--json")
	if r.code != 0 || r.stderr != "" || strings.Contains(r.stdout, `"indexing"`) {
		t.Fatalf("indexed library: exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}

	addPendingBooks(t, lib, "tides.md", "knots.md")
	const line = "indexing under way: 1 of 3 books ready; results come from those\n"
	cases := []struct {
		name   string
		args   []string
		stdout string // what stdout holds
	}{
		{"hits", []string{"query", "owls hunt"}, "Owls hunt at night."},
		// Only a pending book selected: nothing to read in it yet.
		{"no hits", []string{"query", "owls", "--book", "tides"}, "no matches among the 1 book ready so far\n"},
		{"json hits", []string{"query", "owls hunt", "--json"}, `"indexing": {`},
		{"json no hits", []string{"query", "owls", "--book", "tides", "--json"}, "[]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := grimoire(t, lib, tc.args...)
			if r.code != 0 || r.stderr != line || !strings.Contains(r.stdout, tc.stdout) {
				t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant exit 0, stderr %q, stdout with %q", r.code, r.stderr, r.stdout, line, tc.stdout)
			}
		})
	}
	var hits []struct {
		Book     string
		Indexing *struct{ Ready, Total int }
	}
	okJSON(t, &hits, lib, "query", "owls hunt")
	if len(hits) == 0 || hits[0].Book != "owls" {
		t.Fatalf("hits %+v", hits)
	}
	for _, h := range hits {
		if h.Indexing == nil || h.Indexing.Ready != 1 || h.Indexing.Total != 3 {
			t.Errorf("hit in %s: indexing %+v, want 1 of 3", h.Book, h.Indexing)
		}
	}
}
