package syncer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/reconcile"
	"github.com/grimoire-search/grimoire/watcher"
)

func setup(t *testing.T) (string, *index.Writer, Options) {
	t.Helper()
	lib := t.TempDir()
	w, err := index.OpenWriter(context.Background(), filepath.Join(t.TempDir(), "g.db"), "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	opts := Options{
		Reconcile: reconcile.Options{Roots: []string{lib}, Formats: ingest.Formats(), RacyWindow: time.Millisecond},
		Ingest:    ingestWith(ingest.Options{Embedder: embed.NewBuiltin()}),
		Watch:     watcher.Options{Debounce: 50 * time.Millisecond, RescanInterval: time.Hour},
	}
	return lib, w, opts
}

// ingestWith is an Ingest of the options o, as the application builds it.
func ingestWith(o ingest.Options) Ingest {
	return func(ctx context.Context, w *index.Writer, r Round) (ingest.Result, error) {
		o.Settle, o.Progress = r.Settle, r.Progress
		return ingest.Run(ctx, w, o)
	}
}

// hearIngest has f hear the progress of opts' ingest rounds too.
func hearIngest(opts *Options, f func(ingest.Progress)) {
	inner := opts.Ingest
	opts.Ingest = func(ctx context.Context, w *index.Writer, r Round) (ingest.Result, error) {
		loop := r.Progress
		r.Progress = func(p ingest.Progress) {
			if loop != nil {
				loop(p)
			}
			f(p)
		}
		return inner(ctx, w, r)
	}
}

func TestSyncRecordsTheRun(t *testing.T) {
	lib, w, opts := setup(t)
	os.WriteFile(filepath.Join(lib, "a.md"), []byte("# A\n\nalpha beta\n"), 0o644)
	os.WriteFile(filepath.Join(lib, "b.txt"), []byte("gamma delta\n"), 0o644)
	run, err := Sync(context.Background(), w, opts, "sync", nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.New != 2 || run.Ingested != 2 || run.Finished.Before(run.Started) {
		t.Errorf("run %+v", run)
	}
	last, err := w.LastRun(context.Background())
	if err != nil || last == nil || last.Ingested != 2 || last.Kind != "sync" {
		t.Errorf("recorded run %+v, %v", last, err)
	}
}

func TestInterruptedSyncIsRecorded(t *testing.T) {
	lib, w, opts := setup(t)
	for _, n := range []string{"a", "b", "c"} {
		os.WriteFile(filepath.Join(lib, n+".md"), []byte("# "+n+"\n\nalpha\n"), 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Interrupted as ingest starts: the reconcile's work is done.
	hearIngest(&opts, func(ingest.Progress) { cancel() })
	if _, err := Sync(ctx, w, opts, "sync", nil); err == nil {
		t.Fatal("an interrupted sync reported success")
	}
	last, err := w.LastRun(context.Background())
	if err != nil || last == nil || last.New != 3 {
		t.Fatalf("the interrupted run was not recorded: %+v, %v", last, err)
	}
}

func TestWatchPicksUpAFileAndStops(t *testing.T) {
	lib, w, opts := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Watch(ctx, w, opts) }()
	deadline := time.Now().Add(20 * time.Second)
	wrote := false
	for time.Now().Before(deadline) {
		s, err := w.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if s.LastRun != nil && !wrote {
			// The initial scan is done: drop a book in.
			os.WriteFile(filepath.Join(lib, "new.md"), []byte("# New\n\nfresh words\n"), 0o644)
			wrote = true
		}
		if s.Ready == 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s, _ := w.Status(context.Background()); s.Ready != 1 {
		t.Fatalf("the new book was not ingested: %+v", s)
	}
	if ws, err := w.WatchState(context.Background()); err != nil || ws == nil || ws.LastFullScan.IsZero() {
		t.Errorf("watch state %+v, %v", ws, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return after cancel")
	}
	if ws, _ := w.WatchState(context.Background()); ws != nil {
		t.Errorf("watch state left behind: %+v", ws)
	}
}

// TestWatchStopsWhenTakenOver: once another writer has taken the index
// over (its record replaced this one's) while a book is ingested, watch
// ends with the reason instead of waiting for the next change to fail again.
func TestWatchStopsWhenTakenOver(t *testing.T) {
	lib, w, opts := setup(t)
	os.WriteFile(filepath.Join(lib, "a.md"), []byte("# A\n\nalpha beta\n"), 0o644)
	var once sync.Once
	hearIngest(&opts, func(ingest.Progress) {
		once.Do(func() {
			// What a writer on another host leaves when it takes over.
			if err := w.SetMeta(context.Background(), "writer", `{"pid":1,"command":"grimoire sync","host":"elsewhere","token":"theirs"}`); err != nil {
				t.Error(err)
			}
		})
	})
	done := make(chan error, 1)
	go func() { done <- Watch(context.Background(), w, opts) }()
	select {
	case err := <-done:
		if !errors.Is(err, index.ErrWriterReplaced) {
			t.Fatalf("watch ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch went on after it was taken over")
	}
}

func TestSyncKeepsFeatureStatistics(t *testing.T) {
	ctx := context.Background()
	lib, w, opts := setup(t)
	version := func() (index.FeatureStats, bool) {
		st, ok, err := w.FeatureStatsHeader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st, ok
	}
	if _, err := Sync(ctx, w, opts, "sync", nil); err != nil {
		t.Fatal(err)
	}
	if st, ok := version(); !ok || st.Chunks != 0 {
		t.Fatalf("an empty library's statistics: %+v %v", st, ok)
	}
	for i := range 20 {
		os.WriteFile(filepath.Join(lib, fmt.Sprintf("%02d.md", i)), []byte(fmt.Sprintf("# Book %d\n\nalpha beta %d\n", i, i)), 0o644)
	}
	if _, err := Sync(ctx, w, opts, "sync", nil); err != nil {
		t.Fatal(err)
	}
	first, _ := version()
	if first.Chunks != 20 || first.Docs != 20 {
		t.Fatalf("after 20 books: %+v", first)
	}
	// One book more is 5 %: the statistics stand.
	os.WriteFile(filepath.Join(lib, "20.md"), []byte("# Book 20\n\nalpha\n"), 0o644)
	if _, err := Sync(ctx, w, opts, "sync", nil); err != nil {
		t.Fatal(err)
	}
	if st, _ := version(); st.Version != first.Version {
		t.Errorf("redrawn after 5 %% growth: %+v", st)
	}
	// Half of them gone: drawn again.
	for i := range 10 {
		os.Remove(filepath.Join(lib, fmt.Sprintf("%02d.md", i)))
	}
	os.WriteFile(filepath.Join(lib, "21.md"), []byte("# Book 21\n\ngamma\n"), 0o644)
	if _, err := Sync(ctx, w, opts, "sync", nil); err != nil {
		t.Fatal(err)
	}
	if st, _ := version(); st.Version == first.Version || st.Chunks != 12 {
		t.Errorf("after removing half: %+v", st)
	}
}

func TestRetrierBacksOff(t *testing.T) {
	r := newRetrier(time.Second, 5*time.Second)
	defer r.stop()
	if r.pending() || r.due() != nil {
		t.Fatal("a fresh retrier has something due")
	}
	var delays []time.Duration
	for range 5 {
		r.failed()
		delays = append(delays, r.delay)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if fmt.Sprint(delays) != fmt.Sprint(want) {
		t.Errorf("delays %v, want %v", delays, want)
	}
	r.passed()
	if r.pending() || r.due() != nil {
		t.Error("retries still due after a pass")
	}
	r.failed()
	if r.delay != time.Second {
		t.Errorf("after a pass the delay starts again at %v, want 1s", r.delay)
	}
}
