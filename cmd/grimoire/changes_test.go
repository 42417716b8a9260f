package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is an output buffer that a test may read while the process
// writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// stamped is a watch line: the local time, two spaces, the change.
var stamped = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d  (.+)$`)

// changes returns the changes of a watch's output, without their times;
// it fails the test on a line that is not stamped.
func changes(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		m := stamped.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("watch line without a time: %q", line)
		}
		got = append(got, m[1])
	}
	return got
}

// TestWatchPrintsEachChange drives a real watch through the changes a
// library sees and reads what it prints: one stamped line per change,
// each failure once, and nothing of it in the logs.
func TestWatchPrintsEachChange(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "first.md"), "# First\n\nThe aardvark digs for termites at night.\n")
	out, errb := &lockedBuffer{}, &lockedBuffer{}
	cmd := exec.Command(binary, "watch")
	cmd.Dir = lib
	cmd.Env = append(cleanEnv(), append(watchEnv, "GRIMOIRE_MAX_FILE_SIZE_MB=1")...)
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	printed := func(what string, want string) {
		t.Helper()
		eventually(t, what, 30*time.Second, func() bool {
			for _, c := range changes(t, out.String()) {
				if strings.HasPrefix(c, want) {
					return true
				}
			}
			return false
		})
	}
	printed("the first book", `added "First" (first, 1 chunk)`)

	steps := []struct {
		name string
		act  func()
		want string
	}{
		{"a new book", func() {
			writeFile(t, filepath.Join(lib, "new.md"), "# Newcomer\n\nQuokkas smile for photographs.\n")
		}, `added "Newcomer" (newcomer, 1 chunk)`},
		{"a move", func() {
			os.MkdirAll(filepath.Join(lib, "shelf"), 0o755)
			os.Rename(filepath.Join(lib, "new.md"), filepath.Join(lib, "shelf", "moved.md"))
		}, "moved new.md → " + filepath.Join("shelf", "moved.md")},
		{"an edit", func() {
			writeFile(t, filepath.Join(lib, "first.md"), "# First\n\nThe pangolin rolls into a ball.\n")
		}, `updated "First" (first, 1 chunk)`},
		{"a broken file", func() {
			writeFile(t, filepath.Join(lib, "broken.pdf"), "this is not a PDF")
		}, "failed broken.pdf: not a PDF file"},
		{"a file too large", func() {
			writeFile(t, filepath.Join(lib, "big.txt"), strings.Repeat("word ", 300_000))
		}, "skipped big.txt: file is "},
		{"a removal", func() {
			os.Remove(filepath.Join(lib, "shelf", "moved.md"))
		}, `removed "Newcomer" (` + filepath.Join("shelf", "moved.md") + ")"},
		{"the large file met again, and a book after it", func() {
			writeFile(t, filepath.Join(lib, "big.txt"), strings.Repeat("more ", 300_000))
			writeFile(t, filepath.Join(lib, "last.md"), "# Last\n\nThe capybara swims.\n")
		}, `added "Last" (last, 1 chunk)`},
	}
	for _, s := range steps {
		s.act()
		printed(s.name, s.want)
	}
	if code := stopWatch(t, cmd, done); code != 0 {
		t.Fatalf("watch exited %d\nstderr: %s", code, errb.String())
	}

	got := changes(t, out.String())
	for _, path := range []string{"broken.pdf", "big.txt"} {
		n := 0
		for _, c := range got {
			if strings.Contains(c, path) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s is told of %d times, want once:\n%s", path, n, strings.Join(got, "\n"))
		}
		if strings.Contains(errb.String(), path) {
			t.Errorf("%s is in the logs too:\n%s", path, errb.String())
		}
	}
	if len(got) != len(steps)+1 {
		t.Errorf("%d lines for %d changes:\n%s", len(got), len(steps)+1, strings.Join(got, "\n"))
	}
}

// stopWatch stops a watch with SIGTERM and returns its exit code.
func stopWatch(t *testing.T, cmd *exec.Cmd, done chan error) int {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
		done <- nil // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not stop")
	}
	return cmd.ProcessState.ExitCode()
}

// TestServeWatchPrintsChangesToStderr checks that serve --watch over
// stdio says what it does on stderr: stdout is the MCP channel, where a
// stray line breaks the client.
func TestServeWatchPrintsChangesToStderr(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "tides.md"), "# Tides\n\nSpring tides follow the full moon.\n")
	out, errb := &lockedBuffer{}, &lockedBuffer{}
	cmd := exec.Command(binary, "serve", "--watch")
	cmd.Dir = lib
	cmd.Env = append(cleanEnv(), watchEnv...)
	cmd.Stdout, cmd.Stderr = out, errb
	// An open stdin with nothing on it: a client that has not spoken yet.
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-done
	})
	eventually(t, "the book's line on stderr", 30*time.Second, func() bool {
		return strings.Contains(errb.String(), `added "Tides" (tides, 1 chunk)`)
	})
	if out.String() != "" {
		t.Errorf("stdout, the MCP channel, got %q", out.String())
	}
	stdin.Close()
}

// TestSyncTellsFailuresOnce checks that a book that fails is told of once,
// in the summary, and not in a log line before it; and that sync -v names
// each book it ingested.
func TestSyncTellsFailuresOnce(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "moby.md"), "# Moby-Dick\n\nCall me Ishmael.\n")
	writeFile(t, filepath.Join(lib, "bad.pdf"), "this is not a PDF")
	r := grimoire(t, lib, "sync", "-v")
	if r.code != 0 {
		t.Fatalf("sync: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	all := r.stdout + r.stderr
	if n := strings.Count(all, "bad.pdf"); n != 1 {
		t.Errorf("bad.pdf told of %d times, want once:\nstdout:\n%s\nstderr:\n%s", n, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, `added "Moby-Dick" (moby-dick, 1 chunk)`) {
		t.Errorf("sync -v does not name the book it ingested:\n%s", r.stdout)
	}
	os.Rename(filepath.Join(lib, "moby.md"), filepath.Join(lib, "whale.md"))
	r = grimoire(t, lib, "sync", "-v")
	if !strings.Contains(r.stdout, "moved moby.md → whale.md") {
		t.Errorf("sync -v does not tell the move:\n%s", r.stdout)
	}
	os.Rename(filepath.Join(lib, "whale.md"), filepath.Join(lib, "moby.md"))
	if r = grimoire(t, lib, "sync"); strings.Contains(r.stdout, "moved whale.md") || !strings.Contains(r.stdout, "1 moved") {
		t.Errorf("sync without -v tells each change, or did not move:\n%s", r.stdout)
	}
}
