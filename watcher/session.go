package watcher

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/grimoire-search/grimoire/internal/subtree"
)

// session is the state of one Run. Everything in it belongs to the Run
// goroutine; only the pump runs beside it.
type session struct {
	w    *Watcher
	ctx  context.Context
	clk  clock
	log  *slog.Logger
	opts Options

	n     notifier // nil when no notifier could be started
	pump  *pump
	spare []fsnotify.Event

	agg   *aggregator
	roots []*root
	dirs  map[string]*dirNode // folders being watched

	perEntry bool // each watch holds a descriptor per entry (kqueue)
	budget   int  // descriptors the watches may hold; 0: no budget
	used     int  // descriptors they hold, approximately
	limited  bool // a watch limit was hit: no more Add until the next rewalk

	degraded   map[string]string // why part of the library is not watched, by topic
	needRewalk bool              // repair the watches before the next rescan goes out
	queued     *Batch            // waiting for the receiver
	lastEvent  time.Time

	aggTimer    timer
	aggArmed    bool
	aggAt       time.Time
	rescanTimer timer
	pollTimer   timer
}

// root is one library folder.
type root struct {
	path string
	info fs.FileInfo // the folder being watched; nil while it is missing
	told bool        // its absence has been reported
}

// dirNode is a watched folder.
type dirNode struct {
	children map[string]struct{} // watched subfolders, by path
	cost     int                 // descriptors its watch holds (kqueue)
}

// Topics of Stats.Degraded, in the order they are listed.
const (
	topicNotifier = "0"
	topicLimit    = "1"
	topicRoot     = "2:" // + root path
)

func newSession(w *Watcher) *session {
	s := &session{
		w:        w,
		clk:      w.clk,
		log:      w.log,
		opts:     w.opts,
		dirs:     make(map[string]*dirNode),
		perEntry: fdPerEntry,
		budget:   w.fdBudget,
		degraded: make(map[string]string),
	}
	for _, r := range w.roots {
		s.roots = append(s.roots, &root{path: r})
	}
	s.agg = newAggregator(s.clk, s.opts.Debounce, s.opts.MaxDelay, s.statPath, s.rootPathOf, s.rootPresent)
	return s
}

func (s *session) run(ctx context.Context) error {
	s.ctx = ctx
	// Once stopped, nothing is watched or pending any more.
	defer func() { s.w.setStats(Stats{LastEvent: s.lastEvent}) }()
	if n, err := s.w.newNotifier(); err != nil {
		msg := notifierMessage(err, runtime.GOOS == "linux", s.opts.RescanInterval)
		s.degraded[topicNotifier] = msg
		s.log.Warn("cannot watch the library for changes", "problem", msg)
	} else {
		s.n = n
		s.pump = newPump(maxQueued)
		pumped := make(chan struct{})
		go func() {
			defer close(pumped)
			s.pump.run(n)
		}()
		defer func() {
			if err := n.Close(); err != nil {
				s.log.Debug("closing the file-system notifier", "err", err)
			}
			<-pumped // the pump ends once fsnotify has closed both channels
		}()
	}

	// Asked for first so that it leads the reasons; it goes out once the
	// loop runs, after every root below is watched.
	s.agg.requestRescan("initial scan")
	for _, r := range s.roots {
		s.checkRoot(r, true)
	}

	s.aggTimer = s.clk.NewTimer(time.Hour)
	s.aggTimer.Stop()
	defer s.aggTimer.Stop()
	var rescanC, pollC <-chan time.Time
	if s.opts.RescanInterval > 0 {
		s.rescanTimer = s.clk.NewTimer(jitter(s.opts.RescanInterval, rand.Float64()))
		defer s.rescanTimer.Stop()
		rescanC = s.rescanTimer.C()
	}
	if s.opts.RootPollInterval > 0 {
		s.pollTimer = s.clk.NewTimer(s.opts.RootPollInterval)
		defer s.pollTimer.Stop()
		pollC = s.pollTimer.C()
	}
	var ready <-chan struct{}
	if s.pump != nil {
		ready = s.pump.ready
	}

	for {
		s.arm()
		s.publish()
		var (
			out  chan<- Batch
			next Batch
		)
		if s.queued != nil {
			out, next = s.w.out, *s.queued
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ready:
			s.drain()
		case <-s.aggTimer.C():
			s.aggArmed = false
			s.flush()
		case <-rescanC:
			s.rescanTimer.Reset(jitter(s.opts.RescanInterval, rand.Float64()))
			s.periodic()
		case <-pollC:
			s.pollTimer.Reset(s.opts.RootPollInterval)
			for _, r := range s.roots {
				s.checkRoot(r, false)
			}
		case out <- next:
			s.queued = nil
		}
	}
}

// arm sets the aggregator's timer to its next deadline, unless it is
// already set to fire sooner: a later deadline than the armed one only
// costs an early, harmless flush.
func (s *session) arm() {
	at, ok := s.agg.deadline()
	if !ok || (s.aggArmed && !at.Before(s.aggAt)) {
		return
	}
	s.aggTimer.Reset(at.Sub(s.clk.Now()))
	s.aggArmed, s.aggAt = true, at
}

// publish makes the loop's state visible to Stats.
func (s *session) publish() {
	st := Stats{
		Watched:   len(s.dirs),
		Pending:   s.agg.len(),
		LastEvent: s.lastEvent,
	}
	if s.queued != nil {
		st.Queued = s.queued.size()
	}
	if len(s.degraded) > 0 {
		topics := make([]string, 0, len(s.degraded))
		for t := range s.degraded {
			topics = append(topics, t)
		}
		slices.Sort(topics)
		msgs := make([]string, len(topics))
		for i, t := range topics {
			msgs[i] = s.degraded[t]
		}
		st.Degraded = strings.Join(msgs, "; ")
	}
	s.w.setStats(st)
}

// flush moves what the aggregator has settled to the receiver's slot.
func (s *session) flush() {
	b, ok := s.agg.flush()
	if !ok {
		return
	}
	if b.Rescan && s.needRewalk {
		// Folders created while events were lost are not watched yet.
		// Watch them before the caller starts its scan, so that whatever
		// changes during the scan is seen.
		s.needRewalk = false
		s.rewalk()
	}
	s.log.Debug("batch", "changed", len(b.Changed), "removed", len(b.Removed), "rescan", b.Rescan, "reason", b.Reason)
	if s.queued == nil {
		s.queued = &b
		return
	}
	s.queued.merge(b)
}

// periodic is the safety net: check the roots, repair the watches and ask
// for a full rescan.
func (s *session) periodic() {
	for _, r := range s.roots {
		s.checkRoot(r, false)
	}
	s.needRewalk = true
	s.agg.requestRescan("periodic rescan")
}

// rescan asks for a rescan, logging the reason the first time it comes up.
func (s *session) rescan(reason string, level slog.Level) {
	if s.agg.requestRescan(reason) {
		s.log.Log(s.ctx, level, "full rescan needed", "reason", reason)
	}
}

// drain handles what the pump has queued.
func (s *session) drain() {
	events, errs, overflow := s.pump.take(s.spare)
	for _, err := range errs {
		s.handleError(err)
	}
	if overflow {
		s.handleError(errQueueFull)
	}
	for _, ev := range events {
		s.handle(ev)
	}
	if cap(events) <= 4096 { // do not keep a burst's memory around
		clear(events)
		s.spare = events[:0]
	} else {
		s.spare = nil
	}
}

// errQueueFull reports that the pump dropped events.
var errQueueFull = errors.New("watcher: event queue full")

// handleError turns a notifier error into a rescan: events may have been
// lost, and with them folders that were created and not watched.
func (s *session) handleError(err error) {
	s.needRewalk = true
	switch {
	case errors.Is(err, fsnotify.ErrEventOverflow), errors.Is(err, errQueueFull):
		s.rescan("too many changes at once: the event queue overflowed", slog.LevelInfo)
	default:
		s.rescan(fmt.Sprintf("watch error: %v", err), slog.LevelWarn)
	}
}

// handle turns one fsnotify event into watch changes and aggregator input.
func (s *session) handle(ev fsnotify.Event) {
	// Chmod alone is dropped: Spotlight, antivirus and backup tools send
	// storms of them, and on Linux every unlink sends one before Remove.
	op := ev.Op & (fsnotify.Create | fsnotify.Write | fsnotify.Remove | fsnotify.Rename)
	if op == 0 {
		return
	}
	p := filepath.Clean(ev.Name)
	r := s.rootFor(p)
	if r == nil || r.info == nil {
		return // late news about something no longer watched
	}
	s.lastEvent = s.clk.Now()
	if p == r.path {
		if op.Has(fsnotify.Remove) || op.Has(fsnotify.Rename) {
			s.rootGone(r, fmt.Sprintf("library folder %s disappeared", r.path))
		}
		return
	}

	_, wasDir := s.dirs[p]
	if op.Has(fsnotify.Remove) || op.Has(fsnotify.Rename) {
		if wasDir {
			// Drop the watches of the whole subtree now: inotify keeps
			// reporting under the old path for folders moved elsewhere,
			// and the same folder may be about to reappear under a new
			// name.
			s.unwatch(p)
		} else if s.perEntry {
			s.used = max(0, s.used-1)
		}
		if !s.ignored(p, wasDir) {
			s.agg.add(p, evGone)
		}
	}
	if op.Has(fsnotify.Create) {
		isDir := s.statPath(p).kind == kindDir
		if s.ignored(p, isDir) {
			return
		}
		if isDir {
			// A new folder (made, or moved in with its contents): watch it
			// and everything below, and report the files already there,
			// since those written before the watch existed sent nothing.
			// The folder itself is not reported, but the aggregator needs
			// to know when something removed under this name came back.
			s.agg.add(p, evCreated)
			s.watchTree(p, true, nil)
			return
		}
		if s.perEntry {
			s.used++ // kqueue opens the new file to watch it
		}
		s.agg.add(p, evCreated)
		return
	}
	if op.Has(fsnotify.Write) {
		if _, isDir := s.dirs[p]; isDir || s.ignored(p, false) {
			return // a folder's listing changed (kqueue, Windows): its entries tell more
		}
		s.agg.add(p, evWritten)
	}
}

func (s *session) ignored(p string, isDir bool) bool { return s.opts.Ignore(p, isDir) }

// rootFor returns the deepest root at or above p, or nil.
func (s *session) rootFor(p string) *root {
	var best *root
	for _, r := range s.roots {
		if subtree.Contains(r.path, p) && (best == nil || len(r.path) > len(best.path)) {
			best = r
		}
	}
	return best
}

func (s *session) rootPathOf(p string) string {
	if r := s.rootFor(p); r != nil {
		return r.path
	}
	return ""
}

// rootPresent reports whether a root is the folder being watched: not
// missing, and not replaced (remounted, recreated) since it was watched.
func (s *session) rootPresent(path string) bool {
	for _, r := range s.roots {
		if r.path == path {
			fi, err := os.Stat(path)
			return err == nil && r.info != nil && os.SameFile(r.info, fi)
		}
	}
	return false
}

// statPath looks at p without following a symbolic link, neither at p
// itself nor in the folders leading to it: reading through a link would
// take the caller outside the library.
func (s *session) statPath(p string) fileState {
	fi, err := os.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return fileState{kind: kindAbsent}
		}
		return fileState{kind: kindUnknown}
	}
	st := stateOf(fi)
	if st.kind == kindFile || st.kind == kindDir {
		if parent := filepath.Dir(p); s.dirs[parent] == nil && !s.realFolders(parent) {
			return fileState{kind: kindAbsent}
		}
	}
	return st
}

// realFolders reports whether dir and every folder between it and its root
// is a real folder. A watched folder vouches for itself and those above
// it: a watched folder that turns into a link is reported (Remove or
// Rename) and unwatched first.
func (s *session) realFolders(dir string) bool {
	r := s.rootFor(dir)
	if r == nil {
		return false
	}
	for d := dir; d != r.path; d = filepath.Dir(d) {
		if s.dirs[d] != nil {
			return true
		}
		fi, err := os.Lstat(d)
		if err != nil || stateOf(fi).kind != kindDir {
			return false
		}
	}
	return true // the root may be a link; the user chose it
}

// checkRoot compares a root with what is on disk and starts or stops
// watching it. A root that went away and came back is watched afresh.
func (s *session) checkRoot(r *root, initial bool) {
	fi, err := os.Stat(r.path) // a root may be a symbolic link the user chose
	present := err == nil && fi.IsDir()
	if r.info != nil {
		if present && os.SameFile(r.info, fi) {
			return
		}
		s.rootGone(r, fmt.Sprintf("library folder %s disappeared", r.path))
	}
	if !present {
		if !r.told {
			r.told = true
			s.log.Warn("library folder is missing; it is watched again once it is back", "root", r.path, "err", err)
		}
		s.degraded[topicRoot+r.path] = fmt.Sprintf("library folder %s is missing (an unplugged drive?), watching resumes when it is back", r.path)
		return
	}
	r.info, r.told = fi, false
	delete(s.degraded, topicRoot+r.path)
	if s.n != nil {
		s.watchTree(r.path, false, nil)
	}
	if !initial {
		s.rescan(fmt.Sprintf("library folder %s is available again", r.path), slog.LevelInfo)
	}
}

// rootGone stops watching a root that vanished. Its removal is not passed
// on file by file: the caller's rescan decides what is really gone.
func (s *session) rootGone(r *root, reason string) {
	for d := range s.dirs {
		if subtree.Contains(r.path, d) {
			s.unwatch(d)
		}
	}
	r.info = nil
	s.degraded[topicRoot+r.path] = fmt.Sprintf("library folder %s is missing (an unplugged drive?), watching resumes when it is back", r.path)
	r.told = true
	s.log.Warn("library folder is gone; it is watched again once it is back", "root", r.path)
	s.rescan(reason, slog.LevelInfo)
}

// watchTree watches top and every folder below it that is not ignored.
// With report, files found are handed to the aggregator as created: a
// folder that was just made or moved in may hold files that no event will
// ever announce. seen, when not nil, collects every real folder found.
func (s *session) watchTree(top string, report bool, seen map[string]bool) {
	stack := []string{top}
	for len(stack) > 0 {
		if s.ctx.Err() != nil {
			return
		}
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.n != nil && s.dirs[d] == nil && !s.watchDir(d) {
			continue
		}
		// Listing after the watch is in place: whatever appears later sends
		// an event, whatever was there before is in the listing.
		ents, err := os.ReadDir(d)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue // gone since; its removal sends or has sent an event
		}
		if seen != nil {
			seen[d] = true // it exists, even if it cannot be listed now
		}
		if err != nil && len(ents) == 0 {
			s.log.Warn("cannot list folder, so changes in it are found only by the periodic rescan", "dir", d, "err", err)
			continue
		}
		for _, e := range ents {
			p := filepath.Join(d, e.Name())
			t := e.Type()
			isDir := t.IsDir() && t&(fs.ModeSymlink|fs.ModeIrregular) == 0
			if s.ignored(p, isDir) {
				continue
			}
			switch {
			case isDir:
				stack = append(stack, p)
			case report && t.IsRegular():
				s.agg.add(p, evCreated)
			}
		}
	}
}

// watchDir adds a watch for one folder. It returns false when the folder
// is gone or not a real folder, so that it is not listed either.
func (s *session) watchDir(d string) bool {
	if s.limited {
		return true // listed all the same, so that new files are reported
	}
	cost := 1
	if s.perEntry && s.budget > 0 {
		names, err := readNames(d)
		if err != nil {
			return !errors.Is(err, fs.ErrNotExist)
		}
		cost += names
		if s.used+cost > s.budget {
			s.hitLimit(kqueueMessage(len(s.dirs), s.budget*2, s.opts.RescanInterval))
			return true
		}
	}
	err := s.n.Add(d)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return false // gone again already
	case isLimit(err):
		s.hitLimit(limitMessage(err, s.perEntry, len(s.dirs), s.budget*2, s.opts.RescanInterval))
		return true
	case errors.Is(err, fs.ErrPermission):
		s.log.Warn("cannot watch folder", "dir", d, "err", err)
		return true
	default:
		s.log.Warn("cannot watch folder", "dir", d, "err", err)
		s.rescan(fmt.Sprintf("cannot watch %s: %v", d, err), slog.LevelWarn)
		return true
	}
	isRoot := slices.ContainsFunc(s.roots, func(r *root) bool { return r.path == d })
	if !isRoot && s.statPath(d).kind != kindDir {
		// Add follows a symbolic link; if d became one since it was
		// listed, the watch would reach outside the library.
		_ = s.n.Remove(d)
		return false
	}
	s.dirs[d] = &dirNode{cost: cost}
	if parent := s.dirs[filepath.Dir(d)]; parent != nil && !isRoot {
		if parent.children == nil {
			parent.children = make(map[string]struct{})
		}
		parent.children[d] = struct{}{}
	}
	s.used += cost
	return true
}

// readNames counts the entries of folder d. os.ReadDir opens with
// O_DIRECTORY: a folder swapped for a FIFO fails at once where os.Open
// would wait for a writer.
func readNames(d string) (int, error) {
	ents, err := os.ReadDir(d)
	return len(ents), err
}

// hitLimit records that no more watches can be added. The first time, the
// caller hears of it through a rescan that carries the fix.
func (s *session) hitLimit(msg string) {
	s.limited = true
	if _, known := s.degraded[topicLimit]; known {
		return
	}
	s.degraded[topicLimit] = msg
	s.log.Warn("not every folder can be watched", "problem", msg)
	s.rescan(msg, slog.LevelInfo)
}

// unwatch stops watching top and the folders below it.
func (s *session) unwatch(top string) {
	node := s.dirs[top]
	if node == nil {
		return
	}
	for child := range node.children {
		s.unwatch(child)
	}
	if s.n != nil {
		// The kernel may have dropped the watch already (the folder was
		// deleted); the error that brings is expected.
		_ = s.n.Remove(top)
	}
	delete(s.dirs, top)
	if parent := s.dirs[filepath.Dir(top)]; parent != nil {
		delete(parent.children, top)
	}
	s.used = max(0, s.used-node.cost)
}

// rewalk brings the watches in line with the folders on disk: it adds
// those missed (created while events were lost, or refused by a limit that
// may since have been raised) and drops those gone.
func (s *session) rewalk() {
	if s.n == nil {
		return
	}
	s.limited = false
	seen := make(map[string]bool, len(s.dirs))
	for _, r := range s.roots {
		if r.info != nil {
			s.watchTree(r.path, false, seen)
		}
	}
	if s.ctx.Err() != nil {
		return
	}
	for d := range s.dirs {
		if !seen[d] {
			s.unwatch(d)
		}
	}
	if !s.limited && s.degraded[topicLimit] != "" {
		delete(s.degraded, topicLimit)
		s.log.Info("every folder is watched again", "folders", len(s.dirs))
	}
}

// jitter spreads d by ±10 %, r being uniform in [0, 1).
func jitter(d time.Duration, r float64) time.Duration {
	return d + time.Duration((r*0.2-0.1)*float64(d))
}

func isLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// coverage says what still finds changes where watching is not possible.
func coverage(rescan time.Duration) string {
	if rescan <= 0 {
		return "only the next sync finds changes there"
	}
	return "the periodic rescan (every " + human(rescan) + ") still finds changes there"
}

// limitMessage explains a watch refused by a system limit, with the fix.
// (No "; " inside: reasons are joined with it.)
func limitMessage(err error, perEntry bool, watched, fdLimit int, rescan time.Duration) string {
	switch {
	case perEntry:
		return kqueueMessage(watched, fdLimit, rescan)
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Sprintf("the inotify watch limit is reached after %d folders, so some folders are not watched and %s. "+
			"Raise the limit with `sudo sysctl fs.inotify.max_user_watches=524288` and keep it after a reboot with "+
			"`echo fs.inotify.max_user_watches=524288 | sudo tee /etc/sysctl.d/90-grimoire.conf`", watched, coverage(rescan))
	default:
		return fmt.Sprintf("cannot watch more folders (%v) after %d, so %s", err, watched, coverage(rescan))
	}
}

func kqueueMessage(watched, fdLimit int, rescan time.Duration) string {
	limit := ""
	if fdLimit > 0 {
		limit = fmt.Sprintf(" (open-file limit %d)", fdLimit)
	}
	return fmt.Sprintf("the library is too large for kqueue watching%s: it needs an open file for every book and folder, "+
		"so only %d folders are watched and %s", limit, watched, coverage(rescan))
}

// notifierMessage explains why no notifier could be started at all.
func notifierMessage(err error, inotify bool, rescan time.Duration) string {
	if inotify && errors.Is(err, syscall.EMFILE) {
		return fmt.Sprintf("cannot start watching: too many inotify instances are open, so %s. "+
			"Raise the limit with `sudo sysctl fs.inotify.max_user_instances=512` and keep it after a reboot with "+
			"`echo fs.inotify.max_user_instances=512 | sudo tee /etc/sysctl.d/90-grimoire.conf`", coverage(rescan))
	}
	return fmt.Sprintf("cannot start watching (%v), so %s", err, coverage(rescan))
}

// human prints a duration without trailing zero units: "1h", "30m", "1m30s".
func human(d time.Duration) string {
	if d < time.Second {
		return d.String()
	}
	str := d.Round(time.Second).String()
	if strings.HasSuffix(str, "m0s") {
		str = str[:len(str)-2]
	}
	if strings.HasSuffix(str, "h0m") {
		str = str[:len(str)-2]
	}
	return str
}
