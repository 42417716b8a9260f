package watcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for the zero Options.
const (
	// DefaultDebounce is long enough for an editor's save or a browser's
	// final rename to finish, and short enough to feel immediate.
	DefaultDebounce = 2 * time.Second
	// DefaultMaxDelayFactor times Debounce is the default MaxDelay (30 s at
	// the default debounce): a file that never settles (a download, a note
	// autosaved every second) still reaches the index about twice a minute.
	DefaultMaxDelayFactor = 15
	// DefaultRescanInterval is the periodic safety net. With the stat fast
	// path a full pass over an unchanged library costs little.
	DefaultRescanInterval = time.Hour
	// DefaultRootPollInterval is how often a missing library folder (an
	// unplugged drive) is looked for, and a present one checked for having
	// been replaced or remounted, which inotify does not report.
	DefaultRootPollInterval = 10 * time.Second
)

// Options tune a Watcher. The zero value is ready to use.
type Options struct {
	// Debounce is the quiet window: a path is handed on once it had no
	// event for this long and its size and modification time held still
	// across it. Zero means DefaultDebounce.
	Debounce time.Duration

	// MaxDelay caps how long a path that keeps changing is held back; it
	// is then handed on even though it has not settled. It also bounds
	// how long a burst of new files or a removal can be held. Zero means
	// DefaultMaxDelayFactor × Debounce. It must not be below Debounce.
	MaxDelay time.Duration

	// RescanInterval is the period of the full-rescan safety net (for file
	// systems without events, such as network shares, and for anything
	// missed), jittered by ±10 % so that several watchers do not scan in
	// step. Zero means DefaultRescanInterval; negative turns it off.
	RescanInterval time.Duration

	// RootPollInterval is how often the roots themselves are checked: a
	// missing one is watched again when it comes back. Zero means
	// DefaultRootPollInterval; negative leaves the check to each periodic
	// rescan.
	RootPollInterval time.Duration

	// Ignore reports whether a path below a root is left out: an ignored
	// folder is neither watched nor scanned, and an ignored path never
	// appears in a batch. It must skip the index's own folder, or every
	// write to the index becomes an event. isDir is true for folders (for
	// a removed path, when it was a watched folder). Roots themselves are
	// never passed. Nil ignores hidden folders (names starting with ".",
	// which covers .grimoire) and nothing else. It is called from the
	// watcher's goroutine and must not block.
	Ignore func(path string, isDir bool) bool

	// Logger receives warnings (a degraded watch, with the fix) and debug
	// traces of batches. Nil discards them.
	Logger *slog.Logger
}

// Stats is a snapshot of the watcher's state for status displays.
type Stats struct {
	// Watched is the number of folders being watched.
	Watched int
	// Pending is the number of paths with events that have not settled.
	Pending int
	// Queued is the number of paths handed on but not yet received.
	Queued int
	// LastEvent is when the last file-system event under a root arrived
	// (attribute-only changes, which are ignored, do not count); zero
	// before the first.
	LastEvent time.Time
	// Degraded is empty while every folder of every root is watched.
	// Otherwise it says what is not, why, and what to do about it; changes
	// there are then found only by the periodic rescan.
	Degraded string
}

// Watcher watches library folders recursively and delivers batches of
// settled changes. Create it with New, start it with Run, and receive from
// Batches.
type Watcher struct {
	roots []string
	opts  Options
	log   *slog.Logger

	// Seams for tests.
	clk         clock
	newNotifier func() (notifier, error)
	fdBudget    int

	out     chan Batch
	started atomic.Bool

	mu    sync.Mutex
	stats Stats
}

// New returns a Watcher for the given library folders. Roots are made
// absolute and cleaned; duplicates are dropped. A root that does not exist
// yet is not an error: it is watched once it appears. New only validates;
// nothing is watched until Run.
func New(roots []string, opts Options) (*Watcher, error) {
	if len(roots) == 0 {
		return nil, errors.New("watcher: no library folder to watch")
	}
	var abs []string
	for _, r := range roots {
		if r == "" {
			return nil, errors.New("watcher: empty library folder path")
		}
		a, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("watcher: library folder %q: %w", r, err)
		}
		if !slices.Contains(abs, a) {
			abs = append(abs, a)
		}
	}
	switch {
	case opts.Debounce < 0:
		return nil, fmt.Errorf("watcher: negative Debounce %v", opts.Debounce)
	case opts.Debounce == 0:
		opts.Debounce = DefaultDebounce
	}
	switch {
	case opts.MaxDelay < 0:
		return nil, fmt.Errorf("watcher: negative MaxDelay %v", opts.MaxDelay)
	case opts.MaxDelay == 0:
		opts.MaxDelay = DefaultMaxDelayFactor * opts.Debounce
	case opts.MaxDelay < opts.Debounce:
		return nil, fmt.Errorf("watcher: MaxDelay %v is shorter than Debounce %v", opts.MaxDelay, opts.Debounce)
	}
	if opts.RescanInterval == 0 {
		opts.RescanInterval = DefaultRescanInterval
	}
	if opts.RootPollInterval == 0 {
		opts.RootPollInterval = DefaultRootPollInterval
	}
	if opts.Ignore == nil {
		opts.Ignore = ignoreHiddenDirs
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Watcher{
		roots:       abs,
		opts:        opts,
		log:         log.With("component", "watcher"),
		clk:         realClock{},
		newNotifier: newFSNotifier,
		fdBudget:    watchBudget(),
		out:         make(chan Batch),
	}, nil
}

// ignoreHiddenDirs is the rule when Options.Ignore is nil.
func ignoreHiddenDirs(path string, isDir bool) bool {
	return isDir && strings.HasPrefix(filepath.Base(path), ".")
}

// Roots returns the absolute library folders being watched.
func (w *Watcher) Roots() []string { return slices.Clone(w.roots) }

// Batches returns the channel Run delivers batches on. The first batch is
// always a Rescan whose Reason starts with "initial scan", sent once every
// root is watched: a caller that reconciles each batch needs no separate first
// sync, and nothing that changes during that sync is missed.
//
// Run holds at most one undelivered batch and merges newer changes into it
// while the receiver is busy, so reconciling a batch never delays the
// detection of the next one, and a slow receiver gets one combined batch
// rather than a backlog. The channel is closed when Run returns.
func (w *Watcher) Batches() <-chan Batch { return w.out }

// Stats returns a snapshot of the watcher's state. It is safe to call from
// any goroutine, before, during and after Run.
func (w *Watcher) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stats
}

// Run watches until ctx is cancelled, then closes everything it opened,
// closes the Batches channel and returns nil. No goroutine it started
// outlives it. Failures to watch (a full inotify watch table, too many
// open files, a vanished root) do not stop it: it reports them through a
// Rescan batch, the log and Stats.Degraded, and carries on with what it
// can watch plus the periodic rescan. Run may be called only once.
func (w *Watcher) Run(ctx context.Context) error {
	if !w.started.CompareAndSwap(false, true) {
		return errors.New("watcher: Run called more than once")
	}
	defer close(w.out)
	s := newSession(w)
	return s.run(ctx)
}

// setStats publishes the loop's view for Stats.
func (w *Watcher) setStats(st Stats) {
	w.mu.Lock()
	w.stats = st
	w.mu.Unlock()
}
