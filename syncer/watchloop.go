package syncer

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/watcher"
)

// watchLoop is the main loop of Watch. It alone owns the run record, the
// retries and the trouble report: the watcher hands it batches and the
// ingester hands it rounds, over channels, and only its goroutine reads
// or writes its fields.
type watchLoop struct {
	w     *index.Writer
	opts  Options
	log   *slog.Logger
	wt    *watcher.Watcher
	st    *stateKeeper
	ing   *ingester
	retry *retrier
	// current is the run of the latest batch: the ingest rounds that come
	// after it are added to it until the next batch.
	current *runRecord
	// reconciled: the last reconcile passed, so a passing ingest round
	// means the library is in sync again.
	reconciled bool
}

func newWatchLoop(w *index.Writer, opts Options, wt *watcher.Watcher) *watchLoop {
	log := opts.log()
	st := &stateKeeper{w: w, state: index.WatchState{PID: os.Getpid(), Started: time.Now().UTC()}, wt: wt, log: log}
	return &watchLoop{
		w: w, opts: opts, log: log, wt: wt, st: st,
		ing:        newIngester(w, opts.Ingest, st),
		retry:      newRetrier(opts.RetryMin, opts.RetryMax),
		reconciled: true,
	}
}

// run handles batches, retries and ingest rounds until ctx is done, the
// watcher stops, or an error ends the watch. It returns that error, nil
// when ctx is done.
func (l *watchLoop) run(ctx context.Context, werr <-chan error) error {
	for {
		var b watcher.Batch
		select {
		case <-ctx.Done():
			return nil
		case err := <-werr:
			return err
		case r := <-l.ing.rounds:
			if stop, err := l.ingested(ctx, r); stop {
				return err
			}
			continue
		case <-l.retry.due():
			// A failed batch's changes are lost with it: look at
			// everything again.
			b = watcher.Batch{Rescan: true, Reason: "retry after an error"}
		case nb, ok := <-l.wt.Batches():
			if !ok {
				return nil
			}
			b = nb
		}
		if stop, err := l.reconcile(ctx, b); stop {
			return err
		}
	}
}

// ingested adds an ingest round to the current run and acts on how it
// went: a failure is retried, a pass after failures ends the trouble.
func (l *watchLoop) ingested(ctx context.Context, r ingestRound) (stop bool, err error) {
	l.credit(ctx, r)
	if ctx.Err() != nil {
		return true, nil
	}
	switch {
	case r.err != nil:
		if stop, err := halts(ctx, r.err); stop {
			return true, err
		}
		l.fail("ingest", r.err)
	case l.reconciled && l.retry.pending():
		l.retry.passed()
		l.log.Info("the watcher is in sync again")
		l.st.failing(nil, time.Time{})
	}
	return false, nil
}

// credit adds what an ingest round did to the current run, and records it.
func (l *watchLoop) credit(ctx context.Context, r ingestRound) {
	if l.current == nil {
		return
	}
	for _, res := range r.results {
		addIngest(l.current.run, res)
	}
	l.current.finish(ctx, l.w, l.log)
}

// reconcile reconciles one batch as a run of its own, then has the
// ingester take up what it queued.
func (l *watchLoop) reconcile(ctx context.Context, b watcher.Batch) (stop bool, err error) {
	kind := "watch"
	var scope []string
	if b.Rescan {
		kind, scope = "rescan", nil
	} else {
		scope = append(append(scope, b.Changed...), b.Removed...)
	}
	rec, err := startRecord(ctx, l.w, kind)
	if err != nil {
		if stop, err := halts(ctx, err); stop {
			return true, err
		}
		l.reconciled = false
		l.fail("recording the run", err)
		return false, nil
	}
	err = reconcileOnce(ctx, l.w, l.opts, scope, rec.run)
	l.reconciled = err == nil
	if err != nil {
		if stop, err := halts(ctx, err); stop {
			return true, err
		}
		l.fail("reconcile", err)
		rec.run.Failures = append(rec.run.Failures, index.Failure{Path: "", Error: err.Error()})
	}
	if b.Rescan {
		l.st.fullScan()
	}
	if l.current != nil {
		l.current.finish(ctx, l.w, l.log)
	}
	l.current = rec
	l.st.publish(ctx)
	l.ing.poke()
	return false, nil
}

// fail schedules a retry and tells status about the error at once.
func (l *watchLoop) fail(what string, err error) {
	at := l.retry.failed()
	l.log.Error(what+" failed; retrying", "err", err, "at", at.Format(time.TimeOnly))
	l.st.failing(err, at)
}

// close ends the watch once the ingester has stopped: the last round goes
// to the current run, which is recorded a last time, and the watch state
// is cleared.
func (l *watchLoop) close(ctx context.Context) {
	select {
	case r := <-l.ing.rounds:
		l.credit(ctx, r)
	default:
	}
	if l.current != nil {
		l.current.finish(ctx, l.w, l.log)
	}
	l.st.clear()
}

// halts reports whether err ends the watch rather than being retried, and
// the error it ends with: none when ctx is done.
func halts(ctx context.Context, err error) (bool, error) {
	if ctx.Err() != nil {
		return true, nil
	}
	if mustStop(err) {
		return true, err
	}
	return false, nil
}

// ingester runs ingest rounds whenever poked; pokes while a round runs
// coalesce into one more round. It touches no run record: it reports each
// round on rounds, for the watch loop to add to its run.
type ingester struct {
	w      *index.Writer
	opts   ingest.Options
	st     *stateKeeper
	pokes  chan struct{}
	rounds chan ingestRound
}

// ingestRound is what one or more ingest rounds did that the watch loop
// has not taken yet.
type ingestRound struct {
	results []ingest.Result
	// err is how the latest round ended: only the latest outcome matters
	// to the loop.
	err error
}

func newIngester(w *index.Writer, opts ingest.Options, st *stateKeeper) *ingester {
	return &ingester{w: w, opts: opts, st: st, pokes: make(chan struct{}, 1), rounds: make(chan ingestRound, 1)}
}

// poke asks for one more round; it never waits.
func (in *ingester) poke() {
	select {
	case in.pokes <- struct{}{}:
	default:
	}
}

// run ingests a round per poke until ctx is done.
func (in *ingester) run(ctx context.Context) {
	opts := in.opts
	userProgress := opts.Progress
	opts.Progress = func(p ingest.Progress) {
		in.st.ingesting(ctx, p.Book)
		if userProgress != nil {
			userProgress(p)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-in.pokes:
		}
		res, err := ingest.Run(ctx, in.w, opts)
		in.st.ingesting(ctx, "")
		in.report(ingestRound{results: []ingest.Result{res}, err: err})
		if ctx.Err() != nil {
			return
		}
	}
}

// report hands a round to the loop without waiting. A round the loop has
// not taken yet is folded into this one, so no result is lost. The
// ingester is the only sender, so once it has emptied the channel its
// send cannot block.
func (in *ingester) report(r ingestRound) {
	select {
	case older := <-in.rounds:
		r.results = append(older.results, r.results...)
	default:
	}
	in.rounds <- r
}
