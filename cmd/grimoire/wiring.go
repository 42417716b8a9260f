package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/app"
	"github.com/grimoire-search/grimoire/handoff"
	"github.com/grimoire-search/grimoire/index"
)

// front is what the application service needs of the command line.
type front struct{ a *cli }

// CheckFolders refuses a library folder or an index folder that is not
// there, before the index is opened.
func (f front) CheckFolders(ctx context.Context) error { return f.a.cfg.requireFolders(ctx) }

// Note says it on stderr.
func (f front) Note(msg string) { fmt.Fprintln(f.a.stderr, "grimoire: "+msg) }

// Relay sends each progress line to the command the work is done for,
// which draws it.
func (f front) Relay(rep *handoff.Reporter) app.Progress { return remoteProgress(rep) }

// HandingOver says on stderr that the writer h does the command, and shows
// its progress.
func (f front) HandingOver(h index.LockHolder) (func(handoff.Event), func()) {
	a := f.a
	prog := a.newProgress()
	// A request waits while the watcher ends the batch or the sync it is
	// on; once that has lasted a while, say so, or the wait looks hung.
	var mu sync.Mutex
	var busy *time.Timer
	started, over := false, false
	done := func() {
		mu.Lock()
		over = true
		if busy != nil {
			busy.Stop()
		}
		mu.Unlock()
		prog.done()
	}
	return func(ev handoff.Event) {
		switch ev.State {
		case handoff.Sent:
			fmt.Fprintf(a.stderr, "grimoire: %s (pid %d) writes the index; handed this to it, waiting…\n", h.Command, h.PID)
			busy = time.AfterFunc(busyNote, func() {
				mu.Lock()
				defer mu.Unlock()
				if !started && !over {
					fmt.Fprintln(a.stderr, "grimoire: it finishes what it is doing first; Ctrl-C gives up waiting")
				}
			})
		case handoff.Working:
			mu.Lock()
			started = true
			mu.Unlock()
		}
		if p := ev.Progress; p != nil {
			prog.show(progressLine{step: p.Label, done: p.Done, total: p.Total, count: p.Count, now: p.Now, ownPace: p.OwnPace, left: p.Left})
		}
	}, done
}

// busyNote is how long a request may wait for the watcher to take it up
// before the command says why it waits.
const busyNote = 3 * time.Second
