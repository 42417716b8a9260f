package watcher

import (
	"fmt"
	"io/fs"
	"slices"
	"time"
)

// eventKind is what the plumbing tells the aggregator about a path.
type eventKind uint8

const (
	// evCreated: the path appeared (a create, a move into a watched folder,
	// or a file found by the scan of a folder that was just watched).
	evCreated eventKind = iota + 1
	// evWritten: the file's content was written.
	evWritten
	// evGone: the path was removed or renamed away.
	evGone
)

// fileKind classifies what a path names on disk.
type fileKind uint8

const (
	kindAbsent  fileKind = iota // nothing there (or a parent is no longer a folder)
	kindFile                    // a regular file
	kindDir                     // a real folder, not a link to one
	kindOther                   // a symbolic link, device, pipe or socket: never followed
	kindUnknown                 // could not be examined (permission denied, I/O error)
)

// fileState is what one look at a path found. Two looks that compare equal
// mean the file held still between them.
type fileState struct {
	kind  fileKind
	size  int64
	mtime int64 // nanoseconds since the epoch
}

// stateOf turns an Lstat result into a fileState.
func stateOf(fi fs.FileInfo) fileState {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return fileState{kind: kindFile, size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	case m.IsDir() && m&(fs.ModeSymlink|fs.ModeIrregular) == 0:
		return fileState{kind: kindDir}
	default:
		return fileState{kind: kindOther}
	}
}

// entry is what the aggregator knows about one path whose events have not
// been handed on yet.
type entry struct {
	first time.Time // first event since the path was last handed on
	last  time.Time // latest event, or the latest look that found it changing
	seen  fileState // the state right after last
	// born: the first event was a creation. A born path that is gone at the
	// end of its window was a temporary file nobody else saw (an editor's
	// atomic save, a probe file): it is dropped rather than reported.
	born bool
	gone bool // a removal or rename-away was seen
}

// aggregator turns a stream of per-path events into batches. It is pure
// logic: time comes from its clock and file state from its stat function,
// so tests drive it with a fake clock and a scripted file system. It is not
// safe for concurrent use; the watcher calls it from one goroutine.
//
// The rules:
//   - A path settles once no event arrived for it for debounce and a fresh
//     look finds the same size and modification time as the look after its
//     last event (a writer that produces no events, or a late one, restarts
//     the window). A path with events for maxDelay is handed on anyway.
//   - A batch closes when no path is young (a path is young for debounce
//     after its first event), so a burst of new files lands in one batch;
//     a path that keeps being written past its young period does not hold
//     up the others. A path due by maxDelay closes a batch regardless.
//   - Removals are held while any path that still exists is settling, so a
//     delete and the create it pairs with (a move, a copy then delete)
//     arrive in the same batch; maxDelay bounds the wait.
//   - A removal below a root that is itself missing is not trusted: it
//     turns into a rescan.
type aggregator struct {
	clk      clock
	debounce time.Duration
	maxDelay time.Duration
	// stat looks at a path without following a final symbolic link.
	stat func(path string) fileState
	// rootOf returns the root a path lies under.
	rootOf func(path string) string
	// rootPresent reports whether a root is there now, as the folder that
	// was watched (not missing, not replaced by another one).
	rootPresent func(root string) bool

	pending map[string]*entry
	newest  time.Time // the latest first event among pending paths

	rescan   bool // a rescan has been asked for and not yet handed on
	rescanAt time.Time
	reasons  []string

	next    time.Time // when flush should run next
	hasNext bool
}

func newAggregator(clk clock, debounce, maxDelay time.Duration, stat func(string) fileState,
	rootOf func(string) string, rootPresent func(string) bool) *aggregator {
	return &aggregator{
		clk:         clk,
		debounce:    debounce,
		maxDelay:    maxDelay,
		stat:        stat,
		rootOf:      rootOf,
		rootPresent: rootPresent,
		pending:     make(map[string]*entry),
	}
}

// len is the number of paths waiting to settle.
func (a *aggregator) len() int { return len(a.pending) }

// add records an event for path.
func (a *aggregator) add(path string, kind eventKind) {
	now := a.clk.Now()
	e := a.pending[path]
	if e == nil {
		e = &entry{first: now, born: kind == evCreated}
		a.pending[path] = e
		if now.After(a.newest) {
			a.newest = now
		}
	}
	e.last = now
	if kind == evGone {
		e.gone = true
	}
	// Looking right after the event gives the window its starting point:
	// the file must still look like this when the window ends.
	e.seen = a.stat(path)
	// Every deadline that this event creates (quiet window, end of the
	// young period) is at now+debounce; the due time is later still.
	a.schedule(now.Add(a.debounce))
}

// requestRescan asks for a full rescan. It is handed on at the next batch
// close, so a rescan caused by a storm of events waits for the storm to
// calm down (at most maxDelay) instead of scanning half-written files.
// It reports whether the reason is new (not already waiting), so that the
// caller logs a storm of overflows once.
func (a *aggregator) requestRescan(reason string) bool {
	now := a.clk.Now()
	if !a.rescan {
		a.rescan = true
		a.rescanAt = now
	}
	a.schedule(now)
	return a.addReason(reason)
}

// schedule brings the next flush forward to t if that is sooner.
func (a *aggregator) schedule(t time.Time) {
	if !a.hasNext || t.Before(a.next) {
		a.next, a.hasNext = t, true
	}
}

// deadline returns when flush should next be called; false when there is
// nothing to wait for. Calling flush earlier is harmless.
func (a *aggregator) deadline() (time.Time, bool) { return a.next, a.hasNext }

// flush hands on what has settled by now. It returns false when there is
// no batch to deliver yet.
func (a *aggregator) flush() (Batch, bool) {
	now := a.clk.Now()
	a.hasNext = false
	if !a.mayClose(now) {
		a.reschedule(now)
		return Batch{}, false
	}
	changed, removals, stillThere := a.look(now)
	removed := a.confirmRemovals(now, removals, stillThere)
	b := a.take(changed, removed)
	a.reschedule(now)
	if b.empty() {
		return Batch{}, false
	}
	return b, true
}

// mayClose reports whether a batch may close at now: no path is young, or
// a path or the rescan is due by maxDelay.
func (a *aggregator) mayClose(now time.Time) bool {
	blocked, due := false, false
	for _, e := range a.pending {
		if now.Before(e.first.Add(a.debounce)) {
			blocked = true
		}
		if !now.Before(e.first.Add(a.maxDelay)) {
			due = true
		}
	}
	rescanDue := a.rescan && !now.Before(a.rescanAt.Add(a.maxDelay))
	return !blocked || due || rescanDue
}

// look examines the pending paths whose quiet window has ended. Settled
// files are changed and no longer pending; paths that are gone are removal
// candidates, decided once every path was looked at (see confirmRemovals).
// stillThere: a path that exists is still settling.
func (a *aggregator) look(now time.Time) (changed, removals []string, stillThere bool) {
	for p, e := range a.pending {
		isDue := !now.Before(e.first.Add(a.maxDelay))
		if !isDue && now.Before(e.last.Add(a.debounce)) {
			if e.seen.kind != kindAbsent {
				stillThere = true
			}
			continue
		}
		st := a.stat(p)
		if !isDue && st != e.seen {
			// It changed without telling us (no event, or the event is
			// still on its way): the window starts again from here.
			e.seen, e.last = st, now
			if st.kind != kindAbsent {
				stillThere = true
			}
			continue
		}
		switch st.kind {
		case kindFile, kindUnknown:
			// An unreadable path is handed on too: the caller's own
			// attempt reports the problem instead of it vanishing here.
			changed = append(changed, p)
			delete(a.pending, p)
		case kindDir:
			// The folder's contents reach us from the scan that followed
			// its creation. But if something named p was removed first, we
			// cannot tell what under the old p is gone.
			if e.gone && !e.born {
				a.addReason(fmt.Sprintf("%s was replaced by a folder", p))
				a.rescan = true
			}
			delete(a.pending, p)
		default: // absent, or no longer something the caller indexes
			if e.born {
				delete(a.pending, p) // appeared and went within one window
				continue
			}
			removals = append(removals, p)
		}
	}
	return changed, removals, stillThere
}

// confirmRemovals hands on the removal candidates that may go now. They
// wait while a path that exists is still settling, so that a delete and
// the create it pairs with arrive together; maxDelay bounds the wait. A
// removal below a root that is itself missing is no evidence: it asks for
// a rescan instead.
func (a *aggregator) confirmRemovals(now time.Time, removals []string, stillThere bool) []string {
	var removed []string
	present := map[string]bool{} // per root, looked up once per flush
	for _, p := range removals {
		e := a.pending[p]
		if stillThere && now.Before(e.first.Add(a.maxDelay)) {
			continue // wait for the files still being written
		}
		delete(a.pending, p)
		root := a.rootOf(p)
		ok, looked := present[root]
		if !looked {
			ok = a.rootPresent(root)
			present[root] = ok
			if !ok {
				// The root itself is gone (an unmounted drive, a renamed
				// library folder): removals under it are no evidence.
				a.addReason(fmt.Sprintf("library folder %s is missing", root))
				a.rescan = true
			}
		}
		if ok {
			removed = append(removed, p)
		}
	}
	return removed
}

// take makes the batch of what was handed on: a rescan absorbs the rest,
// else the sorted paths, with no changed file below a removed folder.
func (a *aggregator) take(changed, removed []string) Batch {
	if a.rescan {
		b := Batch{Rescan: true, Reason: joinReasons(a.reasons...)}
		a.rescan, a.reasons = false, nil
		return b
	}
	slices.Sort(changed)
	slices.Sort(removed)
	if len(removed) > 0 {
		// Guard the invariant for paths looked at a moment apart: a
		// file below a folder that is gone is gone too.
		gone := make(map[string]bool, len(removed))
		for _, p := range removed {
			gone[p] = true
		}
		changed = slices.DeleteFunc(changed, func(p string) bool { return hasAncestorIn(p, gone) })
	}
	return Batch{Changed: changed, Removed: removed}
}

func (a *aggregator) addReason(r string) bool {
	if r == "" || slices.Contains(a.reasons, r) {
		return false
	}
	a.reasons = append(a.reasons, r)
	return true
}

// reschedule works out, after a flush at now, the next time a flush can
// make progress.
func (a *aggregator) reschedule(now time.Time) {
	blocked := false
	a.newest = time.Time{}
	for _, e := range a.pending {
		if e.first.After(a.newest) {
			a.newest = e.first
		}
		a.schedule(e.first.Add(a.maxDelay))
		switch {
		case now.Before(e.first.Add(a.debounce)):
			blocked = true
		case now.Before(e.last.Add(a.debounce)):
			a.schedule(e.last.Add(a.debounce))
		}
	}
	if blocked {
		// Waking at each young path's end would cost a flush per file in a
		// long burst; the batch can only close once the newest one is old.
		a.schedule(a.newest.Add(a.debounce))
	}
	if a.rescan {
		if blocked {
			a.schedule(a.rescanAt.Add(a.maxDelay))
		} else {
			a.schedule(now)
		}
	}
}
