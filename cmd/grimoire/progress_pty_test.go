//go:build !windows

package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"
)

// gatedModels is the fake model server with its embedding requests held:
// the first (the probe at start) passes, each later one waits for a token
// on pass, or for free to close. The test, not the clock, says when the
// sync moves on.
type gatedModels struct {
	*httptest.Server
	pass     chan struct{}
	free     chan struct{}
	freeOnce sync.Once
}

func newGatedModels(t *testing.T) *gatedModels {
	t.Helper()
	f := &fakeModels{embedModel: "nomic-embed-text", chatModel: "llama3", asked: map[string]int{}}
	g := &gatedModels{pass: make(chan struct{}), free: make(chan struct{})}
	var embeds atomic.Int32
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/embed" && embeds.Add(1) > 1 {
			select {
			case <-g.pass:
			case <-g.free:
			case <-r.Context().Done():
				return
			}
		}
		f.serve(w, r)
	}))
	t.Cleanup(g.Close)
	t.Cleanup(g.release) // before Close, which waits for the requests held
	return g
}

// release lets every request through from now on.
func (g *gatedModels) release() { g.freeOnce.Do(func() { close(g.free) }) }

func (g *gatedModels) env() []string {
	return []string{"GRIMOIRE_EMBEDDING_PROVIDER=ollama", "GRIMOIRE_EMBEDDING_URL=" + g.URL, "GRIMOIRE_EMBEDDING_MODEL=nomic-embed-text"}
}

var progressTitles = []string{"Alpha Voyage", "Bravo Harbour", "Charlie Lighthouse"}

// progressLibrary writes books of many chunks each, so that each is
// embedded in several requests.
func progressLibrary(t *testing.T) string {
	t.Helper()
	lib := t.TempDir()
	for _, title := range progressTitles {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s\n\n", title)
		for i := range 100 {
			fmt.Fprintf(&b, "## Part %d\n\nIn part %d of %s the keeper logs the weather, the ships and the tide.\n\n", i, i, title)
		}
		writeFile(t, filepath.Join(lib, strings.ToLower(strings.ReplaceAll(title, " ", "-"))+".md"), b.String())
	}
	return lib
}

// screenLines splits what a terminal was sent into the lines it showed:
// a progress line is redrawn after a carriage return and cleared to the
// end of the line.
func screenLines(raw string) []string {
	raw = strings.ReplaceAll(raw, "\x1b[K", "")
	return strings.FieldsFunc(raw, func(r rune) bool { return r == '\r' || r == '\n' })
}

// clockOf is the time since the command began, in a progress line.
var clockOf = regexp.MustCompile(`%  (\d+(?:h\d+m|m\d+s|s))[ ,]`)

// TestSyncProgressOnATerminal runs sync on a terminal against a model
// server that holds each embedding until the test lets it go, and reads
// the screen: the line names the book in work and its stage, its clock
// moves while the book waits, an estimate of the time left appears once
// there is progress to draw it from, and the line is gone before the
// summary.
func TestSyncProgressOnATerminal(t *testing.T) {
	t.Parallel()
	g := newGatedModels(t)
	lib := progressLibrary(t)
	cmd := exec.Command(binary, "sync")
	cmd.Dir = lib
	cmd.Env = append(cleanEnv(), g.env()...)
	term := startOnTerminal(t, cmd)
	screen := term.screen

	var book string
	eventually(t, "a line naming the book being embedded", time.Minute, func() bool {
		for _, l := range screenLines(screen.String()) {
			for _, title := range progressTitles {
				if strings.Contains(l, fmt.Sprintf("%q: embedding ", title)) && strings.HasPrefix(l, "indexing book ") {
					book = title
					return true
				}
			}
		}
		return false
	})
	clocks := func() map[string]bool {
		seen := map[string]bool{}
		for _, l := range screenLines(screen.String()) {
			if m := clockOf.FindStringSubmatch(l); m != nil && strings.Contains(l, book) {
				seen[m[1]] = true
			}
		}
		return seen
	}
	eventually(t, "the clock to move while "+book+" waits", time.Minute, func() bool { return len(clocks()) >= 2 })

	// Let the embeddings through one by one, each time the clock has
	// moved, until there is an estimate of the time left.
	ticks := len(clocks())
	eventually(t, "an estimate of the time left", 2*time.Minute, func() bool {
		if strings.Contains(screen.String(), " left  ") {
			return true
		}
		if n := len(clocks()); n > ticks {
			ticks = n
			select {
			case g.pass <- struct{}{}:
			case <-time.After(time.Second):
			}
		}
		return false
	})

	g.release()
	raw := term.finish(t, "sync did not finish once the model server let it")
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("sync exited %d:\n%q", code, raw)
	}
	if !strings.Contains(raw, "ingested 3 books") {
		t.Errorf("no summary:\n%q", raw)
	}
	// The progress line is cleared, not left under the summary's first
	// words.
	if !strings.Contains(raw, "\r\x1b[Kscanned ") {
		t.Errorf("the progress line is not cleared before the summary:\n%q", raw[max(0, strings.Index(raw, "scanned ")-200):])
	}
}

// TestSyncProgressOnlyOnATerminal checks that a sync whose stderr is not a
// terminal draws nothing there, however long it runs.
func TestSyncProgressOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	g := newGatedModels(t)
	lib := progressLibrary(t)
	go func() {
		// Long enough for a line to show, were one to be drawn.
		time.Sleep(3 * progressDelay)
		g.release()
	}()
	r := result{}
	p := start(t, lib, g.env(), "--library", lib, "sync")
	select {
	case <-p.done:
		p.done <- nil
	case <-time.After(2 * time.Minute):
		t.Fatal("sync did not finish")
	}
	r.stdout, r.stderr, r.code = p.out.String(), p.errb.String(), p.cmd.ProcessState.ExitCode()
	if r.code != 0 || !strings.Contains(r.stdout, "ingested 3 books") {
		t.Fatalf("sync: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("stderr is not a terminal but got %q", r.stderr)
	}
}

// onTerminal is a command run on a pseudo-terminal of 40 rows and 160
// columns, its screen kept as it draws it.
type onTerminal struct {
	screen *lockedBuffer
	done   chan error
	copied chan struct{}
}

// startOnTerminal starts cmd on a terminal; the test's end kills it.
func startOnTerminal(t *testing.T, cmd *exec.Cmd) *onTerminal {
	t.Helper()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	o := &onTerminal{screen: &lockedBuffer{}, done: make(chan error, 1), copied: make(chan struct{})}
	go func() {
		io.Copy(o.screen, tty) // ends with an error once the process is gone
		close(o.copied)
	}()
	go func() { o.done <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-o.done
	})
	return o
}

// finish waits for the command to end, failing the test with why when it
// has not within two minutes, and returns all it drew.
func (o *onTerminal) finish(t *testing.T, why string) string {
	t.Helper()
	select {
	case <-o.done:
		o.done <- nil // for the cleanup
	case <-time.After(2 * time.Minute):
		t.Fatal(why)
	}
	<-o.copied
	return o.screen.String()
}
