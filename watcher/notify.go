package watcher

import (
	"sync"

	"github.com/fsnotify/fsnotify"
)

// notifier is the part of *fsnotify.Watcher the watcher uses; tests wrap
// the real one to inject failures (a full watch table) that cannot be
// provoked safely on a shared machine.
type notifier interface {
	// Add starts watching one folder (not recursively).
	Add(path string) error
	// Remove stops watching a folder; an error for a folder that is no
	// longer watched is expected and ignored by the caller.
	Remove(path string) error
	// Close stops the notifier; Events and Errors are closed afterwards.
	Close() error
	Events() <-chan fsnotify.Event
	Errors() <-chan error
}

type fsNotifier struct{ w *fsnotify.Watcher }

func newFSNotifier() (notifier, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return fsNotifier{w}, nil
}

func (n fsNotifier) Add(path string) error         { return n.w.Add(path) }
func (n fsNotifier) Remove(path string) error      { return n.w.Remove(path) }
func (n fsNotifier) Close() error                  { return n.w.Close() }
func (n fsNotifier) Events() <-chan fsnotify.Event { return n.w.Events }
func (n fsNotifier) Errors() <-chan error          { return n.w.Errors }

// maxQueued bounds the events held between the notifier and the watcher's
// loop. Beyond it events are dropped and reported as an overflow, which
// becomes a rescan, just as when the kernel's own queue overflows.
const maxQueued = 1 << 16

// pump drains a notifier's Events and Errors continuously into a queue the
// loop takes from. fsnotify must never be left blocked: its inotify reader
// can hold the lock that Add needs while it waits to deliver an error, and
// on Windows Add is served by the same goroutine that delivers events. The
// loop calls Add and Remove while it walks new folders, so it cannot be the
// one draining.
type pump struct {
	ready chan struct{} // holds a token while the queue is not empty
	limit int           // events held at most

	mu       sync.Mutex
	events   []fsnotify.Event
	errs     []error
	overflow bool
}

func newPump(limit int) *pump { return &pump{ready: make(chan struct{}, 1), limit: limit} }

// run drains n until both of its channels are closed (after n.Close).
func (p *pump) run(n notifier) {
	events, errs := n.Events(), n.Errors()
	for events != nil || errs != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			p.mu.Lock()
			if len(p.events) < p.limit {
				p.events = append(p.events, ev)
			} else {
				p.overflow = true
			}
			p.mu.Unlock()
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			p.mu.Lock()
			if len(p.errs) < 64 {
				p.errs = append(p.errs, err)
			}
			p.mu.Unlock()
		}
		select {
		case p.ready <- struct{}{}:
		default:
		}
	}
}

// take returns what has queued up since the last call. The caller may keep
// the slices until its next call with them as spare.
func (p *pump) take(spare []fsnotify.Event) (events []fsnotify.Event, errs []error, overflow bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	events, p.events = p.events, spare[:0]
	errs, p.errs = p.errs, nil
	overflow, p.overflow = p.overflow, false
	return events, errs, overflow
}
