package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	bin "encoding/binary"
	"encoding/hex"
	"encoding/json"
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
)

// shelfWords make up the generated books: few enough that every query
// finds something, many enough that rankings differ between books.
var shelfWords = strings.Fields("owl tea bee river stone night moon ship harbour tide knot loop anchor sail wind storm " +
	"light dark forest mountain lantern compass map island reef gull salt rope deck mast keel chart star")

// shelfLibrary writes n Markdown books of five chapters each, generated
// from a seed, so that the index spans a few hundred pages.
func shelfLibrary(t *testing.T, n int) string {
	t.Helper()
	lib := t.TempDir()
	rng := rand.New(rand.NewSource(int64(n)))
	for b := range n {
		var s strings.Builder
		fmt.Fprintf(&s, "# Book %d\n\n", b)
		for c := range 5 {
			fmt.Fprintf(&s, "## Chapter %d of book %d\n\n", c, b)
			for range 30 {
				for range 60 {
					s.WriteString(shelfWords[rng.Intn(len(shelfWords))] + " ")
				}
				s.WriteString("\n\n")
			}
		}
		writeFile(t, filepath.Join(lib, fmt.Sprintf("book%02d.md", b)), s.String())
	}
	return lib
}

var shelfQueries = []string{"owl lantern compass", "harbour gull salt", "keel mast deck rope"}

// damagePages overwrites the start (the b-tree page header and cell
// pointers) of about one page in ten with random bytes, as a failing disk
// or a stray write would. It spares the schema's pages, without which
// nothing of the index can be read: which pages those are moves with
// every table a schema gains. It returns the number of pages damaged.
func damagePages(t *testing.T, db string, seed int64) int {
	t.Helper()
	schema := map[int]bool{}
	conn := openDB(t, db)
	rows, err := conn.Query(`SELECT pageno FROM dbstat WHERE name = 'sqlite_schema'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p int
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		schema[p] = true
	}
	rows.Close()
	conn.Close()
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(db + "-wal"); err == nil {
		t.Fatalf("%s-wal exists: the writer did not close", db)
	}
	size := int(bin.BigEndian.Uint16(data[16:18]))
	if size == 1 {
		size = 65536
	}
	rng := rand.New(rand.NewSource(seed))
	n := 0
	for off := size; off+size <= len(data); off += size {
		if rng.Intn(10) != 0 || schema[off/size+1] {
			continue
		}
		rng.Read(data[off : off+512])
		n++
	}
	if err := os.WriteFile(db, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDamagedIndex damages an index and runs every kind of command on it:
// none may report success, all must say how to recover, and `rebuild`
// must bring back the index a clean sync builds.
func TestDamagedIndex(t *testing.T) {
	t.Parallel()
	lib := shelfLibrary(t, 8)
	clean := cloneDir(t, lib)
	ok(t, clean, "sync")
	want := fingerprint(t, clean, nil, shelfQueries)

	ok(t, lib, "sync")
	db := filepath.Join(lib, ".grimoire", "grimoire.db")
	t.Logf("damaged %d pages", damagePages(t, db, 1))

	for _, args := range [][]string{{"sync"}, {"status"}, {"delete", "book-3", "--yes"}} {
		r := grimoire(t, lib, args...)
		if r.code != exitDamaged || !strings.Contains(r.stderr, "is damaged") || !strings.Contains(r.stderr, "grimoire rebuild") {
			t.Errorf("%v on a damaged index: exit %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(r.stderr, "FTS5") {
			t.Errorf("%v blames FTS5: %s", args, r.stderr)
		}
	}
	// Queries that meet a damaged page say so the same way.
	for _, q := range shelfQueries {
		r := grimoire(t, lib, "query", q)
		if r.code != 0 && (r.code != exitDamaged || !strings.Contains(r.stderr, "grimoire rebuild")) {
			t.Errorf("query %q: exit %d: %s", q, r.code, r.stderr)
		}
	}

	// So does the MCP server: at start, or in the tool's error.
	if out, errs := mcpSearch(t, lib, "owl lantern compass"); !strings.Contains(out+errs, "grimoire rebuild") {
		t.Errorf("MCP search on a damaged index:\nresponse: %s\nstderr: %s", out, errs)
	}

	var rep struct {
		Aside   string `json:"aside"`
		Damaged bool   `json:"damaged"`
		Books   int    `json:"books"`
		Chunks  int    `json:"chunks"`
		Reused  int    `json:"vectors_reused"`
	}
	okJSON(t, &rep, lib, "rebuild")
	t.Logf("rebuild: %+v", rep)
	if !rep.Damaged || rep.Books != 8 || rep.Reused == 0 || rep.Reused >= rep.Chunks {
		t.Errorf("rebuild report: %+v", rep)
	}
	if _, err := os.Stat(rep.Aside); err != nil || filepath.Dir(rep.Aside) != filepath.Dir(db) {
		t.Errorf("the damaged index was not kept beside the new one: %q, %v", rep.Aside, err)
	}
	if got := fingerprint(t, lib, nil, shelfQueries); got != want {
		t.Errorf("rebuilt index differs from a clean sync:\n got:\n%s\nwant:\n%s", got, want)
	}
	integrity(t, lib)
	var s syncOut
	okJSON(t, &s, lib, "sync")
	wantCounters(t, "sync after the rebuild", s, map[string]int{"hashed": 0, "new": 0, "ingested": 0})
}

// TestUnreadableIndexFile puts a file that is no database at all where the
// index should be.
func TestUnreadableIndexFile(t *testing.T) {
	t.Parallel()
	lib := shelfLibrary(t, 1)
	writeFile(t, filepath.Join(lib, ".grimoire", "grimoire.db"), strings.Repeat("not a database ", 4096))
	for _, args := range [][]string{{"sync"}, {"status"}, {"query", "owl"}} {
		r := grimoire(t, lib, args...)
		if r.code != exitDamaged || strings.Contains(r.stderr, "FTS5") || !strings.Contains(r.stderr, "grimoire rebuild") {
			t.Errorf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	var rep struct{ Books, Chunks int }
	okJSON(t, &rep, lib, "rebuild")
	if rep.Books != 1 || rep.Chunks == 0 {
		t.Errorf("rebuild: %+v", rep)
	}
	if _, ok := topBook(t, lib, "owl lantern"); !ok {
		t.Error("nothing found after the rebuild")
	}
}

// TestDeletedLockFileKeepsOneWriter deletes the writer lock file while
// `grimoire watch` runs: a second writer must still be refused, and status
// must still name the watcher.
func TestDeletedLockFileKeepsOneWriter(t *testing.T) {
	t.Parallel()
	lib := shelfLibrary(t, 2)
	w := start(t, lib, watchEnv, "watch")
	eventually(t, "the initial scan", 30*time.Second, func() bool {
		_, ok := topBook(t, lib, "owl lantern")
		return ok
	})
	lock := filepath.Join(lib, ".grimoire", "grimoire.db.lock")
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"sync"}, {"delete", "book-1", "--yes"}, {"rebuild"}} {
		r := grimoire(t, lib, args...)
		if r.code != exitConflict || !strings.Contains(r.stderr, fmt.Sprintf("grimoire watch (pid %d", w.cmd.Process.Pid)) {
			t.Errorf("%v beside a watcher whose lock file is gone: exit %d: %s", args, r.code, r.stderr)
		}
	}
	var st struct {
		Writer struct {
			Running bool
			PID     int
			Command string
		}
	}
	okJSON(t, &st, lib, "status")
	if !st.Writer.Running || st.Writer.PID != w.cmd.Process.Pid {
		t.Errorf("status while the lock file is gone: %+v", st.Writer)
	}
	// The watcher still works, alone.
	writeFile(t, filepath.Join(lib, "late.md"), "# Late\n\nThe albatross follows the ship for days.\n")
	eventually(t, "the new book", 30*time.Second, func() bool {
		h, ok := topBook(t, lib, "albatross")
		return ok && h.Title == "Late"
	})
	w.stopped(t, 5*time.Second)
	ok(t, lib, "sync")
	integrity(t, lib)
}

// TestRebuildAsksTheModelsOnlyForWhatWasLost rebuilds an index whose
// contexts and vectors came from a language model and an embedding model
// (fakes that count their calls): once sound, where nothing may be asked
// again, and once damaged, where only the lost chunks' contexts, sections'
// summaries and vectors may be.
func TestRebuildAsksTheModelsOnlyForWhatWasLost(t *testing.T) {
	t.Parallel()
	f := newFakeModels(t, "nomic-embed-text", "llama3.2")
	lib := shelfLibrary(t, 4)
	env := ollamaEnv(f)
	okEnv(t, lib, env, nil, "sync")
	db := filepath.Join(lib, ".grimoire", "grimoire.db")
	want := storedContexts(t, db)
	counts := func() (int, int) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.calls, f.embedded
	}
	type report struct {
		Chunks          int
		ContextsReused  int `json:"contexts_reused"`
		VectorsReused   int `json:"vectors_reused"`
		SummariesReused int `json:"summaries_reused"`
	}

	// Each process embeds one probe text to learn the model's vector size.
	const probe = 1
	calls, embeds := counts()
	var rep report
	okEnv(t, lib, env, &rep, "rebuild", "--json")
	c, e := counts()
	if c != calls || e != embeds+probe || rep.ContextsReused != rep.Chunks || rep.VectorsReused != rep.Chunks {
		t.Errorf("rebuild of a sound index asked the models %d and embedded %d texts: %+v", c-calls, e-embeds-probe, rep)
	}

	t.Logf("damaged %d pages", damagePages(t, db, 3))
	calls, embeds = counts()
	okEnv(t, lib, env, &rep, "rebuild", "--json")
	c, e = counts()
	summarized := countRows(t, db, `SELECT count(*) FROM section WHERE summary IS NOT NULL`)
	t.Logf("after damage: %+v; %d model calls, %d texts embedded", rep, c-calls, e-embeds-probe)
	if rep.ContextsReused == 0 || rep.ContextsReused == rep.Chunks {
		t.Errorf("the damage took away none or all of the contexts: %+v", rep)
	}
	if lost := (rep.Chunks - rep.ContextsReused) + (summarized - rep.SummariesReused); c-calls != lost {
		t.Errorf("the language model was asked %d times for %d lost contexts and summaries", c-calls, lost)
	}
	if lost := rep.Chunks - rep.VectorsReused; e-embeds != lost+probe {
		t.Errorf("the embedding model embedded %d texts for %d lost vectors", e-embeds-probe, lost)
	}
	if got := storedContexts(t, db); got != want {
		t.Errorf("contexts after the rebuild differ from the first sync's")
	}
	var hits []hitOut
	okEnv(t, lib, env, &hits, "query", "zanzibarite", "--mode", "fts", "--json")
	if len(hits) == 0 {
		t.Error("the contexts are not searchable after the rebuild")
	}
}

// storedContexts fingerprints every chunk's context with its place.
func storedContexts(t *testing.T, db string) string {
	t.Helper()
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
	h := sha256.New()
	for _, b := range books {
		chunks, err := r.ChunkRange(context.Background(), b.ID, 0, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range chunks {
			fmt.Fprintf(h, "%s/%d/%s/%s\n", b.Hash, k.Index, k.State, k.Context)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func countRows(t *testing.T, db, q string) int {
	t.Helper()
	// A writer may hold the file for a moment (creating the schema, at a
	// commit): wait for it, as grimoire's own readers do.
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRebuildSurvivesKill9 kills `grimoire rebuild` with SIGKILL at moments
// spread over an uninterrupted rebuild's run (salvage, set-aside, sync),
// then lets it finish: the index must be a clean sync's, and the damaged
// file must be kept, once, as it was.
func TestRebuildSurvivesKill9(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills real processes; slow")
	}
	lib := shelfLibrary(t, 24)
	clean := cloneDir(t, lib)
	ok(t, clean, "sync")
	want := fingerprint(t, clean, nil, shelfQueries)

	ok(t, lib, "sync")
	db := filepath.Join(lib, ".grimoire", "grimoire.db")
	damagePages(t, db, 3)
	damaged := fileSum(t, db)

	trial := copyTree(t, lib)
	begin := time.Now()
	ok(t, trial, "rebuild")
	took := time.Since(begin)
	t.Logf("an uninterrupted rebuild takes %v", took.Round(time.Millisecond))

	kills := 0
	stages := map[string]int{}
	for i := 1; i <= 9; i++ {
		p := start(t, lib, nil, "rebuild")
		time.Sleep(took * time.Duration(i) / 10)
		p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		p.done <- nil
		stage := "finished"
		if p.cmd.ProcessState.ExitCode() != 0 {
			kills++
			stage = "before the set-aside"
			if _, err := os.Stat(db + ".rebuild"); err != nil {
				stage = "syncing"
			}
		}
		stages[stage]++
	}
	t.Logf("killed at: %v", stages)
	if kills == 0 {
		t.Fatal("no rebuild was interrupted")
	}
	ok(t, lib, "rebuild")
	integrity(t, lib)
	if got := fingerprint(t, lib, nil, shelfQueries); got != want {
		t.Errorf("after %d kills the rebuilt index differs from a clean sync:\n got:\n%s\nwant:\n%s", kills, got, want)
	}
	kept, _ := filepath.Glob(db + ".damaged-*")
	var mains []string
	for _, k := range kept {
		if !strings.HasSuffix(k, "-wal") && !strings.HasSuffix(k, "-shm") {
			mains = append(mains, k)
		}
	}
	if len(mains) != 1 || fileSum(t, mains[0]) != damaged {
		t.Errorf("the damaged index is not kept once, as it was: %v", kept)
	}
	if _, err := os.Stat(db + ".rebuild"); err == nil {
		t.Error("the rebuild's working file is left behind")
	}
	t.Logf("%d of 9 rebuilds killed", kills)
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// copyTree copies a library with its index.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		copyFile(t, p, filepath.Join(dst, rel))
		return nil
	})
	return dst
}

// mcpSearch asks `grimoire serve` over stdio for one search and returns the
// tool call's response (empty when the server stopped first) and the
// server's stderr.
func mcpSearch(t *testing.T, lib, query string) (string, string) {
	t.Helper()
	cmd := exec.Command(binary, "serve")
	cmd.Dir, cmd.Env = lib, cleanEnv()
	var errb lockedBuffer
	cmd.Stderr = &errb
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "search", "arguments": map[string]any{"query": query}}})
	fmt.Fprintln(stdin, string(req))
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				cmd.Wait()
				return "", errb.String()
			}
			if strings.Contains(line, `"id":2`) {
				return line, errb.String()
			}
		case <-deadline:
			t.Fatalf("no answer from serve; stderr: %s", errb.String())
		}
	}
}
