//go:build unix

package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// settling is what grimoire logs (at -vv) when its hasher waits for a
// just-written file's mtime to age: the window between the walk and the
// read of that file, where these tests swap it.
const settling = "waiting for a just-written file to settle"

// actOn is a stderr that runs act, once, when a line containing trigger
// comes, before the process writes anything more.
type actOn struct {
	trigger string
	act     func()
	mu      sync.Mutex
	buf     bytes.Buffer
	fired   bool
}

func (w *actOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.fired && strings.Contains(w.buf.String(), w.trigger) {
		w.fired = true
		w.act()
	}
	return len(p), nil
}

// runActing runs grimoire in dir and acts when its stderr shows trigger. It
// fails the test when the process is still running after limit, or when
// trigger never came. It returns the result and the process's peak RSS in
// MiB.
func runActing(t *testing.T, dir, trigger string, act func(), limit time.Duration, args ...string) (result, int64) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GRIMOIRE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var out bytes.Buffer
	stderr := &actOn{trigger: trigger, act: act}
	cmd.Stdout, cmd.Stderr = &out, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	peak := followPeak(cmd.Process)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("grimoire %s still running after %v\nstderr: %s", strings.Join(args, " "), limit, tail(stderr))
	}
	if !stderr.fired {
		t.Fatalf("%q never appeared on stderr; the test could not act in time\nstderr: %s", trigger, tail(stderr))
	}
	rss := peak(cmd.ProcessState)
	return result{out.String(), stderr.buf.String(), cmd.ProcessState.ExitCode()}, rss >> 20
}

func tail(w *actOn) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.buf.String()
	return s[max(0, len(s)-2000):]
}

// justWritten gives files an mtime of the current whole second: the hasher
// then waits up to two seconds before it reads them.
func justWritten(t *testing.T, paths ...string) {
	t.Helper()
	now := time.Unix(time.Now().Unix(), 0)
	for _, p := range paths {
		if err := os.Chtimes(p, now, now); err != nil {
			t.Fatal(err)
		}
	}
}

// longAgo gives files an mtime an hour old: they are read without waiting.
func longAgo(t *testing.T, paths ...string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, p := range paths {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

func swapFor(t *testing.T, path string, make func(string) error) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Error(err)
		return
	}
	if err := make(path); err != nil {
		t.Error(err)
	}
}

func parseSync(t *testing.T, r result) syncOut {
	t.Helper()
	var s syncOut
	if err := jsonUnmarshal(r.stdout, &s); err != nil {
		t.Fatalf("sync: exit %d, bad JSON %v\nstdout: %s\nstderr: %s", r.code, err, r.stdout, r.stderr)
	}
	return s
}

// TestSwappedLinkNeverServesOutsideContent swaps a scanned book for a link
// to a file outside the library, and a folder for a link to a folder
// outside, while sync waits to hash them. The outside text must never be
// indexed, nor answer a query.
func TestSwappedLinkNeverServesOutsideContent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lib, outside := filepath.Join(dir, "lib"), filepath.Join(dir, "outside")
	x, y := filepath.Join(lib, "x.md"), filepath.Join(lib, "sub", "y.md")
	writeFile(t, x, "# Harmless\n\nNothing to see here.\n")
	writeFile(t, y, "# Also harmless\n\nStill nothing.\n")
	writeFile(t, filepath.Join(outside, "secret.md"), "# Secret\n\nThe launch code is swordfish-4471.\n")
	writeFile(t, filepath.Join(outside, "y.md"), "# Diary\n\nThe safe opens with marmalade-93.\n")
	justWritten(t, x, y)

	r, _ := runActing(t, lib, settling, func() {
		swapFor(t, x, func(p string) error { return os.Symlink(filepath.Join(outside, "secret.md"), p) })
		sub := filepath.Dir(y)
		if err := os.Rename(sub, sub+"-moved"); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(outside, sub); err != nil {
			t.Error(err)
		}
	}, time.Minute, "-vv", "sync", "--json")
	if r.code != 0 {
		t.Fatalf("sync: exit %d\n%s", r.code, r.stderr)
	}
	s := parseSync(t, r)
	wantCounters(t, "sync during the swap", s, map[string]int{"scanned": 2, "skipped": 2, "new": 0, "ingested": 0})

	okJSON(t, &s, lib, "sync")
	for _, q := range []string{"swordfish", "marmalade", "launch code", "safe opens"} {
		var hits []hitOut
		okJSON(t, &hits, lib, "query", q, "--mode", "fts")
		if len(hits) != 0 {
			t.Errorf("%q answered from outside the library: %+v", q, hits)
		}
	}
	var books []bookOut
	okJSON(t, &books, lib, "list")
	for _, b := range books {
		if b.Title == "Secret" || b.Title == "Diary" {
			t.Errorf("book from outside the library: %+v", b)
		}
	}
}

// TestSyncSurvivesFIFOAndDevZero swaps a book for a FIFO and another for a
// link to /dev/zero while sync waits to hash them, with a FIFO named like a
// book there from the start. sync must finish, skipping them, in bounded
// memory.
func TestSyncSurvivesFIFOAndDevZero(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	a, f, z := filepath.Join(lib, "a.md"), filepath.Join(lib, "f.md"), filepath.Join(lib, "z.md")
	writeFile(t, a, "# Alpha\n\nalpha\n")
	writeFile(t, f, "# F\n\nto become a FIFO\n")
	writeFile(t, z, "# Z\n\nto become a link to /dev/zero\n")
	if err := syscall.Mkfifo(filepath.Join(lib, "book.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	longAgo(t, a)
	justWritten(t, f, z)

	r, rss := runActing(t, lib, settling, func() {
		swapFor(t, f, func(p string) error { return syscall.Mkfifo(p, 0o644) })
		swapFor(t, z, func(p string) error { return os.Symlink("/dev/zero", p) })
	}, time.Minute, "-vv", "sync", "--json")
	if r.code != 0 {
		t.Fatalf("sync: exit %d\n%s", r.code, r.stderr)
	}
	t.Logf("peak RSS %d MiB", rss)
	if rss > 256 {
		t.Errorf("peak RSS %d MiB", rss)
	}
	wantCounters(t, "sync during the swap", parseSync(t, r), map[string]int{"scanned": 3, "skipped": 2, "ingested": 1, "failed": 0})

	var s syncOut
	okJSON(t, &s, lib, "sync")
	wantCounters(t, "next sync", s, map[string]int{"scanned": 1, "skipped": 0})
	okJSON(t, &s, lib, "sync", filepath.Join(lib, "book.md"))
	wantCounters(t, "sync of the FIFO alone", s, map[string]int{"scanned": 0, "removed": 0})
}

// TestIngestSurvivesFIFOAndDevZero swaps two scanned books, one for a FIFO
// and one for a link to /dev/zero, while a larger book before them is
// being ingested. Ingest must not wait for the FIFO nor read /dev/zero.
func TestIngestSurvivesFIFOAndDevZero(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	a, x, y := filepath.Join(lib, "a.md"), filepath.Join(lib, "x.md"), filepath.Join(lib, "y.md")
	writeFile(t, a, bigMarkdown(4<<20))
	writeFile(t, x, "# X\n\nto become a FIFO\n")
	writeFile(t, y, "# Y\n\nto become a link to /dev/zero\n")
	longAgo(t, a, x, y)

	// Books are ingested in the order they were found: a.md first, and
	// embedding its chunks leaves time to swap the others.
	r, rss := runActing(t, lib, "msg=parsed path="+a, func() {
		swapFor(t, x, func(p string) error { return syscall.Mkfifo(p, 0o644) })
		swapFor(t, y, func(p string) error { return os.Symlink("/dev/zero", p) })
	}, 2*time.Minute, "-vv", "sync", "--json")
	if r.code != 0 {
		t.Fatalf("sync: exit %d\n%s", r.code, r.stderr)
	}
	t.Logf("peak RSS %d MiB", rss)
	if rss > 1024 {
		t.Errorf("peak RSS %d MiB", rss)
	}
	s := parseSync(t, r)
	wantCounters(t, "sync during the swap", s, map[string]int{"new": 3, "ingested": 1, "failed": 0})
	notRead := map[string]bool{}
	for _, f := range s.Failures {
		if strings.Contains(f.Error, "not read") {
			notRead[filepath.Base(f.Path)] = true
		}
	}
	if !notRead["x.md"] || !notRead["y.md"] {
		t.Errorf("failures %+v: want x.md and y.md not read", s.Failures)
	}
	okJSON(t, &s, lib, "sync")
	wantCounters(t, "next sync", s, map[string]int{"removed": 2, "pruned": 2})
}

// bigMarkdown returns about n bytes of Markdown in chapters of prose.
func bigMarkdown(n int) string {
	words := strings.Fields("the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there their one all we can has more")
	rng := rand.New(rand.NewSource(1))
	var b strings.Builder
	for ch := 0; b.Len() < n; ch++ {
		fmt.Fprintf(&b, "# Chapter %d\n\n", ch)
		for range 40 {
			for range 120 {
				b.WriteString(words[rng.Intn(len(words))])
				b.WriteByte(' ')
			}
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// TestSignalStopsAStuckProcess reads its configuration from a FIFO nobody
// writes, so that the process is stuck in an open that no signal
// interrupts. It must still exit with 130 within two seconds of SIGTERM,
// or at once on a second signal.
func TestSignalStopsAStuckProcess(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("finds the blocked open through /proc")
	}
	for _, tc := range []struct {
		name    string
		signals []os.Signal
		says    string
	}{
		{"SIGTERM", []os.Signal{syscall.SIGTERM}, "still busy"},
		{"SIGINT twice", []os.Signal{os.Interrupt, os.Interrupt}, "interrupted again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "grimoire.toml")
			if err := syscall.Mkfifo(cfg, 0o644); err != nil {
				t.Fatal(err)
			}
			p := start(t, dir, nil, "status", "--config", cfg)
			eventually(t, "grimoire blocked opening the FIFO", 10*time.Second, func() bool {
				return blockedInFIFOOpen(p.cmd.Process.Pid)
			})
			sent := time.Now()
			for i, s := range tc.signals {
				if i > 0 {
					// Two pending signals of one kind are one: wait for
					// the first to be taken.
					eventually(t, "the signal taken", 2*time.Second, func() bool {
						return !signalPending(p.cmd.Process.Pid, tc.signals[i-1].(syscall.Signal))
					})
					// The Go runtime also holds one of a kind until its
					// signal goroutine has passed it on; give it a moment.
					time.Sleep(200 * time.Millisecond)
				}
				p.cmd.Process.Signal(s)
			}
			select {
			case <-p.done:
				p.done <- nil // for the cleanup
			case <-time.After(2 * time.Second):
				t.Fatalf("still running 2s after %s\nstderr: %s", tc.name, p.errb.String())
			}
			t.Logf("exited %v after the first signal", time.Since(sent).Round(time.Millisecond))
			if code := p.cmd.ProcessState.ExitCode(); code != exitInterrupted || !strings.Contains(p.errb.String(), tc.says) {
				t.Errorf("exit %d, stderr %q; want 130 and %q", code, p.errb.String(), tc.says)
			}
		})
	}
}

// signalPending reports whether sig waits to be delivered to process pid.
func signalPending(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if hex, ok := strings.CutPrefix(line, "ShdPnd:"); ok {
			var mask uint64
			fmt.Sscanf(strings.TrimSpace(hex), "%x", &mask)
			return mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return false
}

// blockedInFIFOOpen reports whether a thread of pid waits in the kernel for
// a FIFO's other end.
func blockedInFIFOOpen(pid int) bool {
	chans, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
	for _, c := range chans {
		if b, err := os.ReadFile(c); err == nil && strings.Contains(string(b), "wait_for_partner") {
			return true
		}
	}
	return false
}

// TestWatchGoesOnPastFIFOsAndLinks runs watch over a library with a FIFO
// named like a book, then adds a FIFO and swaps a book for a link to
// /dev/zero: new books must still be indexed, and SIGTERM must stop it.
func TestWatchGoesOnPastFIFOsAndLinks(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	a := filepath.Join(lib, "a.md")
	writeFile(t, a, "# Aardvark\n\nThe aardvark digs for termites at night.\n")
	if err := syscall.Mkfifo(filepath.Join(lib, "book.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := start(t, lib, watchEnv, "watch")
	eventually(t, "the initial scan", 20*time.Second, func() bool {
		_, ok := topBook(t, lib, "aardvark termites")
		return ok
	})
	if err := syscall.Mkfifo(filepath.Join(lib, "new.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	swapFor(t, a, func(p string) error { return os.Symlink("/dev/zero", p) })
	writeFile(t, filepath.Join(lib, "b.md"), "# Quokka\n\nQuokkas smile for photographs on Rottnest Island.\n")
	eventually(t, "the new book, and the swapped one gone", 20*time.Second, func() bool {
		_, gone := topBook(t, lib, "aardvark termites")
		h, ok := topBook(t, lib, "quokkas rottnest")
		return !gone && ok && h.Title == "Quokka"
	})
	w.stopped(t, 2*time.Second)
}
