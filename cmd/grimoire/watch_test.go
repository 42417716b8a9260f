package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
	"github.com/grimoire-search/grimoire/library"
)

// proc is a grimoire process running in the background.
type proc struct {
	cmd  *exec.Cmd
	out  lockedBuffer
	errb lockedBuffer
	done chan error
}

func start(t *testing.T, dir string, env []string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(binary, args...), done: make(chan error, 1)}
	p.cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GRIMOIRE_") {
			p.cmd.Env = append(p.cmd.Env, kv)
		}
	}
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.errb
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// stop sends SIGTERM and returns the exit code.
func (p *proc) stop(t *testing.T, within time.Duration) int {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		p.done <- nil // for the cleanup
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(within):
		t.Fatalf("process did not stop within %v after SIGTERM\nstderr: %s", within, p.errb.String())
	}
	return -1
}

// stopped stops the process as stop does and fails the test unless it
// exited 0. A process whose clean stop outlasted the grace after the signal
// (a loaded machine) exits 130 saying so; that counts as stopped too, for
// tests that are not about how fast a stop is.
func (p *proc) stopped(t *testing.T, within time.Duration) {
	t.Helper()
	code := p.stop(t, within)
	if code == 0 || code == exitInterrupted && strings.Contains(p.errb.String(), "still busy") {
		return
	}
	t.Fatalf("exited %d after SIGTERM\nstderr: %s", code, p.errb.String())
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out after %v waiting for: %s", timeout, what)
}

func topBook(t *testing.T, dir, q string) (hitOut, bool) {
	t.Helper()
	r := grimoire(t, dir, "query", q, "--mode", "fts", "--json")
	if r.code != 0 {
		return hitOut{}, false
	}
	var hits []hitOut
	if err := jsonUnmarshal(r.stdout, &hits); err != nil || len(hits) == 0 {
		return hitOut{}, false
	}
	return hits[0], true
}

var watchEnv = []string{"GRIMOIRE_WATCH_DEBOUNCE=300ms"}

func TestWatchKeepsIndexInSync(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "first.md"), "# First\n\nThe aardvark digs for termites at night.\n")
	w := start(t, lib, watchEnv, "watch")
	eventually(t, "the initial scan", 20*time.Second, func() bool {
		_, ok := topBook(t, lib, "aardvark termites")
		return ok
	})

	t.Run("a second writer is refused", func(t *testing.T) {
		r := grimoire(t, lib, "watch")
		if r.code != exitConflict || !strings.Contains(r.stderr, "grimoire watch (pid") {
			t.Errorf("second watch: exit %d: %s", r.code, r.stderr)
		}
		// sync is handed to the watcher instead.
		r = grimoire(t, lib, "sync")
		if r.code != 0 || !strings.Contains(r.stderr, "grimoire watch (pid") {
			t.Errorf("sync: exit %d: %s", r.code, r.stderr)
		}
	})

	t.Run("a new book becomes searchable", func(t *testing.T) {
		writeFile(t, filepath.Join(lib, "new.md"), "# Newcomer\n\nQuokkas smile for photographs on Rottnest Island.\n")
		eventually(t, "the new book", 20*time.Second, func() bool {
			h, ok := topBook(t, lib, "quokkas rottnest")
			return ok && h.Title == "Newcomer"
		})
	})

	t.Run("a moved book answers from its new path without re-ingest", func(t *testing.T) {
		before := chunkIDs(t, lib)
		os.MkdirAll(filepath.Join(lib, "shelf"), 0o755)
		os.Rename(filepath.Join(lib, "new.md"), filepath.Join(lib, "shelf", "moved.md"))
		eventually(t, "the move", 20*time.Second, func() bool {
			h, ok := topBook(t, lib, "quokkas rottnest")
			return ok && strings.HasSuffix(h.Path, filepath.Join("shelf", "moved.md"))
		})
		if after := chunkIDs(t, lib); after != before {
			t.Errorf("chunks changed on a move: re-ingested")
		}
	})

	t.Run("an atomic save replaces the old version", func(t *testing.T) {
		target := filepath.Join(lib, "first.md")
		tmp := filepath.Join(lib, ".first.md.swp")
		os.WriteFile(tmp, []byte("# First\n\nThe pangolin rolls into a ball.\n"), 0o644)
		os.Rename(tmp, target)
		eventually(t, "the saved version", 20*time.Second, func() bool {
			_, newOK := topBook(t, lib, "pangolin ball")
			_, oldOK := topBook(t, lib, "aardvark termites")
			return newOK && !oldOK
		})
	})

	t.Run("a slowly written file is ingested once, complete", func(t *testing.T) {
		p := filepath.Join(lib, "slow.md")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("# Slow\n\n")
		for i := range 8 {
			fmt.Fprintf(f, "Paragraph %d about the slow loris.\n\n", i)
			f.Sync()
			time.Sleep(250 * time.Millisecond)
		}
		f.WriteString("The final sentence mentions the capybara.\n")
		f.Close()
		eventually(t, "the complete slow file", 30*time.Second, func() bool {
			h, ok := topBook(t, lib, "capybara")
			return ok && h.Title == "Slow"
		})
		var books []bookOut
		okJSON(t, &books, lib, "list")
		n := 0
		for _, b := range books {
			if b.Title == "Slow" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d versions of the slow file", n)
		}
	})

	t.Run("a burst of 200 files converges", func(t *testing.T) {
		for i := range 200 {
			writeFile(t, filepath.Join(lib, "burst", fmt.Sprintf("b%03d.md", i)), fmt.Sprintf("# Burst %d\n\nburstword%d appears here.\n", i, i))
		}
		eventually(t, "all 200 files", 60*time.Second, func() bool {
			var st statusOut
			r := grimoire(t, lib, "status", "--json")
			return r.code == 0 && jsonUnmarshal(r.stdout, &st) == nil && st.Ready == 203 && st.Pending == 0
		})
		if _, ok := topBook(t, lib, "burstword199"); !ok {
			t.Error("last burst file not searchable")
		}
	})

	t.Run("a deleted file is pruned", func(t *testing.T) {
		os.Remove(filepath.Join(lib, "shelf", "moved.md"))
		eventually(t, "the prune", 20*time.Second, func() bool {
			_, ok := topBook(t, lib, "quokkas rottnest")
			return !ok
		})
	})

	t.Run("status shows the watcher", func(t *testing.T) {
		var st struct {
			Writer struct {
				Running bool
				PID     int
				Command string
			}
			Watch *index.WatchState
		}
		okJSON(t, &st, lib, "status")
		if !st.Writer.Running || st.Writer.PID != w.cmd.Process.Pid || st.Watch == nil || st.Watch.LastFullScan.IsZero() {
			t.Errorf("status: %+v", st)
		}
	})

	w.stopped(t, 5*time.Second)
	// The lock is free again.
	ok(t, lib, "sync")
}

// chunkIDs fingerprints the chunk rows of the index, ids included, so a
// re-ingest shows.
func chunkIDs(t *testing.T, lib string) string {
	t.Helper()
	r, err := index.OpenReader(context.Background(), filepath.Join(lib, ".grimoire", "grimoire.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	books, err := r.Books(context.Background(), index.BookFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, bk := range books {
		chunks, _ := r.ChunkRange(context.Background(), bk.ID, 0, bk.Chunks)
		for _, k := range chunks {
			fmt.Fprintf(&b, "%d:%d;", bk.ID, k.ID)
		}
	}
	return b.String()
}

// fingerprint is what must be the same after crashes as after a clean run:
// every book's content hash with its status, and every chunk's position and
// text, plus the answers to a few queries.
func fingerprint(t *testing.T, lib string, env []string, queries []string) string {
	t.Helper()
	db := filepath.Join(lib, ".grimoire", "grimoire.db")
	r, err := index.OpenReader(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	books, err := r.Books(context.Background(), index.BookFilter{})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(books, func(i, j int) bool { return books[i].Hash.String() < books[j].Hash.String() })
	var lines []string
	for _, b := range books {
		chunks, err := r.ChunkRange(context.Background(), b.ID, 0, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		embedded := 0
		for _, k := range chunks {
			fmt.Fprintf(h, "%d/%d/%d/%s/%s\n", k.Index, k.ChapterIndex, k.SectionIndex, k.Heading, k.Text)
			if k.State == library.ChunkEmbedded {
				embedded++
			}
		}
		lines = append(lines, fmt.Sprintf("%s %s %s chunks=%d embedded=%d text=%s", b.Hash.Short(), b.Slug, b.Status, len(chunks), embedded, hex.EncodeToString(h.Sum(nil))[:16]))
	}
	var st statusOut
	okEnv(t, lib, env, &st, "status", "--json")
	lines = append(lines, fmt.Sprintf("status books=%d ready=%d chunks=%d pending=%d failed=%d", st.Books, st.Ready, st.Chunks, st.Pending, st.Failed))
	for _, q := range queries {
		var hits []hitOut
		okEnv(t, lib, env, &hits, "query", q, "--limit", "5", "--json")
		var got []string
		for _, h := range hits {
			got = append(got, fmt.Sprintf("%s#%d.%d", h.Book, h.ChapterIndex, h.SectionIndex))
		}
		lines = append(lines, q+" => "+strings.Join(got, ", "))
	}
	return strings.Join(lines, "\n")
}

func integrity(t *testing.T, lib string) {
	t.Helper()
	w, err := index.OpenWriter(context.Background(), filepath.Join(lib, ".grimoire", "grimoire.db"), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// crashLibrary is a library with War and Peace (a long ingest) and a few
// more books, from the corpus.
func crashLibrary(t *testing.T) (string, []string) {
	t.Helper()
	src := testcorpus.Path(t, "books", "text")
	lib := t.TempDir()
	for _, name := range []string{"2600-0.txt", "11-0.txt", "pg84.txt", "Candide.txt"} {
		copyFile(t, filepath.Join(src, name), filepath.Join(lib, name))
	}
	md := testcorpus.Path(t, "books", "markdown", "rust-book")
	entries, _ := os.ReadDir(md)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			copyFile(t, filepath.Join(md, e.Name()), filepath.Join(lib, "rust", e.Name()))
		}
	}
	return lib, []string{
		"Prince Andrew at Austerlitz looking at the sky",
		"Either the well was very deep, or she fell very slowly",
		"ownership rules in Rust",
		"the creature on the ice",
	}
}

func cloneDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if strings.HasPrefix(rel, ".grimoire") {
			return nil
		}
		copyFile(t, p, filepath.Join(dst, rel))
		return nil
	})
	return dst
}

// TestSyncSurvivesKill9 kills `grimoire sync` with SIGKILL at random moments
// (mid-hash, mid-parse, mid-embed, mid-prune), then lets it finish, and
// compares the index with a clean run's.
func TestSyncSurvivesKill9(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills real processes; slow")
	}
	lib, queries := crashLibrary(t)
	clean := cloneDir(t, lib)
	ok(t, clean, "sync")
	want := fingerprint(t, clean, nil, queries)

	rng := rand.New(rand.NewSource(1))
	kills := 0
	for i := 0; i < 10; i++ {
		if i == 5 {
			// Mid-prune and mid-change: edit and remove files between kills.
			os.Remove(filepath.Join(lib, "Candide.txt"))
			copyFile(t, filepath.Join(clean, "Candide.txt"), filepath.Join(lib, "Candide.txt"))
		}
		p := start(t, lib, nil, "sync")
		time.Sleep(time.Duration(50+rng.Intn(1500)) * time.Millisecond)
		p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		p.done <- nil
		if p.cmd.ProcessState.ExitCode() != 0 {
			kills++
		}
	}
	if kills == 0 {
		t.Fatal("no sync was actually interrupted: the library is too small for this test")
	}
	ok(t, lib, "sync")
	integrity(t, lib)
	if got := fingerprint(t, lib, nil, queries); got != want {
		t.Errorf("after %d kills the index differs from a clean run:\n got:\n%s\nwant:\n%s", kills, got, want)
	}
}

// TestWatchSurvivesKill9MidIngest kills `grimoire watch` while it ingests
// War and Peace and checks that a restart completes the book with exactly
// the chunks of a clean run.
func TestWatchSurvivesKill9MidIngest(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills real processes; slow")
	}
	src := testcorpus.Path(t, "books", "text", "2600-0.txt")
	lib := t.TempDir()
	copyFile(t, src, filepath.Join(lib, "war-and-peace.txt"))
	// A model server that takes its time, so that the kill comes while
	// the book is being embedded: the built-in embedder is done before a
	// status can tell.
	f := newFakeModels(t, "nomic-embed-text", "llama3.2")
	f.embedDelay = 20 * time.Millisecond
	env := append(f.embedEnv(), watchEnv...)
	clean := cloneDir(t, lib)
	okEnv(t, clean, env, nil, "sync")
	queries := []string{"Prince Andrew at Austerlitz looking at the sky", "Natasha at the ball"}
	want := fingerprint(t, clean, env, queries)

	f.mu.Lock()
	base := f.embedded
	f.mu.Unlock()
	w := start(t, lib, env, "watch")
	eventually(t, "embedding under way", 60*time.Second, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.embedded > base+500
	})
	var st struct{ Chunks, Embedded, Ready int }
	okEnv(t, lib, env, &st, "status", "--json")
	w.cmd.Process.Signal(syscall.SIGKILL)
	<-w.done
	w.done <- nil
	if st.Ready != 0 {
		t.Logf("the book was ready before the kill (%+v); the kill tested a finished ingest", st)
	} else {
		t.Logf("killed with %d of %d chunks embedded", st.Embedded, st.Chunks)
	}
	w2 := start(t, lib, env, "watch")
	eventually(t, "the book to be ready", 120*time.Second, func() bool {
		var st statusOut
		r := grimoire(t, lib, "status", "--json")
		return r.code == 0 && jsonUnmarshal(r.stdout, &st) == nil && st.Ready == 1
	})
	w2.stopped(t, 5*time.Second)
	integrity(t, lib)
	if got := fingerprint(t, lib, env, queries); got != want {
		t.Errorf("after the kill the index differs from a clean run:\n got:\n%s\nwant:\n%s", got, want)
	}
}

// TestWatchRequeuesChangedBookAndStopsCleanly changes a book while watch
// ingests it (the new version must win, once), then stops watch with
// SIGTERM in the middle of another long ingest.
func TestWatchRequeuesChangedBookAndStopsCleanly(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("long ingest")
	}
	src := testcorpus.Path(t, "books", "text", "2600-0.txt")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lib := t.TempDir()
	w := start(t, lib, watchEnv, "watch")
	eventually(t, "the initial scan", 20*time.Second, func() bool {
		var st struct{ Watch *index.WatchState }
		r := grimoire(t, lib, "status", "--json")
		return r.code == 0 && jsonUnmarshal(r.stdout, &st) == nil && st.Watch != nil
	})
	book := filepath.Join(lib, "war-and-peace.txt")
	os.WriteFile(book, data, 0o644)
	eventually(t, "embedding under way", 60*time.Second, func() bool {
		var st struct{ Embedded, Ready int }
		r := grimoire(t, lib, "status", "--json")
		return r.code == 0 && jsonUnmarshal(r.stdout, &st) == nil && st.Embedded > 0
	})
	edited := append(append([]byte{}, data...), []byte("\r\n\r\nA POSTSCRIPT\r\n\r\nThe zebra-striped ottoman was never mentioned again.\r\n")...)
	os.WriteFile(book, edited, 0o644)
	// The postscript follows the Gutenberg licence, which the parser
	// drops: the new version is told by its hash, not by its words.
	want := library.SumBytes(edited).String()
	eventually(t, "the edited version", 120*time.Second, func() bool {
		var books []bookOut
		r := grimoire(t, lib, "list", "--json")
		return r.code == 0 && jsonUnmarshal(r.stdout, &books) == nil &&
			len(books) == 1 && books[0].Status == "ready" && books[0].Hash == want
	})
	if h, ok := topBook(t, lib, "Natásha Pierre"); !ok || !strings.HasSuffix(h.Path, "war-and-peace.txt") {
		t.Errorf("the edited version does not answer: %+v", h)
	}

	copyFile(t, src, filepath.Join(lib, "copy-with-a-twist.txt"))
	writeFile(t, filepath.Join(lib, "other.txt"), string(data[:len(data)/2])+"\nunique tail words: periwinkle marmalade\n")
	eventually(t, "another ingest under way", 60*time.Second, func() bool {
		var st struct{ Pending, Parsed int }
		r := grimoire(t, lib, "status", "--json")
		return r.code == 0 && jsonUnmarshal(r.stdout, &st) == nil && st.Parsed > 0
	})
	begin := time.Now()
	if code := w.stop(t, 5*time.Second); code != 0 {
		t.Fatalf("watch exited %d on SIGTERM mid-ingest\n%s", code, w.errb.String())
	}
	t.Logf("stopped %v after SIGTERM, mid-ingest", time.Since(begin).Round(time.Millisecond))
	ok(t, lib, "sync")
	integrity(t, lib)
	if _, ok := topBook(t, lib, "periwinkle marmalade"); !ok {
		t.Error("the interrupted book was not completed by the next sync")
	}
}

// TestWatchWaitsForSlowCopy writes a PDF into a watched folder slowly,
// as scp or a download does, for longer than the watcher waits for a file
// to settle (15 × debounce): the watcher hands it on half-written. No
// failure may show while it grows; once whole, it is added.
func TestWatchWaitsForSlowCopy(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(testcorpus.Path(t, "books", "pdf", "freeculture.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	lib := t.TempDir()
	// Chunks come 400 ms apart: inside the quiet window, and far enough
	// apart for the scan to hash the file between two of them (it waits
	// 100 ms for a file's mtime to age).
	w := start(t, lib, []string{"GRIMOIRE_WATCH_DEBOUNCE=800ms"}, "watch")
	type failure struct{ Path, Error string }
	var st struct {
		Ready, Failed int
		Failures      []failure
		LastSync      *struct{ Failures []failure } `json:"last_sync"`
		Watch         *index.WatchState
	}
	status := func() bool {
		r := grimoire(t, lib, "status", "--json")
		if r.code != 0 || jsonUnmarshal(r.stdout, &st) != nil {
			return false
		}
		failures := st.Failures
		if st.LastSync != nil {
			failures = append(failures, st.LastSync.Failures...)
		}
		if st.Failed > 0 || len(failures) > 0 {
			t.Fatalf("a failure is recorded for a file still being written: %d failed, %+v", st.Failed, failures)
		}
		return true
	}
	eventually(t, "the initial scan", 20*time.Second, func() bool { return status() && st.Watch != nil })

	book := filepath.Join(lib, "freeculture.pdf")
	f, err := os.Create(book)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	writing := make(chan error, 1)
	go func() {
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 76<<10)
			if _, err := f.Write(rest[:n]); err != nil {
				writing <- err
				return
			}
			rest = rest[n:]
			time.Sleep(400 * time.Millisecond)
		}
		writing <- f.Close()
	}()
	begin := time.Now()
	for done := false; !done; {
		select {
		case err := <-writing:
			if err != nil {
				t.Fatal(err)
			}
			done = true
		case <-time.After(300 * time.Millisecond):
			status()
		}
	}
	t.Logf("written in %v", time.Since(begin).Round(time.Millisecond))
	eventually(t, "the whole book", 60*time.Second, func() bool { return status() && st.Ready == 1 })
	w.stopped(t, 10*time.Second)
	if out := w.out.String(); strings.Contains(out, "failed") || !strings.Contains(out, `added "Free Culture"`) {
		t.Errorf("watch said:\n%s", out)
	}
}
