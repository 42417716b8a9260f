package syncer

import (
	"context"
	"errors"
	"testing"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/library"
)

// TestWatchLoopCreditsIngestRounds: what the ingester did is added to the
// run of the latest batch and recorded with it.
func TestWatchLoopCreditsIngestRounds(t *testing.T) {
	ctx := context.Background()
	_, w, opts := setup(t)
	l := newWatchLoop(w, opts, nil)
	defer l.retry.stop()
	rec, err := startRecord(ctx, w, "watch")
	if err != nil {
		t.Fatal(err)
	}
	l.current = rec
	l.ing.report(ingestRound{results: []ingest.Result{{Ingested: 1}}})
	l.ing.report(ingestRound{results: []ingest.Result{{Ingested: 2, Failed: 1, Failures: []library.Failure{{Path: "b.pdf", Error: "damaged"}}}}})
	if stop, err := l.ingested(ctx, <-l.ing.rounds); stop || err != nil {
		t.Fatalf("the loop stopped on passing rounds: %v", err)
	}
	last, err := w.LastRun(ctx)
	if err != nil || last == nil || last.Kind != "watch" || last.Ingested != 3 || last.Failed != 1 || len(last.Failures) != 1 {
		t.Errorf("recorded run %+v, %v", last, err)
	}
}

// TestWatchLoopActsOnIngestOutcome: a failed round is retried, a passing
// one ends the retries, a takeover ends the watch.
func TestWatchLoopActsOnIngestOutcome(t *testing.T) {
	tests := []struct {
		name    string
		failing bool // a retry is pending before the round
		done    bool // the watch's context is done
		err     error
		// stop: the round ends the watch, with stopErr.
		stop        bool
		stopErr     error
		pendingThen bool
	}{
		{name: "a passing round", err: nil},
		{name: "a passing round ends the retries", failing: true},
		{name: "a failed round is retried", err: errors.New("model server down"), pendingThen: true},
		{name: "a takeover ends the watch", err: index.ErrWriterReplaced, stop: true, stopErr: index.ErrWriterReplaced},
		{name: "a round once the watch is done ends it quietly", done: true, err: context.Canceled, stop: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, w, opts := setup(t)
			l := newWatchLoop(w, opts, nil)
			defer l.retry.stop()
			if tc.failing {
				l.retry.failed()
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.done {
				cancel()
			}
			stop, err := l.ingested(ctx, ingestRound{err: tc.err})
			if stop != tc.stop || !errors.Is(err, tc.stopErr) || tc.stopErr == nil && err != nil {
				t.Errorf("stop %v with %v, want %v with %v", stop, err, tc.stop, tc.stopErr)
			}
			if !tc.stop && l.retry.pending() != tc.pendingThen {
				t.Errorf("retry pending %v, want %v", l.retry.pending(), tc.pendingThen)
			}
		})
	}
}

// TestIngesterFoldsRoundsNotTaken: rounds the loop has not taken yet reach
// it as one, with every result and the latest outcome.
func TestIngesterFoldsRoundsNotTaken(t *testing.T) {
	in := newIngester(nil, nil, 0, nil)
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
