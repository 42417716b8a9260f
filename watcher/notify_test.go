package watcher

import (
	"errors"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

func TestPump(t *testing.T) {
	n := newFakeNotifier()
	const limit = 100
	p := newPump(limit)
	done := make(chan struct{})
	go func() { defer close(done); p.run(n) }()

	// Nobody takes: errors and events must still be accepted, or fsnotify
	// would block with its lock held.
	n.errs <- fsnotify.ErrEventOverflow
	for i := range limit + 10 {
		select {
		case n.events <- fsnotify.Event{Name: "/l/f", Op: fsnotify.Write}:
		case <-time.After(5 * time.Second):
			t.Fatalf("pump stopped draining after %d events", i)
		}
	}
	select {
	case <-p.ready:
	case <-time.After(5 * time.Second):
		t.Fatal("pump did not signal")
	}
	events, errs, overflow := p.take(nil)
	if len(events) != limit || !overflow || len(errs) != 1 || !errors.Is(errs[0], fsnotify.ErrEventOverflow) {
		t.Fatalf("took %d events, overflow %v, errors %v", len(events), overflow, errs)
	}
	if events, errs, overflow = p.take(events); len(events) != 0 || len(errs) != 0 || overflow {
		t.Fatal("a second take returned the same items")
	}
	n.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("pump did not end after the notifier closed")
	}
}
