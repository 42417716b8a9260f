package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/testbook"
)

// handoffBooks is a small library (see testbook.Shelf).
func handoffBooks(t *testing.T) string { return testbook.Shelf(t) }

// lockHolder is who holds the writer lock of the library's index.
func lockHolder(lib string) (index.LockHolder, bool) {
	return index.ReadLockHolder(filepath.Join(lib, ".grimoire", "grimoire.db"))
}

// watching starts a watcher (watch, or serve --watch) in lib and waits
// until it takes requests and has ingested the library's n books.
func watching(t *testing.T, lib string, n int, env []string, args ...string) *proc {
	t.Helper()
	p := start(t, lib, env, args...)
	eventually(t, "the watcher to take requests with every book ready", 30*time.Second, func() bool {
		h, running := lockHolder(lib)
		return running && h.Requests != "" && readyBooks(t, lib) == n
	})
	return p
}

func readyBooks(t *testing.T, lib string) int {
	t.Helper()
	var st statusOut
	r := grimoire(t, lib, "status", "--json")
	if r.code != 0 || jsonUnmarshal(r.stdout, &st) != nil {
		return -1
	}
	return st.Ready
}

func slugs(t *testing.T, lib string) string {
	t.Helper()
	var books []bookOut
	okJSON(t, &books, lib, "list")
	var s []string
	for _, b := range books {
		s = append(s, b.Slug+":"+b.Status)
	}
	return strings.Join(s, " ")
}

// sameOutput blanks what differs between two runs of a command that did
// the same: timings, and the library's own path.
var timings = regexp.MustCompile(`\d+\.\ds|"(started|finished)": "[^"]*"|"duration_ms": \d+`)

func sameOutput(s, lib string) string {
	return timings.ReplaceAllString(strings.ReplaceAll(s, lib, "LIB"), "T")
}

// TestWatcherCarriesOutWrites runs each command that writes the index twice:
// in a library where grimoire watch holds the writer lock, which hands the
// command to the watcher, and in the same library with no writer running.
// Both must print the same, exit the same and leave the same books, but
// where the watcher does more: it takes a lifted book back in at once.
func TestWatcherCarriesOutWrites(t *testing.T) {
	t.Parallel()
	handed, alone := handoffBooks(t), handoffBooks(t)
	ok(t, alone, "sync")
	w := watching(t, handed, 3, watchEnv, "watch")
	pid := w.cmd.Process.Pid
	handedLine := fmt.Sprintf("grimoire: grimoire watch (pid %d) writes the index; handed this to it, waiting…\n", pid)

	steps := []struct {
		name  string
		args  []string
		code  int
		books string // list's slugs and states afterwards
		// handedOut and handedBooks, when set, are the stdout and the
		// books through the watcher, where they differ from alone.
		handedOut, handedBooks string
	}{
		{name: "delete", args: []string{"delete", "owls", "--yes"}, books: "knots:ready tides:ready"},
		{name: "delete an unknown book", args: []string{"delete", "nosuch", "--yes"}, code: exitNotFound, books: "knots:ready tides:ready"},
		{name: "delete by a prefix", args: []string{"delete", "ti", "--yes"}, books: "knots:ready"},
		{name: "lift an exclusion", args: []string{"exclusions", "lift", "owls"}, books: "knots:ready",
			handedOut:   fmt.Sprintf("lifted the exclusion of \"Owls\"; grimoire watch (pid %d) added it back to the index\n", pid),
			handedBooks: "knots:ready owls:ready"},
		{name: "lift an unknown exclusion", args: []string{"exclusions", "lift", "nosuch"}, code: exitNotFound, books: "knots:ready", handedBooks: "knots:ready owls:ready"},
		{name: "sync ingests the lifted book", args: []string{"sync"}, books: "knots:ready owls:ready",
			handedOut: "scanned 3 files, hashed 0; 0 new books; 0 files changed, 0 moved, 0 copied, 0 removed\ningested 0 books, pruned 0, 0 failed (T)\n"},
		{name: "sync of a path", args: []string{"sync", "tides.md"}, books: "knots:ready owls:ready"},
		{name: "sync --json", args: []string{"sync", "--json", "--prune", "--retry"}, books: "knots:ready owls:ready"},
		{name: "reindex --fts", args: []string{"reindex", "--fts"}, books: "knots:ready owls:ready"},
		{name: "reindex --embeddings", args: []string{"reindex", "--embeddings"}, books: "knots:ready owls:ready"},
		{name: "reindex both", args: []string{"reindex", "--fts", "--embeddings"}, books: "knots:ready owls:ready"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			rh := grimoire(t, handed, s.args...)
			ra := grimoire(t, alone, s.args...)
			if rh.code != s.code || ra.code != s.code {
				t.Fatalf("exit %d through the watcher, %d alone; want %d\nstderr: %s", rh.code, ra.code, s.code, rh.stderr)
			}
			if !strings.HasPrefix(rh.stderr, handedLine) {
				t.Errorf("stderr does not say the watcher was asked:\n%s", rh.stderr)
			}
			want := sameOutput(ra.stdout, alone)
			if s.handedOut != "" {
				want = s.handedOut
			}
			if got := sameOutput(rh.stdout, handed); got != want || got == "" && s.code == 0 {
				t.Errorf("stdout through the watcher:\n%s\nalone:\n%s", got, want)
			}
			if got, want := sameOutput(strings.TrimPrefix(rh.stderr, handedLine), handed), sameOutput(ra.stderr, alone); got != want {
				t.Errorf("stderr through the watcher:\n%s\nalone:\n%s", got, want)
			}
			wantHanded := s.books
			if s.handedBooks != "" {
				wantHanded = s.handedBooks
			}
			if got := slugs(t, handed); got != wantHanded {
				t.Errorf("books through the watcher: %s, want %s", got, wantHanded)
			}
			if got := slugs(t, alone); got != s.books {
				t.Errorf("books alone: %s, want %s", got, s.books)
			}
		})
	}
	if _, ok := topBook(t, handed, "bowline loop"); !ok {
		t.Error("search fails after the reindex through the watcher")
	}
	w.stopped(t, 5*time.Second)
	if h, _ := lockHolder(handed); h.Requests != "" {
		t.Errorf("the lock file still names a socket: %+v", h)
	}
	if _, err := os.Stat(filepath.Join(handed, ".grimoire", "grimoire.db.requests")); err == nil {
		t.Error("the socket's folder outlived the watcher")
	}
}

// TestServeWatchCarriesOutWrites: serve --watch, the writer Claude Desktop
// runs, takes the same requests, and a book whose exclusion it lifts is
// back in the index when the lift answers, though nothing in the folder
// changed.
func TestServeWatchCarriesOutWrites(t *testing.T) {
	t.Parallel()
	lib := handoffBooks(t)
	// An index to serve from the start: with none, serve makes one while
	// its watcher waits for the lock.
	ok(t, lib, "sync")
	p := watching(t, lib, 3, watchEnv, "serve", "--watch", "--http", "127.0.0.1:0")
	r := grimoire(t, lib, "delete", "owls", "--yes")
	if r.code != 0 || r.stdout != "deleted owls (\"Owls\"); its files are now skipped by sync\n" ||
		!strings.Contains(r.stderr, fmt.Sprintf("grimoire serve --watch (pid %d) writes the index", p.cmd.Process.Pid)) {
		t.Fatalf("delete: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = grimoire(t, lib, "exclusions", "lift", "owls")
	if want := fmt.Sprintf("lifted the exclusion of \"Owls\"; grimoire serve --watch (pid %d) added it back to the index\n", p.cmd.Process.Pid); r.code != 0 || r.stdout != want {
		t.Errorf("exclusions lift: exit %d\n%s%s\nwant %s", r.code, r.stdout, r.stderr, want)
	}
	// Back at once: no change in the folder, and the lift has answered.
	if got := slugs(t, lib); got != "knots:ready owls:ready tides:ready" {
		t.Errorf("books after the lift: %s", got)
	}
	if _, found := topBook(t, lib, "swallow their prey"); !found {
		t.Error("a search does not find the lifted book")
	}
	var s syncOut
	okJSON(t, &s, lib, "sync")
	wantCounters(t, "sync through serve --watch", s, map[string]int{"scanned": 3, "new": 0, "ingested": 0})
	p.stopped(t, 5*time.Second)
}

// TestWatcherSwitchesModel: reindex --embeddings with another model
// configured has the watcher re-embed the library with it, and ingest new
// books with it from then on.
func TestWatcherSwitchesModel(t *testing.T) {
	t.Parallel()
	f := newFakeModels(t, "nomic-embed-text", "llama3.2")
	lib := handoffBooks(t)
	w := watching(t, lib, 3, watchEnv, "watch")
	env := f.embedEnv()
	r := grimoireEnv(t, lib, env, "reindex", "--embeddings")
	if r.code != 0 || sameOutput(r.stdout, lib) != "the index now uses ollama/nomic-embed-text (512 dimensions): 3 chunks re-embedded in T\n" ||
		!strings.Contains(r.stderr, "handed this to it") {
		t.Fatalf("reindex --embeddings: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	embedded := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.embedded
	}
	before := embedded()
	writeFile(t, filepath.Join(lib, "moths.md"), "# Moths\n\nMoths circle the lamp at dusk.\n")
	eventually(t, "the watcher to ingest a new book", 20*time.Second, func() bool { return readyBooks(t, lib) == 4 })
	if embedded() == before {
		t.Error("the watcher did not embed the new book with the new model")
	}
	var st statusOut
	okEnv(t, lib, env, &st, "status", "--json")
	if st.EmbeddingModel != "ollama/nomic-embed-text" {
		t.Errorf("status: %+v", st)
	}
	var hits []hitOut
	okEnv(t, lib, env, &hits, "query", "moths circle the lamp", "--mode", "vector", "--json")
	if len(hits) == 0 || hits[0].Title != "Moths" {
		t.Errorf("vector search after the switch: %v", first(hits))
	}
	w.stopped(t, 5*time.Second)
}
