package watcher

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// These tests call the loop's handlers directly, with real folders, a fake
// notifier that records what is watched, and the fake clock: the plumbing
// is checked event by event without fsnotify's timing.

type fakeNotifier struct {
	mu      sync.Mutex
	watched map[string]bool
	adds    []string
	removes []string
	// addErr, when set, can refuse an Add; n counts earlier Adds.
	addErr func(path string, n int) error
	events chan fsnotify.Event
	errs   chan error
	once   sync.Once
}

func newFakeNotifier() *fakeNotifier {
	return &fakeNotifier{watched: map[string]bool{}, events: make(chan fsnotify.Event), errs: make(chan error)}
}

func (f *fakeNotifier) Add(p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.addErr != nil {
		if err := f.addErr(p, len(f.adds)); err != nil {
			return err
		}
	}
	if _, err := os.Stat(p); err != nil {
		return err
	}
	f.adds = append(f.adds, p)
	f.watched[p] = true
	return nil
}

func (f *fakeNotifier) Remove(p string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removes = append(f.removes, p)
	if !f.watched[p] {
		return fsnotify.ErrNonExistentWatch
	}
	delete(f.watched, p)
	return nil
}

func (f *fakeNotifier) Close() error {
	f.once.Do(func() { close(f.events); close(f.errs) })
	return nil
}

func (f *fakeNotifier) Events() <-chan fsnotify.Event { return f.events }
func (f *fakeNotifier) Errors() <-chan error          { return f.errs }

func (f *fakeNotifier) isWatched(p string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.watched[p]
}

type sessionHarness struct {
	t   *testing.T
	s   *session
	n   *fakeNotifier
	clk *fakeClock
	dir string // the temp folder holding the root
}

// newSessionHarness builds a session over root (created first with the
// given files and folders) and runs its initial walk.
func newSessionHarness(t *testing.T, opts Options, layout ...string) (*sessionHarness, string) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "lib")
	mkLayout(t, root, layout...)
	h := &sessionHarness{t: t, n: newFakeNotifier(), clk: newFakeClock(), dir: dir}
	opts.Debounce = testDebounce
	opts.MaxDelay = testMaxDelay
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	w, err := New([]string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.clk = h.clk
	h.s = newSession(w)
	h.s.ctx = t.Context()
	h.s.n = h.n
	return h, root
}

func (h *sessionHarness) start() {
	for _, r := range h.s.roots {
		h.s.checkRoot(r, true)
	}
}

// mkLayout creates folders (ending in "/") and files below root.
func mkLayout(t *testing.T, root string, layout ...string) {
	t.Helper()
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range layout {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("content of "+p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// settle runs the aggregator's deadlines on the fake clock until nothing
// is pending, and returns what was delivered to the receiver's slot, one
// batch per flush.
func (h *sessionHarness) settle() []Batch {
	h.t.Helper()
	var out []Batch
	for i := 0; ; i++ {
		if i > 10000 {
			h.t.Fatal("session does not settle")
		}
		next, ok := h.s.agg.deadline()
		if !ok {
			break
		}
		h.clk.Set(next)
		h.s.flush()
		if h.s.queued != nil {
			out = append(out, *h.s.queued)
			h.s.queued = nil
		}
	}
	return out
}

func (h *sessionHarness) event(p string, op fsnotify.Op) {
	h.s.handle(fsnotify.Event{Name: p, Op: op})
}

func TestSessionInitialWalk(t *testing.T) {
	h, root := newSessionHarness(t, Options{}, "a/b/c/", "a/f.md", "d/", ".grimoire/index.db", ".git/objects/", "top.txt")
	if err := os.Symlink(h.dir, filepath.Join(root, "link")); err != nil {
		t.Log("no symbolic link in this run:", err)
	}
	h.start()
	want := []string{root, filepath.Join(root, "a"), filepath.Join(root, "a", "b"), filepath.Join(root, "a", "b", "c"), filepath.Join(root, "d")}
	got := slices.Sorted(func(yield func(string) bool) {
		for d := range h.s.dirs {
			if !yield(d) {
				return
			}
		}
	})
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("watched %v\nwant    %v (hidden folders and links skipped)", got, want)
	}
	bs := h.settle()
	if len(bs) != 0 {
		t.Fatalf("the walk alone reported %+v", bs)
	}
}

func TestSessionNewFolderIsScanned(t *testing.T) {
	h, root := newSessionHarness(t, Options{})
	h.start()
	// mkdir -p a/b && write a/b/early.txt: only the event for a arrives.
	mkLayout(t, root, "a/b/early.txt", "a/top.md", "a/.hidden/x.md")
	h.event(filepath.Join(root, "a"), fsnotify.Create)
	for _, d := range []string{"a", "a/b"} {
		if !h.n.isWatched(filepath.Join(root, d)) {
			t.Errorf("%s not watched", d)
		}
	}
	bs := h.settle()
	want := []string{filepath.Join(root, "a", "b", "early.txt"), filepath.Join(root, "a", "top.md")}
	if len(bs) != 1 || !slices.Equal(bs[0].Changed, want) || len(bs[0].Removed) != 0 {
		t.Fatalf("got %+v, want Changed %v", bs, want)
	}
}

func TestSessionChmodIsIgnored(t *testing.T) {
	h, root := newSessionHarness(t, Options{}, "f.md")
	h.start()
	h.event(filepath.Join(root, "f.md"), fsnotify.Chmod)
	if h.s.agg.len() != 0 || !h.s.lastEvent.IsZero() {
		t.Fatalf("Chmod was not ignored: %d pending", h.s.agg.len())
	}
	h.event(filepath.Join(root, "f.md"), fsnotify.Write|fsnotify.Chmod)
	if h.s.agg.len() != 1 {
		t.Fatalf("Write|Chmod was dropped")
	}
}

func TestSessionFolderRenamed(t *testing.T) {
	h, root := newSessionHarness(t, Options{}, "d/sub/f.md", "d/g.md")
	h.start()
	oldD, newD := filepath.Join(root, "d"), filepath.Join(root, "e")
	if err := os.Rename(oldD, newD); err != nil {
		t.Fatal(err)
	}
	h.event(oldD, fsnotify.Rename)
	for _, p := range []string{oldD, filepath.Join(oldD, "sub")} {
		if h.n.isWatched(p) || h.s.dirs[p] != nil {
			t.Errorf("%s still watched after the rename", p)
		}
	}
	h.event(newD, fsnotify.Create)
	for _, p := range []string{newD, filepath.Join(newD, "sub")} {
		if !h.n.isWatched(p) {
			t.Errorf("%s not watched after the rename", p)
		}
	}
	bs := h.settle()
	wantChanged := []string{filepath.Join(newD, "g.md"), filepath.Join(newD, "sub", "f.md")}
	if len(bs) != 1 || !slices.Equal(bs[0].Changed, wantChanged) || !slices.Equal(bs[0].Removed, []string{oldD}) {
		t.Fatalf("got %+v\nwant Changed %v, Removed [%s]", bs, wantChanged, oldD)
	}
}

func TestSessionOverflowRescansAndRepairsWatches(t *testing.T) {
	h, root := newSessionHarness(t, Options{}, "a/")
	h.start()
	// A folder made while events were being lost: nobody told us.
	mkLayout(t, root, "missed/deep/f.md")
	h.s.handleError(fsnotify.ErrEventOverflow)
	bs := h.settle()
	if len(bs) != 1 || !bs[0].Rescan || !strings.Contains(bs[0].Reason, "overflow") {
		t.Fatalf("got %+v, want one rescan for the overflow", bs)
	}
	if !h.n.isWatched(filepath.Join(root, "missed", "deep")) {
		t.Error("the folder missed during the overflow is not watched before the rescan")
	}
}

func TestSessionWatchErrorRescans(t *testing.T) {
	h, _ := newSessionHarness(t, Options{})
	h.start()
	h.s.handleError(syscall.EIO)
	bs := h.settle()
	if len(bs) != 1 || !bs[0].Rescan || !strings.Contains(bs[0].Reason, "watch error") {
		t.Fatalf("got %+v", bs)
	}
}

func TestSessionWatchLimit(t *testing.T) {
	h, root := newSessionHarness(t, Options{}, "a/", "b/", "c/", "d/")
	h.s.perEntry, h.s.budget = false, 0 // inotify's accounting, on any platform
	limit := 2
	h.n.addErr = func(_ string, n int) error {
		if n >= limit {
			return syscall.ENOSPC
		}
		return nil
	}
	h.start()
	h.s.publish()
	deg := h.s.w.Stats().Degraded
	for _, want := range []string{"inotify watch limit", "sudo sysctl fs.inotify.max_user_watches=524288", "/etc/sysctl.d/", "periodic rescan (every 1h)"} {
		if !strings.Contains(deg, want) {
			t.Errorf("Degraded = %q\nwant it to contain %q", deg, want)
		}
	}
	bs := h.settle()
	if len(bs) != 1 || !bs[0].Rescan || !strings.Contains(bs[0].Reason, "max_user_watches") {
		t.Fatalf("got %+v, want a rescan that carries the fix", bs)
	}
	// New folders cannot be watched, but their files are still reported.
	mkLayout(t, root, "new/f.md")
	h.event(filepath.Join(root, "new"), fsnotify.Create)
	bs = h.settle()
	if len(bs) != 1 || !slices.Equal(bs[0].Changed, []string{filepath.Join(root, "new", "f.md")}) {
		t.Fatalf("got %+v, want the new folder's file", bs)
	}
	// The limit is raised: the periodic rescan watches everything again.
	limit = 1000
	h.s.periodic()
	h.settle()
	h.s.publish()
	if deg := h.s.w.Stats().Degraded; deg != "" {
		t.Errorf("still degraded after the limit was raised: %q", deg)
	}
	for _, d := range []string{"a", "b", "c", "d", "new"} {
		if !h.n.isWatched(filepath.Join(root, d)) {
			t.Errorf("%s not watched after the limit was raised", d)
		}
	}
}

func TestSessionKqueueBudget(t *testing.T) {
	h, root := newSessionHarness(t, Options{}, "a/1.pdf", "a/2.pdf", "b/3.pdf", "b/4.pdf", "c/5.pdf")
	h.s.perEntry, h.s.budget = true, 6
	h.start()
	h.s.publish()
	st := h.s.w.Stats()
	if !strings.Contains(st.Degraded, "too large for kqueue watching") || !strings.Contains(st.Degraded, "periodic rescan") {
		t.Errorf("Degraded = %q", st.Degraded)
	}
	if st.Watched == 0 || st.Watched >= 4 {
		t.Errorf("Watched = %d, want some but not all of the 4 folders", st.Watched)
	}
	if h.s.used > h.s.budget {
		t.Errorf("used %d descriptors of a budget of %d", h.s.used, h.s.budget)
	}
	if !h.n.isWatched(root) {
		t.Error("the root itself is not watched")
	}
}

func TestSessionRootRemovedAndBack(t *testing.T) {
	h, root := newSessionHarness(t, Options{}, "a/f.md", "g.md")
	h.start()
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	// What inotify sends for rm -rf.
	for _, p := range []string{"a/f.md", "a", "g.md", ""} {
		h.event(filepath.Join(root, p), fsnotify.Remove)
	}
	bs := h.settle()
	if len(bs) != 1 || !bs[0].Rescan || !strings.Contains(bs[0].Reason, "disappeared") {
		t.Fatalf("got %+v, want a single rescan and no removals", bs)
	}
	h.s.publish()
	if st := h.s.w.Stats(); st.Watched != 0 || !strings.Contains(st.Degraded, "is missing") {
		t.Errorf("stats after the root vanished: %+v", st)
	}
	mkLayout(t, root, "back/h.md")
	h.s.checkRoot(h.s.roots[0], false)
	bs = h.settle()
	if len(bs) != 1 || !bs[0].Rescan || !strings.Contains(bs[0].Reason, "available again") {
		t.Fatalf("got %+v, want a rescan for the returning root", bs)
	}
	if !h.n.isWatched(filepath.Join(root, "back")) {
		t.Error("the returning root's folders are not watched")
	}
	h.s.publish()
	if st := h.s.w.Stats(); st.Degraded != "" {
		t.Errorf("still degraded: %q", st.Degraded)
	}
}

func TestSessionRootReplacedWithoutEvents(t *testing.T) {
	h, root := newSessionHarness(t, Options{}, "a/")
	h.start()
	// An unmount or a restore from backup: a different folder under the
	// same name, and no event (inotify drops its watches silently).
	if err := os.Rename(root, root+".old"); err != nil {
		t.Fatal(err)
	}
	mkLayout(t, root, "b/")
	h.s.checkRoot(h.s.roots[0], false)
	bs := h.settle()
	if len(bs) != 1 || !bs[0].Rescan || !strings.Contains(bs[0].Reason, "available again") {
		t.Fatalf("got %+v", bs)
	}
	if !h.n.isWatched(filepath.Join(root, "b")) || h.s.dirs[filepath.Join(root, "a")] != nil {
		t.Error("watches do not follow the new folder")
	}
}

func TestSessionMissingRootAtStart(t *testing.T) {
	h, root := newSessionHarness(t, Options{})
	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	h.start()
	h.s.publish()
	if st := h.s.w.Stats(); !strings.Contains(st.Degraded, root+" is missing") {
		t.Errorf("Degraded = %q", st.Degraded)
	}
	mkLayout(t, root, "x.md")
	h.s.checkRoot(h.s.roots[0], false)
	if !h.n.isWatched(root) {
		t.Error("the root is not watched once it appears")
	}
}

func TestSessionSymlinksAreNotFollowed(t *testing.T) {
	h, root := newSessionHarness(t, Options{}, "real/")
	outside := filepath.Join(h.dir, "outside")
	mkLayout(t, outside, "secret.md", "sub/")
	h.start()
	link := filepath.Join(root, "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Skip("cannot create symbolic links here:", err)
	}
	h.event(link, fsnotify.Create)
	if h.n.isWatched(link) {
		t.Error("a linked folder is watched")
	}
	if st := h.s.statPath(filepath.Join(link, "secret.md")); st.kind != kindAbsent {
		t.Errorf("a file reached through a link looks like %v, want absent", st.kind)
	}
	if bs := h.settle(); len(bs) != 0 {
		t.Errorf("a new link was reported: %+v", bs)
	}
}

func TestSessionIgnore(t *testing.T) {
	ignore := func(p string, isDir bool) bool {
		base := filepath.Base(p)
		return (isDir && base == "skip") || strings.HasSuffix(base, ".tmp") || strings.HasPrefix(base, ".")
	}
	h, root := newSessionHarness(t, Options{Ignore: ignore}, "skip/x.md", "keep/")
	h.start()
	if h.n.isWatched(filepath.Join(root, "skip")) {
		t.Error("an ignored folder is watched")
	}
	mkLayout(t, root, "a.tmp", ".b.md", "c.md")
	for _, p := range []string{"a.tmp", ".b.md", "c.md"} {
		h.event(filepath.Join(root, p), fsnotify.Create)
	}
	bs := h.settle()
	if len(bs) != 1 || !slices.Equal(bs[0].Changed, []string{filepath.Join(root, "c.md")}) {
		t.Fatalf("got %+v", bs)
	}
}

func TestSessionDefaultIgnoreSkipsHiddenFoldersOnly(t *testing.T) {
	h, root := newSessionHarness(t, Options{}, ".grimoire/")
	h.start()
	if h.n.isWatched(filepath.Join(root, ".grimoire")) {
		t.Error("the index folder is watched")
	}
	mkLayout(t, root, ".hidden.md", ".newdir/f.md")
	h.event(filepath.Join(root, ".hidden.md"), fsnotify.Create)
	h.event(filepath.Join(root, ".newdir"), fsnotify.Create)
	bs := h.settle()
	if len(bs) != 1 || !slices.Equal(bs[0].Changed, []string{filepath.Join(root, ".hidden.md")}) {
		t.Fatalf("got %+v", bs)
	}
}

func TestSessionEventsOutsideRootsAreDropped(t *testing.T) {
	h, _ := newSessionHarness(t, Options{})
	h.start()
	h.event(filepath.Join(h.dir, "elsewhere.md"), fsnotify.Create)
	h.event(filepath.Join(h.dir, "lib2", "x.md"), fsnotify.Create) // shares the prefix "lib"
	if h.s.agg.len() != 0 {
		t.Fatalf("%d events from outside the roots were kept", h.s.agg.len())
	}
}

func TestSessionStats(t *testing.T) {
	h, root := newSessionHarness(t, Options{}, "a/", "b/")
	h.start()
	mkLayout(t, root, "a/x.md")
	h.event(filepath.Join(root, "a", "x.md"), fsnotify.Create)
	h.s.publish()
	st := h.s.w.Stats()
	if st.Watched != 3 || st.Pending != 1 || !st.LastEvent.Equal(h.clk.Now()) || st.Degraded != "" {
		t.Fatalf("stats %+v", st)
	}
	h.clk.Advance(5 * time.Second)
	h.s.flush()
	h.s.publish()
	if st := h.s.w.Stats(); st.Pending != 0 || st.Queued != 1 {
		t.Fatalf("stats after the flush %+v", st)
	}
}
