package index

import (
	"context"
	"testing"
	"time"
)

// TestWatchStateRoundTrip: what a watcher publishes is what status reads,
// until the watcher clears it.
func TestWatchStateRoundTrip(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	if got, err := w.WatchState(ctx); err != nil || got != nil {
		t.Fatalf("before any watcher: %+v, %v", got, err)
	}
	started := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	want := WatchState{PID: 42, Started: started, Updated: started.Add(time.Minute), Queue: 3,
		Ingesting: "Moby Dick", Watched: 7, Degraded: "polling"}
	if err := w.PublishWatchState(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := w.WatchState(ctx)
	if err != nil || got == nil || *got != want {
		t.Fatalf("published %+v, read %+v, %v", want, got, err)
	}
	if err := w.ClearWatchState(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := w.WatchState(ctx); err != nil || got != nil {
		t.Errorf("after clearing: %+v, %v", got, err)
	}
}
