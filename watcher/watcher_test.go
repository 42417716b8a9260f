package watcher

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// These tests run the whole watcher on real folders with real fsnotify and
// a short debounce. They wait for outcomes, never for fixed times, except
// where they check that nothing more arrives.

const (
	itDebounce = 80 * time.Millisecond
	itTimeout  = 10 * time.Second // generous: the machine may be busy
)

type running struct {
	t    *testing.T
	w    *Watcher
	root string
	dir  string // the temp folder holding root, for things outside it
	got  []Batch
	// seen accumulates every path reported, in order of arrival.
	changed, removed map[string]int
	rescans          []string
}

// startWatcher runs a watcher over a fresh root laid out as given, and
// returns once its first batch (the initial rescan) has arrived.
func startWatcher(t *testing.T, opts Options, layout ...string) *running {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "lib")
	mkLayout(t, root, layout...)
	return startOn(t, dir, root, opts, nil)
}

// launch runs w until the test ends and returns what it reports.
func launch(t *testing.T, w *Watcher, dir, root string) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(itTimeout):
			t.Error("Run did not return after cancel")
		}
	})
	r := &running{t: t, w: w, root: root, dir: dir, changed: map[string]int{}, removed: map[string]int{}}
	return r
}

func startOn(t *testing.T, dir, root string, opts Options, wrap func(notifier) notifier) *running {
	t.Helper()
	if opts.Debounce == 0 {
		opts.Debounce = itDebounce
	}
	if opts.MaxDelay == 0 {
		opts.MaxDelay = 5 * time.Second
	}
	if opts.RescanInterval == 0 {
		opts.RescanInterval = -1
	}
	if opts.RootPollInterval == 0 {
		opts.RootPollInterval = 50 * time.Millisecond
	}
	opts.Logger = testLogger(t)
	w, err := New([]string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		w.newNotifier = func() (notifier, error) {
			n, err := newFSNotifier()
			if err != nil {
				return nil, err
			}
			return wrap(n), nil
		}
	}
	r := launch(t, w, dir, root)
	r.waitFor("the initial rescan", func() bool { return slices.Contains(r.rescans, "initial scan") })
	return r
}

func (r *running) path(rel string) string { return filepath.Join(r.root, filepath.FromSlash(rel)) }

func (r *running) record(b Batch) {
	r.got = append(r.got, b)
	for _, p := range b.Changed {
		r.changed[p]++
	}
	for _, p := range b.Removed {
		r.removed[p]++
	}
	if b.Rescan {
		r.rescans = append(r.rescans, strings.Split(b.Reason, "; ")...)
	}
}

// waitFor receives batches until cond holds.
func (r *running) waitFor(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.After(itTimeout)
	for !cond() {
		select {
		case b, ok := <-r.w.Batches():
			if !ok {
				r.t.Fatalf("waiting for %s: batches closed", what)
			}
			r.record(b)
		case <-deadline:
			r.t.Fatalf("waiting for %s: timed out; batches so far:\n%s", what, r.dump())
		}
	}
}

// quiet receives batches for d, for checks that nothing more arrives.
func (r *running) quiet(d time.Duration) {
	r.t.Helper()
	end := time.After(d)
	for {
		select {
		case b, ok := <-r.w.Batches():
			if !ok {
				return
			}
			r.record(b)
		case <-end:
			return
		}
	}
}

func (r *running) dump() string {
	var s []string
	for _, b := range r.got {
		s = append(s, fmt.Sprintf("  changed=%v removed=%v rescan=%v %q", b.Changed, b.Removed, b.Rescan, b.Reason))
	}
	return strings.Join(s, "\n")
}

func (r *running) hasChanged(rel ...string) func() bool {
	return func() bool {
		for _, p := range rel {
			if r.changed[r.path(p)] == 0 {
				return false
			}
		}
		return true
	}
}

func (r *running) hasRemoved(rel ...string) func() bool {
	return func() bool {
		for _, p := range rel {
			if r.removed[r.path(p)] == 0 {
				return false
			}
		}
		return true
	}
}

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunFileCreated(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{})
	write(t, r.path("book.md"), "# A book")
	r.waitFor("the new file", r.hasChanged("book.md"))
	if st := r.w.Stats(); st.Watched != 1 || st.LastEvent.IsZero() || st.Degraded != "" {
		t.Errorf("stats %+v", st)
	}
}

func TestRunSlowWriterIsHandedOnOnceComplete(t *testing.T) {
	t.Parallel()
	// Chunks land well inside the quiet window, over several windows in
	// all; the file must be handed on once, after the last one. An attempt
	// in which the writer itself stalled for half a window (a loaded
	// machine) proves nothing and is repeated.
	const (
		debounce = 300 * time.Millisecond
		gap      = 40 * time.Millisecond
		chunks   = 25
	)
	r := startWatcher(t, Options{Debounce: debounce})
	for attempt := range 3 {
		p := r.path(fmt.Sprintf("big-%d.pdf", attempt))
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		var finished atomic.Bool
		var maxGap atomic.Int64
		chunk := strings.Repeat("x", 64<<10)
		go func() {
			defer f.Close()
			last := time.Now()
			for range chunks {
				if _, err := f.WriteString(chunk); err != nil {
					t.Error(err)
					return
				}
				now := time.Now()
				maxGap.Store(max(maxGap.Load(), int64(now.Sub(last))))
				last = now
				time.Sleep(gap)
			}
			finished.Store(true)
		}()
		r.waitFor("the written file", func() bool { return r.changed[p] > 0 })
		early := !finished.Load()
		r.quiet(3 * debounce)
		if g := time.Duration(maxGap.Load()); g >= debounce/2 {
			t.Logf("attempt %d inconclusive: the writer stalled for %v", attempt, g)
			continue
		}
		if early {
			t.Fatalf("handed on while still being written")
		}
		if fi, err := os.Stat(p); err != nil || fi.Size() != chunks*int64(len(chunk)) {
			t.Fatalf("size %v (%v), want complete", fi.Size(), err)
		}
		if n := r.changed[p]; n != 1 {
			t.Errorf("handed on %d times, want once:\n%s", n, r.dump())
		}
		return
	}
	t.Skip("the machine is too loaded for a writer to keep a steady pace")
}

func TestRunBurstOf200Files(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{})
	var names []string
	for i := range 200 {
		name := fmt.Sprintf("book-%03d.md", i)
		names = append(names, name)
		write(t, r.path(name), "content")
	}
	rescans := len(r.rescans)
	r.waitFor("all 200 files, or a rescan", func() bool { return r.hasChanged(names...)() || len(r.rescans) > rescans })
	if len(r.removed) != 0 {
		t.Errorf("removals in a burst of creations: %v", r.removed)
	}
}

func TestRunNestedFolderWrittenAtOnce(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{})
	// mkdir -p a/b, then a write before any watch on a/b can exist.
	if err := os.MkdirAll(r.path("a/b"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, r.path("a/b/early.txt"), "early")
	r.waitFor("the early file", r.hasChanged("a/b/early.txt"))
	write(t, r.path("a/b/late.txt"), "late")
	r.waitFor("a file written once the folder is watched", r.hasChanged("a/b/late.txt"))
}

func TestRunAtomicSave(t *testing.T) {
	t.Parallel()
	// A wider window than elsewhere: the two steps of the save must fall
	// in one window however loaded the machine is.
	r := startWatcher(t, Options{Debounce: 250 * time.Millisecond}, "book.md")
	tmp := r.path(".book.md.tmp")
	write(t, tmp, "# new version")
	if err := os.Rename(tmp, r.path("book.md")); err != nil {
		t.Fatal(err)
	}
	r.waitFor("the saved file", r.hasChanged("book.md"))
	r.quiet(500 * time.Millisecond)
	if r.changed[r.path("book.md")] != 1 || len(r.changed) != 1 || len(r.removed) != 0 {
		t.Errorf("want one change of book.md and nothing else:\n%s", r.dump())
	}
}

func TestRunDelete(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{}, "old.pdf")
	if err := os.Remove(r.path("old.pdf")); err != nil {
		t.Fatal(err)
	}
	r.waitFor("the removal", r.hasRemoved("old.pdf"))
}

func TestRunMoveWithinTree(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{}, "a/x.epub", "b/")
	if err := os.Rename(r.path("a/x.epub"), r.path("b/x.epub")); err != nil {
		t.Fatal(err)
	}
	r.waitFor("both halves of the move", func() bool { return r.hasRemoved("a/x.epub")() && r.hasChanged("b/x.epub")() })
	for _, b := range r.got {
		if slices.Contains(b.Removed, r.path("a/x.epub")) && !slices.Contains(b.Changed, r.path("b/x.epub")) {
			t.Errorf("the move was split over batches:\n%s", r.dump())
		}
	}
}

func TestRunMoveFolderWithinTree(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{}, "d/sub/x.md", "d/y.md")
	if err := os.Rename(r.path("d"), r.path("e")); err != nil {
		t.Fatal(err)
	}
	r.waitFor("the moved folder", func() bool { return r.hasRemoved("d")() && r.hasChanged("e/sub/x.md", "e/y.md")() })
	write(t, r.path("e/sub/z.md"), "new")
	r.waitFor("a file in the moved folder", r.hasChanged("e/sub/z.md"))
	for p := range r.changed {
		if strings.HasPrefix(p, r.path("d")+string(filepath.Separator)) {
			t.Errorf("reported under the old name: %s", p)
		}
	}
}

func TestRunMoveOutOfTree(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{}, "x.pdf")
	outside := filepath.Join(r.dir, "elsewhere.pdf")
	if err := os.Rename(r.path("x.pdf"), outside); err != nil {
		t.Fatal(err)
	}
	r.waitFor("the removal", r.hasRemoved("x.pdf"))
	write(t, outside, "changed outside")
	r.quiet(3 * itDebounce)
	if len(r.changed) != 0 {
		t.Errorf("a file outside the tree was reported:\n%s", r.dump())
	}
}

func TestRunChmodIsIgnored(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{}, "f.md")
	if err := os.Chmod(r.path("f.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.quiet(4 * itDebounce)
	if len(r.got) != 1 {
		t.Errorf("chmod produced batches:\n%s", r.dump())
	}
}

func TestRunSymlinksAreNotFollowed(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{}, "real.md")
	outside := filepath.Join(r.dir, "outside")
	mkLayout(t, outside, "sub/")
	if err := os.Symlink(outside, r.path("link")); err != nil {
		t.Skip("cannot create symbolic links here:", err)
	}
	r.quiet(2 * itDebounce)
	write(t, filepath.Join(outside, "secret.md"), "not in the library")
	write(t, filepath.Join(outside, "sub", "deeper.md"), "not in the library")
	r.quiet(3 * itDebounce)
	if len(r.changed) != 0 || len(r.removed) != 0 {
		t.Errorf("activity behind a link was reported:\n%s", r.dump())
	}
}

func TestRunRootRemovedAndBack(t *testing.T) {
	t.Parallel()
	// rm -rf sends the files' removals before the root's own: the window
	// must cover the whole removal for them to be judged together.
	r := startWatcher(t, Options{Debounce: 250 * time.Millisecond}, "a/f.md", "a/g.md", "h.md")
	if err := os.RemoveAll(r.root); err != nil {
		t.Fatal(err)
	}
	r.waitFor("a rescan for the vanished root", func() bool {
		return slices.ContainsFunc(r.rescans, func(s string) bool { return strings.Contains(s, "disappeared") })
	})
	if len(r.removed) != 0 {
		t.Errorf("removals trusted although the root is gone:\n%s", r.dump())
	}
	if st := r.w.Stats(); !strings.Contains(st.Degraded, "is missing") {
		t.Errorf("Degraded = %q", st.Degraded)
	}
	mkLayout(t, r.root, "back/")
	r.waitFor("a rescan for the returning root", func() bool {
		return slices.ContainsFunc(r.rescans, func(s string) bool { return strings.Contains(s, "available again") })
	})
	write(t, r.path("back/new.md"), "new")
	r.waitFor("a file in the returning root", r.hasChanged("back/new.md"))
	if st := r.w.Stats(); st.Degraded != "" || st.Watched != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestRunPeriodicRescan(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{RescanInterval: 150 * time.Millisecond})
	r.waitFor("two periodic rescans", func() bool {
		n := 0
		for _, s := range r.rescans {
			if s == "periodic rescan" {
				n++
			}
		}
		return n >= 2
	})
}

func TestRunPeriodicRescanOnFakeClock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root := filepath.Join(dir, "lib")
	mkLayout(t, root)
	w, err := New([]string{root}, Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	clk := newFakeClock()
	w.clk = clk
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	next := func() Batch {
		t.Helper()
		select {
		case b := <-w.Batches():
			return b
		case <-time.After(itTimeout):
			t.Fatal("no batch")
			return Batch{}
		}
	}
	if b := next(); b.Reason != "initial scan" {
		t.Fatalf("first batch %+v", b)
	}
	// Not before 54 minutes (1 h − 10 %), certainly by 66 minutes.
	clk.Advance(53 * time.Minute)
	select {
	case b := <-w.Batches():
		t.Fatalf("batch before the rescan interval: %+v", b)
	case <-time.After(100 * time.Millisecond):
	}
	clk.Advance(13 * time.Minute)
	if b := next(); !b.Rescan || b.Reason != "periodic rescan" {
		t.Fatalf("got %+v, want the periodic rescan", b)
	}
}

// A receiver busy with a long reconcile gets one combined batch.
func TestRunSlowReceiverGetsMergedBatch(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{}, "gone.md")
	write(t, r.path("one.md"), "1")
	time.Sleep(3 * itDebounce) // settles and waits in the slot
	write(t, r.path("two.md"), "2")
	if err := os.Remove(r.path("gone.md")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(itTimeout)
	for r.w.Stats().Pending > 0 || r.w.Stats().Queued < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v", r.w.Stats())
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.quiet(itDebounce)
	if len(r.got) != 2 {
		t.Fatalf("want the initial rescan and one merged batch:\n%s", r.dump())
	}
	b := r.got[1]
	if !slices.Equal(b.Changed, []string{r.path("one.md"), r.path("two.md")}) || !slices.Equal(b.Removed, []string{r.path("gone.md")}) {
		t.Errorf("merged batch %+v", b)
	}
}

// limitedNotifier refuses watches past a count, as a full inotify watch
// table does.
type limitedNotifier struct {
	notifier
	left atomic.Int32
}

func (l *limitedNotifier) Add(p string) error {
	if l.left.Add(-1) < 0 {
		return fmt.Errorf("add %q: %w", p, syscall.ENOSPC)
	}
	return l.notifier.Add(p)
}

func TestRunWatchLimitDegrades(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the inotify watch limit is Linux's")
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "lib")
	mkLayout(t, root, "a/", "b/", "c/", "d/")
	r := startOn(t, dir, root, Options{}, func(n notifier) notifier {
		l := &limitedNotifier{notifier: n}
		l.left.Store(2)
		return l
	})
	if len(r.got) != 1 || !strings.HasPrefix(r.got[0].Reason, "initial scan; ") ||
		!slices.ContainsFunc(r.rescans, func(s string) bool { return strings.Contains(s, "max_user_watches=524288") }) {
		t.Errorf("the first rescan does not carry the fix:\n%s", r.dump())
	}
	st := r.w.Stats()
	if st.Watched != 2 || !strings.Contains(st.Degraded, "sudo sysctl fs.inotify.max_user_watches=524288") {
		t.Errorf("stats %+v", st)
	}
	// The watched folders still work.
	write(t, r.path("f.md"), "x")
	r.waitFor("a change in a watched folder", r.hasChanged("f.md"))
}

func TestRunTwice(t *testing.T) {
	t.Parallel()
	r := startWatcher(t, Options{})
	if err := r.w.Run(context.Background()); err == nil {
		t.Fatal("second Run did not fail")
	}
}

// Run leaves nothing behind: the notifier, its reader and the pump are all
// gone when it returns, and Batches is closed.
func TestRunStopsCleanly(t *testing.T) {
	dir := t.TempDir()
	mkLayout(t, dir, "a/b/c.md")
	w, err := New([]string{dir}, Options{Debounce: itDebounce, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	<-w.Batches() // running, watches in place
	write(t, filepath.Join(dir, "a", "new.md"), "x")
	time.Sleep(itDebounce / 2) // events in flight, a batch settling
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(itTimeout):
		t.Fatal("Run did not return after cancel")
	}
	for b := range w.Batches() { // closed by Run on its way out
		t.Logf("batch left in the slot: %+v", b)
	}
	deadline := time.Now().Add(itTimeout)
	for {
		leaked := leakedGoroutines()
		if leaked == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines left after Run returned:\n%s", leaked)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// leakedGoroutines returns the stacks of goroutines running watcher or
// fsnotify code, other than tests.
func leakedGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "watcher.Test") || strings.Contains(g, "testing.tRunner") {
			continue
		}
		if strings.Contains(g, "grimoire/watcher.") || strings.Contains(g, "fsnotify") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}

func TestRunWithoutNotifier(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the inotify instance limit is Linux's")
	}
	dir := t.TempDir()
	w, err := New([]string{dir}, Options{Debounce: itDebounce, RescanInterval: 100 * time.Millisecond, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	w.newNotifier = func() (notifier, error) { return nil, fmt.Errorf("inotify_init1: %w", syscall.EMFILE) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	var reasons []string
	for len(reasons) < 2 {
		select {
		case b := <-w.Batches():
			reasons = append(reasons, b.Reason)
		case <-time.After(itTimeout):
			t.Fatalf("batches so far: %q", reasons)
		}
	}
	if reasons[0] != "initial scan" || reasons[1] != "periodic rescan" {
		t.Errorf("reasons %q, want the initial and the periodic rescans", reasons)
	}
	if st := w.Stats(); !strings.Contains(st.Degraded, "max_user_instances") || st.Watched != 0 {
		t.Errorf("stats %+v", st)
	}
}
