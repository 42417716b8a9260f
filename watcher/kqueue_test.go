//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package watcher

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// kqueue holds a descriptor for every watched folder and every entry in
// one. These tests run the real fsnotify backend on libraries larger than
// the budget: past macOS's default soft limit of 256 open files, which Go
// raises at start-up, and past a budget made small.

// kqueueLibrary lays out folders of files each below root and returns the
// descriptors watching all of it takes: the root and its entries, then
// each folder and its files.
func kqueueLibrary(t *testing.T, root string, folders, files int) int {
	t.Helper()
	var layout []string
	for d := range folders {
		for f := range files {
			layout = append(layout, fmt.Sprintf("d%02d/book%02d.md", d, f))
		}
	}
	mkLayout(t, root, layout...)
	return 1 + folders + folders*(1+files)
}

// startBudget runs a watcher over root with a descriptor budget of its own
// (0: the process's, as New sets it) and returns once the initial rescan
// has arrived.
func startBudget(t *testing.T, dir, root string, budget int) *running {
	t.Helper()
	w, err := New([]string{root}, Options{Debounce: itDebounce, MaxDelay: 5 * time.Second,
		RescanInterval: -1, RootPollInterval: 50 * time.Millisecond, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if budget > 0 {
		w.fdBudget = budget
	}
	r := launch(t, w, dir, root)
	r.waitFor("the initial rescan", func() bool {
		return slices.ContainsFunc(r.rescans, func(s string) bool { return strings.HasPrefix(s, "initial scan") })
	})
	return r
}

// A library needing more descriptors than the default soft limit is
// watched whole when the raised limit allows it, and said to be too large
// when it does not; either way its changes are found.
func TestRunKqueuePastTheDefaultLimit(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "lib")
	const folders, files = 24, 12
	need := kqueueLibrary(t, root, folders, files)
	if need <= 256 {
		t.Fatalf("the library needs %d descriptors, not more than the default limit", need)
	}
	budget := watchBudget()
	t.Logf("the library needs %d descriptors; the watcher's budget is %d", need, budget)
	r := startBudget(t, dir, root, 0)
	st := r.w.Stats()
	if budget >= need {
		if st.Degraded != "" || st.Watched != 1+folders {
			t.Errorf("stats %+v, want all %d folders watched", st, 1+folders)
		}
		last := fmt.Sprintf("d%02d/new.md", folders-1)
		write(t, r.path(last), "x")
		r.waitFor("a new file in the last folder", r.hasChanged(last))
		return
	}
	if !strings.Contains(st.Degraded, "too large for kqueue watching") {
		t.Errorf("a budget of %d for %d descriptors, yet stats %+v", budget, need, st)
	}
	write(t, r.path("new.md"), "x")
	r.waitFor("a new file in the root", r.hasChanged("new.md"))
}

// Past its budget, the watcher watches what fits, says why the rest is
// not watched, and still reports changes where it watches.
func TestRunKqueueBudgetIsReported(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "lib")
	kqueueLibrary(t, root, 4, 3)
	// The root and its 4 folders take 5; the first folder and its 3
	// files would take 4 more.
	r := startBudget(t, dir, root, 8)
	st := r.w.Stats()
	if !strings.Contains(st.Degraded, "too large for kqueue watching") || st.Watched != 1 {
		t.Errorf("stats %+v, want the root alone watched and the reason given", st)
	}
	if !slices.ContainsFunc(r.rescans, func(s string) bool { return strings.Contains(s, "kqueue") }) {
		t.Errorf("no rescan says why:\n%s", r.dump())
	}
	write(t, r.path("new.md"), "x")
	r.waitFor("a new file in the watched root", r.hasChanged("new.md"))
}
