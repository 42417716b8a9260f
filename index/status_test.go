package index

import (
	"context"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/library"
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

// TestProgress: pending and parsed books are still being indexed, ready
// ones are counted only then, and failed ones are in neither count.
func TestProgress(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	h, _ := put(t, w, "/lib/ready.txt", "ready", library.Hash{})
	ingestFake(t, w, h, "Ready", "a ready book")
	// Nothing being indexed: nothing counted.
	if got, err := w.Progress(ctx); err != nil || got != (Progress{}) {
		t.Errorf("every book ready: progress %+v, %v; want none", got, err)
	}
	put(t, w, "/lib/pending.txt", "pending", library.Hash{})
	parsed, _ := put(t, w, "/lib/parsed.txt", "parsed", library.Hash{})
	failed, _ := put(t, w, "/lib/failed.txt", "failed", library.Hash{})
	books, err := w.BooksToIngest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range books {
		switch b.Hash {
		case parsed:
			ch := []library.Chapter{{Index: 0, Title: "One", Sections: []library.Section{{Index: 0, Title: "One", Text: "text", ChunkCount: 1}}}}
			if err := w.StoreParsed(ctx, b.ID, BookMeta{Title: "Parsed", SourceType: "text"}, ch, []library.Chunk{{Index: 0, Heading: "One", Text: "text"}}); err != nil {
				t.Fatal(err)
			}
		case failed:
			if _, err := w.MarkFailed(ctx, b.ID, "unreadable"); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := w.Progress(ctx)
	if want := (Progress{Ready: 1, Indexing: 2}); err != nil || got != want {
		t.Errorf("progress %+v, %v; want %+v", got, err, want)
	}
	// Books waiting for tesseract are in neither count: a pending book of
	// scans, and a ready book stored without its scans.
	scans, _ := put(t, w, "/lib/scans.pdf", "scans", library.Hash{})
	if err := w.NeedOCR(ctx, scans, 3, "tesseract is not installed"); err != nil {
		t.Fatal(err)
	}
	if err := w.NeedOCR(ctx, h, 2, "tesseract is not installed"); err != nil {
		t.Fatal(err)
	}
	got, err = w.Progress(ctx)
	if want := (Progress{Ready: 1, Indexing: 2}); err != nil || got != want {
		t.Errorf("with books waiting for OCR: progress %+v, %v; want %+v", got, err, want)
	}
}
