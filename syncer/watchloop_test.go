package syncer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest"
)

// TestIngestRoundsReachTheRun: a book the watcher picks up is counted, with
// its ingest, in the run of the batch that found it.
func TestIngestRoundsReachTheRun(t *testing.T) {
	lib, w, opts := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Watch(ctx, w, opts) }()
	deadline := time.Now().Add(20 * time.Second)
	wrote := false
	for time.Now().Before(deadline) {
		last, err := w.LastRun(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if last != nil && !wrote {
			os.WriteFile(filepath.Join(lib, "new.md"), []byte("# New\n\nfresh words\n"), 0o644)
			wrote = true
		}
		if last != nil && last.Ingested == 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	last, err := w.LastRun(context.Background())
	if err != nil || last == nil || last.Kind != "watch" || last.New != 1 || last.Ingested != 1 {
		t.Errorf("last run %+v, %v; want the watch batch's, with the book new and ingested", last, err)
	}
}

// TestIngesterFoldsRoundsNotTaken: rounds the loop has not taken yet reach
// it as one, with every result and the latest outcome.
func TestIngesterFoldsRoundsNotTaken(t *testing.T) {
	in := newIngester(nil, ingest.Options{}, nil)
	in.report(ingestRound{results: []ingest.Result{{Ingested: 1}}, err: errors.New("model server down")})
	in.report(ingestRound{results: []ingest.Result{{Ingested: 2, Failed: 1}}})
	r := <-in.rounds
	if len(r.results) != 2 || r.results[0].Ingested != 1 || r.results[1].Ingested != 2 || r.err != nil {
		t.Errorf("folded round %+v", r)
	}
	select {
	case r := <-in.rounds:
		t.Errorf("a second round waiting: %+v", r)
	default:
	}
}
