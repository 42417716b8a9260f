//go:build unix

package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHandoffSurvivesKills: a watcher killed with a request pending leaves
// the requester with an error that says so, at once; a requester killed
// before the watcher read its request has nothing done for it.
func TestHandoffSurvivesKills(t *testing.T) {
	t.Parallel()
	t.Run("the watcher is killed", func(t *testing.T) {
		lib := handoffBooks(t)
		w := watching(t, lib, 3, watchEnv, "watch")
		// Stopped, the watcher cannot answer: the request stays pending.
		w.cmd.Process.Signal(syscall.SIGSTOP)
		d := start(t, lib, nil, "delete", "owls", "--yes")
		eventually(t, "the request to be handed over", 10*time.Second, func() bool {
			return strings.Contains(d.errb.String(), "handed this to it")
		})
		w.cmd.Process.Kill()
		select {
		case <-d.done:
			d.done <- nil
		case <-time.After(5 * time.Second):
			t.Fatalf("the requester still waits for a killed watcher\nstderr: %s", d.errb.String())
		}
		want := fmt.Sprintf("grimoire: grimoire watch (pid %d) stopped before it finished the request — what it did is kept; run the command again", w.cmd.Process.Pid)
		if code := d.cmd.ProcessState.ExitCode(); code != exitInternal || !strings.Contains(d.errb.String(), want) {
			t.Fatalf("exit %d\nstderr: %s", code, d.errb.String())
		}
		// Until its parent reaps it, a killed process's pid still answers
		// as alive, and the next command would take it for the writer.
		<-w.done
		w.done <- nil
		// With no writer left, the command runs itself.
		if r := grimoire(t, lib, "delete", "owls", "--yes"); r.code != 0 || strings.Contains(r.stderr, "handed") {
			t.Errorf("delete once the watcher is gone: exit %d\n%s", r.code, r.stderr)
		}
	})
	t.Run("the requester is killed", func(t *testing.T) {
		lib := handoffBooks(t)
		w := watching(t, lib, 3, watchEnv, "watch")
		w.cmd.Process.Signal(syscall.SIGSTOP)
		d := start(t, lib, nil, "delete", "owls", "--yes")
		eventually(t, "the request to be handed over", 10*time.Second, func() bool {
			return strings.Contains(d.errb.String(), "handed this to it")
		})
		d.cmd.Process.Kill()
		<-d.done
		d.done <- nil
		w.cmd.Process.Signal(syscall.SIGCONT)
		// The next request is answered, and the dead one was not run.
		if r := grimoire(t, lib, "delete", "tides", "--yes"); r.code != 0 || !strings.Contains(r.stderr, "handed this to it") {
			t.Fatalf("delete after a requester died: exit %d\n%s", r.code, r.stderr)
		}
		if got := slugs(t, lib); got != "knots:ready owls:ready" {
			t.Errorf("books: %s; a dead requester's delete was carried out", got)
		}
		w.stopped(t, 5*time.Second)
	})
}
