package watcher

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The aggregator tests run on a fake clock and a scripted file system, in
// units of the debounce window, so that nothing sleeps.

const (
	testDebounce = time.Second
	testMaxDelay = 10 * time.Second
	testRoot     = "/lib"
)

// d is a number of debounce windows.
func d(n float64) time.Duration { return time.Duration(n * float64(testDebounce)) }

// harness drives an aggregator the way the watcher's loop does: it calls
// flush whenever a deadline falls due, and applies script steps in between.
type harness struct {
	t            *testing.T
	clk          *fakeClock
	start        time.Time
	fs           map[string]fileState
	rootsMissing map[string]bool
	agg          *aggregator
	got          []gotBatch
}

type gotBatch struct {
	at time.Duration // since the start of the script
	b  Batch
}

func (g gotBatch) String() string {
	return fmt.Sprintf("@%v changed=%v removed=%v rescan=%v reason=%q", g.at, g.b.Changed, g.b.Removed, g.b.Rescan, g.b.Reason)
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, clk: newFakeClock(), fs: map[string]fileState{}, rootsMissing: map[string]bool{}}
	h.start = h.clk.Now()
	h.agg = newAggregator(h.clk, testDebounce, testMaxDelay,
		func(p string) fileState { return h.fs[p] }, // absent unless scripted
		func(string) string { return testRoot },
		func(r string) bool { return !h.rootsMissing[r] })
	return h
}

func (h *harness) now() time.Duration { return h.clk.Now().Sub(h.start) }

// advanceTo runs every flush that falls due up to t, then moves the clock
// to t.
func (h *harness) advanceTo(t time.Duration) {
	h.t.Helper()
	target := h.start.Add(t)
	for i := 0; ; i++ {
		if i > 100000 {
			h.t.Fatalf("aggregator does not settle: deadline keeps falling due at %v", h.now())
		}
		next, ok := h.agg.deadline()
		if !ok || next.After(target) {
			break
		}
		h.clk.Set(next)
		if b, ok := h.agg.flush(); ok {
			h.got = append(h.got, gotBatch{h.now(), b})
		}
	}
	h.clk.Set(target)
}

// Scripted file-system changes: each changes the fake disk and reports the
// event fsnotify would send.

func (h *harness) file(p string, size int64) fileState {
	return fileState{kind: kindFile, size: size, mtime: h.clk.Now().UnixNano()}
}

func (h *harness) create(p string, size int64) {
	h.fs[p] = h.file(p, size)
	h.agg.add(p, evCreated)
}

func (h *harness) write(p string, size int64) {
	h.fs[p] = h.file(p, size)
	h.agg.add(p, evWritten)
}

func (h *harness) remove(p string) {
	delete(h.fs, p)
	h.agg.add(p, evGone)
}

func (h *harness) rename(from, to string) {
	h.fs[to] = h.fs[from]
	delete(h.fs, from)
	h.agg.add(from, evGone)
	h.agg.add(to, evCreated)
}

type step struct {
	at time.Duration
	do func(h *harness)
}

type wantBatch struct {
	at      time.Duration // -1: any time
	changed []string
	removed []string
	rescan  string // non-empty: a rescan whose reason contains this
}

func (w wantBatch) matches(g gotBatch) bool {
	if w.at >= 0 && w.at != g.at {
		return false
	}
	if w.rescan != "" {
		return g.b.Rescan && strings.Contains(g.b.Reason, w.rescan) && len(g.b.Changed) == 0 && len(g.b.Removed) == 0
	}
	return !g.b.Rescan && slices.Equal(w.changed, g.b.Changed) && slices.Equal(w.removed, g.b.Removed)
}

func existing(paths ...string) step {
	return step{at: 0, do: func(h *harness) {
		for _, p := range paths {
			h.fs[p] = h.file(p, 100)
		}
	}}
}

func TestAggregator(t *testing.T) {
	a, b, c, tmp := filepath.Join(testRoot, "a.md"), filepath.Join(testRoot, "b.md"), filepath.Join(testRoot, "c.md"), filepath.Join(testRoot, ".a.md.tmp")
	every := func(from, to, gap time.Duration, do func(h *harness, i int)) []step {
		var s []step
		for i, at := 0, from; at <= to; i, at = i+1, at+gap {
			s = append(s, step{at, func(h *harness) { do(h, i) }})
		}
		return s
	}
	cases := []struct {
		name  string
		steps []step
		want  []wantBatch
	}{
		{
			name:  "a new file is handed on after the quiet window",
			steps: []step{{0, func(h *harness) { h.create(a, 10) }}},
			want:  []wantBatch{{at: d(1), changed: []string{a}}},
		},
		{
			name: "each event restarts the window",
			steps: []step{
				{0, func(h *harness) { h.create(a, 10) }},
				{d(0.5), func(h *harness) { h.write(a, 20) }},
				{d(1.0), func(h *harness) { h.write(a, 30) }},
				{d(1.5), func(h *harness) { h.write(a, 40) }},
			},
			want: []wantBatch{{at: d(2.5), changed: []string{a}}},
		},
		{
			name:  "a file that never settles is handed on at the hard cap, and again after",
			steps: every(0, d(25), d(0.5), func(h *harness, i int) { h.write(a, int64(i)) }),
			want: []wantBatch{
				{at: d(10), changed: []string{a}},
				{at: d(20), changed: []string{a}},
				{at: d(26), changed: []string{a}}, // quiet after the last write at 25
			},
		},
		{
			name: "a size change without an event restarts the window",
			steps: []step{
				{0, func(h *harness) { h.create(a, 10) }},
				{d(0.9), func(h *harness) { h.fs[a] = h.file(a, 20) }},
			},
			want: []wantBatch{{at: d(2), changed: []string{a}}},
		},
		{
			name: "an mtime change without an event restarts the window",
			steps: []step{
				{0, func(h *harness) { h.create(a, 10) }},
				{d(0.9), func(h *harness) { h.fs[a] = h.file(a, 10) }},
			},
			want: []wantBatch{{at: d(2), changed: []string{a}}},
		},
		{
			name: "an atomic save is one change of the target and nothing for the temporary file",
			steps: []step{
				existing(a),
				{d(0.1), func(h *harness) { h.create(tmp, 0) }},
				{d(0.1), func(h *harness) { h.write(tmp, 50) }},
				{d(0.2), func(h *harness) { h.rename(tmp, a) }},
			},
			want: []wantBatch{{at: d(1.2), changed: []string{a}}},
		},
		{
			name: "a delete and a create arrive in one batch",
			steps: []step{
				existing(a),
				{0, func(h *harness) { h.remove(a) }},
				{d(0.3), func(h *harness) { h.create(b, 100) }},
			},
			want: []wantBatch{{at: d(1.3), changed: []string{b}, removed: []string{a}}},
		},
		{
			name: "a rename within the tree is a removal and a change",
			steps: []step{
				existing(a),
				{0, func(h *harness) { h.rename(a, b) }},
			},
			want: []wantBatch{{at: d(1), changed: []string{b}, removed: []string{a}}},
		},
		{
			name: "a rename out of the tree is a removal",
			steps: []step{
				existing(a),
				{0, func(h *harness) { delete(h.fs, a); h.agg.add(a, evGone) }},
			},
			want: []wantBatch{{at: d(1), removed: []string{a}}},
		},
		{
			name: "a removal waits for the copy it pairs with",
			steps: append([]step{
				existing(a),
				{d(0.2), func(h *harness) { h.remove(a) }},
			}, every(0, d(5), d(0.5), func(h *harness, i int) { h.write(b, int64(i*100)) })...),
			want: []wantBatch{{at: d(6), changed: []string{b}, removed: []string{a}}},
		},
		{
			name: "a removal is not held past the hard cap",
			steps: append(append([]step{
				existing(a),
				{d(1), func(h *harness) { h.remove(a) }},
			}, every(d(0.5), d(12), d(0.5), func(h *harness, i int) { h.write(b, int64(i*100)) })...),
				every(d(5), d(12), d(0.5), func(h *harness, i int) { h.write(c, int64(i*100)) })...),
			want: []wantBatch{
				{at: d(10.5), changed: []string{b}}, // due; c is still being written
				{at: d(11), removed: []string{a}},   // due, although c still is
				{at: d(13), changed: []string{b, c}},
			},
		},
		{
			name: "a file that appears and goes within the window leaves no trace",
			steps: []step{
				{0, func(h *harness) { h.create(a, 10) }},
				{d(0.5), func(h *harness) { h.remove(a) }},
			},
			want: nil,
		},
		{
			name: "an existing file written then deleted is removed",
			steps: []step{
				existing(a),
				{0, func(h *harness) { h.write(a, 10) }},
				{d(0.5), func(h *harness) { h.remove(a) }},
			},
			want: []wantBatch{{at: d(1.5), removed: []string{a}}},
		},
		{
			name: "a file deleted and created again is changed",
			steps: []step{
				existing(a),
				{0, func(h *harness) { h.remove(a) }},
				{d(0.5), func(h *harness) { h.create(a, 10) }},
			},
			want: []wantBatch{{at: d(1.5), changed: []string{a}}},
		},
		{
			name: "a long writer does not hold up other files",
			steps: append([]step{
				{d(2), func(h *harness) { h.create(b, 10) }},
			}, every(0, d(8), d(0.2), func(h *harness, i int) { h.write(a, int64(i)) })...),
			want: []wantBatch{
				{at: d(3), changed: []string{b}},
				{at: d(9), changed: []string{a}},
			},
		},
		{
			name: "a rescan on a quiet library goes out at once",
			steps: []step{
				{d(3), func(h *harness) { h.agg.requestRescan("initial scan") }},
			},
			want: []wantBatch{{at: d(3), rescan: "initial scan"}},
		},
		{
			name: "a rescan waits for a burst to calm down and absorbs it",
			steps: append([]step{
				{d(1), func(h *harness) { h.agg.requestRescan("overflow") }},
			}, every(0, d(5), d(0.5), func(h *harness, i int) { h.create(filepath.Join(testRoot, fmt.Sprintf("f%02d", i)), 1) })...),
			want: []wantBatch{{at: d(6), rescan: "overflow"}},
		},
		{
			name: "a rescan during an endless burst goes out at the hard cap",
			steps: append([]step{
				{d(1), func(h *harness) { h.agg.requestRescan("overflow") }},
			}, every(0, d(14), d(0.5), func(h *harness, i int) { h.create(filepath.Join(testRoot, fmt.Sprintf("f%02d", i)), 1) })...),
			want: []wantBatch{
				{at: testMaxDelay, rescan: "overflow"},
				{at: d(15), changed: func() []string {
					var s []string
					for i := 19; i <= 28; i++ {
						s = append(s, filepath.Join(testRoot, fmt.Sprintf("f%02d", i)))
					}
					return s
				}()},
			},
		},
		{
			name: "removals under a missing root become a rescan",
			steps: []step{
				existing(a, b),
				{0, func(h *harness) { h.remove(a); h.remove(b); h.rootsMissing[testRoot] = true }},
			},
			want: []wantBatch{{at: d(1), rescan: "library folder /lib is missing"}},
		},
		{
			name: "a file replaced by a folder asks for a rescan",
			steps: []step{
				existing(a),
				{0, func(h *harness) { h.remove(a); h.fs[a] = fileState{kind: kindDir}; h.agg.add(a, evCreated) }},
			},
			want: []wantBatch{{at: d(1), rescan: "replaced by a folder"}},
		},
		{
			name: "a file replaced by a symbolic link is removed",
			steps: []step{
				existing(a),
				{0, func(h *harness) { h.remove(a); h.fs[a] = fileState{kind: kindOther}; h.agg.add(a, evCreated) }},
			},
			want: []wantBatch{{at: d(1), removed: []string{a}}},
		},
		{
			name: "a new symbolic link is not reported",
			steps: []step{
				{0, func(h *harness) { h.fs[a] = fileState{kind: kindOther}; h.agg.add(a, evCreated) }},
			},
			want: nil,
		},
		{
			name: "a path that cannot be examined is handed on for the caller to report",
			steps: []step{
				{0, func(h *harness) { h.fs[a] = fileState{kind: kindUnknown}; h.agg.add(a, evCreated) }},
			},
			want: []wantBatch{{at: d(1), changed: []string{a}}},
		},
		{
			// The file still looks present (a look racing the removal), but
			// a batch never lists a change below a removed folder.
			name: "files below a folder that is gone are not reported as changed",
			steps: []step{
				existing(filepath.Join(testRoot, "d", "x")),
				{0, func(h *harness) {
					h.fs[filepath.Join(testRoot, "d")] = fileState{kind: kindDir}
					h.write(filepath.Join(testRoot, "d", "x"), 5)
				}},
				{d(0.5), func(h *harness) { h.remove(filepath.Join(testRoot, "d")) }},
			},
			want: []wantBatch{{at: d(1.5), removed: []string{filepath.Join(testRoot, "d")}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			steps := slices.Clone(tc.steps)
			slices.SortStableFunc(steps, func(x, y step) int { return int(x.at - y.at) })
			for _, s := range steps {
				h.advanceTo(s.at)
				s.do(h)
			}
			h.advanceTo(h.now() + 3*testMaxDelay)
			if h.agg.len() != 0 {
				t.Errorf("%d paths still pending at the end", h.agg.len())
			}
			ok := len(h.got) == len(tc.want)
			for i := 0; ok && i < len(tc.want); i++ {
				ok = tc.want[i].matches(h.got[i])
			}
			if !ok {
				t.Errorf("got %d batches:\n%s\nwant %d:\n%+v", len(h.got), joinGot(h.got), len(tc.want), tc.want)
			}
		})
	}
}

func joinGot(g []gotBatch) string {
	var s []string
	for _, b := range g {
		s = append(s, "  "+b.String())
	}
	return strings.Join(s, "\n")
}

// A burst of new files (a folder copied in, an archive unpacked) lands in
// one batch, and the aggregator wakes only a few times for it.
func TestAggregatorBurstIsOneBatch(t *testing.T) {
	h := newHarness(t)
	var want []string
	for i := range 200 {
		h.advanceTo(time.Duration(i) * d(0.005))
		p := filepath.Join(testRoot, fmt.Sprintf("book-%03d.pdf", i))
		want = append(want, p)
		h.create(p, 1000)
		h.write(p, 2000)
	}
	flushes := 0
	for {
		next, ok := h.agg.deadline()
		if !ok {
			break
		}
		flushes++
		h.clk.Set(next)
		if b, ok := h.agg.flush(); ok {
			h.got = append(h.got, gotBatch{h.now(), b})
		}
	}
	if len(h.got) != 1 || !slices.Equal(h.got[0].b.Changed, want) {
		t.Fatalf("want one batch of 200 files, got %d batches:\n%s", len(h.got), joinGot(h.got))
	}
	if at := h.got[0].at; at != d(0.005*199+1) {
		t.Errorf("batch at %v, want one window after the last file", at)
	}
	if flushes > 3 {
		t.Errorf("%d flushes for one burst; want the aggregator to wait for the newest file", flushes)
	}
}

// The files a scan of a new folder finds are reported like created files.
func TestAggregatorScanResults(t *testing.T) {
	h := newHarness(t)
	files := []string{filepath.Join(testRoot, "new", "a.md"), filepath.Join(testRoot, "new", "sub", "b.pdf"), filepath.Join(testRoot, "new", "sub", "c.epub")}
	for _, p := range files {
		h.fs[p] = h.file(p, 10)
		h.agg.add(p, evCreated)
	}
	h.advanceTo(d(5))
	if len(h.got) != 1 || !slices.Equal(h.got[0].b.Changed, files) {
		t.Fatalf("got:\n%s", joinGot(h.got))
	}
}

func TestAggregatorRescanReasonsAreJoined(t *testing.T) {
	h := newHarness(t)
	h.create(filepath.Join(testRoot, "a"), 1)
	if !h.agg.requestRescan("overflow") {
		t.Error("first reason reported as known")
	}
	if h.agg.requestRescan("overflow") {
		t.Error("repeated reason reported as new")
	}
	h.agg.requestRescan("periodic rescan")
	h.advanceTo(d(5))
	if len(h.got) != 1 || h.got[0].b.Reason != "overflow; periodic rescan" {
		t.Fatalf("got:\n%s", joinGot(h.got))
	}
}
