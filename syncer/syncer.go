// Package syncer keeps the index in step with the library: one-shot sync
// runs (reconcile, then ingest, recorded for status) and the watch loop,
// where the watcher's batches are reconciled while ingest runs beside them.
package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/reconcile"
	"github.com/grimoire-search/grimoire/watcher"
)

// Options configure sync runs and the watch loop.
type Options struct {
	Reconcile reconcile.Options
	Ingest    ingest.Options
	Watch     watcher.Options
	// RetryMin and RetryMax bound the delay before the watch loop tries
	// a failed reconcile or ingest again (a full disk, a model server
	// that is down): it starts at RetryMin and doubles up to RetryMax.
	// Defaults 2 s and 5 min.
	RetryMin, RetryMax time.Duration
	Logger             *slog.Logger
}

func (o Options) log() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// Sync runs one reconcile-and-ingest pass and records it as a run of kind.
// scope limits the reconcile to those paths (nil: every root). A run cut
// short by ctx is still recorded with what it did, and returned with the
// error.
func Sync(ctx context.Context, w *index.Writer, opts Options, kind string, scope []string) (*index.Run, error) {
	run := &index.Run{Kind: kind, Started: time.Now().UTC()}
	id, err := w.StartRun(ctx, kind, run.Started)
	if err != nil {
		return nil, err
	}
	err = reconcileOnce(ctx, w, opts, scope, run)
	if err == nil {
		err = ingestOnce(ctx, w, opts, run)
	}
	run.Finished = time.Now().UTC()
	// Record the run even when interrupted: status should show what happened.
	if ferr := w.FinishRun(context.WithoutCancel(ctx), id, *run); ferr != nil && err == nil {
		err = ferr
	}
	return run, err
}

func reconcileOnce(ctx context.Context, w *index.Writer, opts Options, scope []string, run *index.Run) error {
	log := opts.log()
	var res reconcile.Result
	var err error
	if scope != nil {
		res, err = reconcile.Paths(ctx, w, opts.Reconcile, scope)
	} else {
		res, err = reconcile.Run(ctx, w, opts.Reconcile)
	}
	run.Counters.Add(res.Counters)
	run.Failures = append(run.Failures, res.Failures...)
	run.Holds = append(run.Holds, res.Holds...)
	for _, h := range res.Holds {
		log.Warn("removals held back", "folder", h.Root, "files", h.Files, "reason", h.Reason)
	}
	return err
}

func ingestOnce(ctx context.Context, w *index.Writer, opts Options, run *index.Run) error {
	res, err := ingest.Run(ctx, w, opts.Ingest)
	run.Ingested += res.Ingested
	run.Failed += res.Failed
	run.Pruned += res.Pruned
	run.Failures = append(run.Failures, res.Failures...)
	return err
}

// Watch keeps the index in sync until ctx is done: a full reconcile first,
// then the watcher's batches. Reconcile never waits for ingest: batches are
// reconciled as they come while a separate loop ingests what is pending, so
// a book that changes during its ingest is simply queued again. When ctx is
// done, the batch in progress is abandoned (at most one small transaction
// is lost) and Watch returns nil.
func Watch(ctx context.Context, w *index.Writer, opts Options) error {
	log := opts.log()
	wopts := opts.Watch
	wopts.Logger = log
	if wopts.Ignore == nil {
		formats := opts.Reconcile.Formats
		// Files grimoire does not read are never handed on; that also keeps
		// the index's own writes (an index inside the library) from waking
		// the watcher in a loop.
		wopts.Ignore = func(p string, isDir bool) bool {
			return reconcile.Ignored(baseName(p)) || (!isDir && formats != nil && formats.TypeOf(p) == "")
		}
	}
	wt, err := watcher.New(opts.Reconcile.Roots, wopts)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	st := &stateKeeper{w: w, state: index.WatchState{PID: os.Getpid(), Started: time.Now().UTC()}, wt: wt, log: log}
	var wg sync.WaitGroup
	werr := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		werr <- wt.Run(ctx)
	}()

	// The ingest loop runs whenever poked; pokes while it runs coalesce
	// into one more round. It reports each round's outcome on ingested.
	poke := make(chan struct{}, 1)
	ingested := make(chan error, 1)
	retry := newRetrier(opts.RetryMin, opts.RetryMax)
	defer retry.stop()
	var runMu sync.Mutex
	var current *runRecord
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-poke:
			}
			iopts := opts.Ingest
			userProgress := iopts.Progress
			iopts.Progress = func(p ingest.Progress) {
				st.ingesting(ctx, p.Book)
				if userProgress != nil {
					userProgress(p)
				}
			}
			res, err := ingest.Run(ctx, w, iopts)
			st.ingesting(ctx, "")
			runMu.Lock()
			if current != nil {
				current.run.Ingested += res.Ingested
				current.run.Failed += res.Failed
				current.run.Pruned += res.Pruned
				current.run.Failures = append(current.run.Failures, res.Failures...)
				current.finish(ctx, w)
			}
			runMu.Unlock()
			if ctx.Err() != nil {
				return
			}
			// Only the latest outcome matters to the loop.
			select {
			case <-ingested:
			default:
			}
			ingested <- err
		}
	}()

	// reconciled: the last reconcile passed, so a passing ingest round
	// means the library is in sync again.
	reconciled := true
	fail := func(what string, err error) {
		at := retry.failed()
		log.Error(what+" failed; retrying", "err", err, "at", at.Format(time.TimeOnly))
		st.failing(err, at)
	}
	var loopErr error
	// halts reports whether err ends the loop rather than being retried.
	halts := func(err error) bool {
		if ctx.Err() != nil {
			return true
		}
		if mustStop(err) {
			loopErr = err
			return true
		}
		return false
	}
loop:
	for {
		var b watcher.Batch
		select {
		case <-ctx.Done():
			break loop
		case err := <-werr:
			loopErr = err
			break loop
		case err := <-ingested:
			switch {
			case err != nil && halts(err):
				break loop
			case err != nil:
				fail("ingest", err)
			case reconciled && retry.pending():
				retry.passed()
				log.Info("the watcher is in sync again")
				st.failing(nil, time.Time{})
			}
			continue
		case <-retry.due():
			// A failed batch's changes are lost with it: look at
			// everything again.
			b = watcher.Batch{Rescan: true, Reason: "retry after an error"}
		case nb, ok := <-wt.Batches():
			if !ok {
				break loop
			}
			b = nb
		}
		kind := "watch"
		var scope []string
		if b.Rescan {
			kind, scope = "rescan", nil
		} else {
			scope = append(append(scope, b.Changed...), b.Removed...)
		}
		rec, err := startRecord(ctx, w, kind)
		if err != nil {
			if halts(err) {
				break loop
			}
			reconciled = false
			fail("recording the run", err)
			continue
		}
		err = reconcileOnce(ctx, w, opts, scope, rec.run)
		reconciled = err == nil
		if err != nil {
			if halts(err) {
				break loop
			}
			fail("reconcile", err)
			rec.run.Failures = append(rec.run.Failures, index.Failure{Path: "", Error: err.Error()})
		}
		if b.Rescan {
			st.fullScan(ctx)
		}
		runMu.Lock()
		if current != nil {
			current.finish(ctx, w)
		}
		current = rec
		runMu.Unlock()
		st.publish(ctx)
		select {
		case poke <- struct{}{}:
		default:
		}
	}
	cancel()
	wg.Wait()
	runMu.Lock()
	if current != nil {
		current.finish(ctx, w)
	}
	runMu.Unlock()
	st.clear()
	if errors.Is(loopErr, context.Canceled) {
		return nil
	}
	return loopErr
}

// mustStop reports whether an error ends the watch rather than being
// retried: another writer took the index over, or it is damaged.
func mustStop(err error) bool {
	return errors.Is(err, index.ErrWriterReplaced) || index.CodeOf(err) == index.Damaged
}

// runRecord is a watch run: one batch's reconcile and the ingest that
// followed it, until the next batch.
type runRecord struct {
	id  int64
	run *index.Run
}

func startRecord(ctx context.Context, w *index.Writer, kind string) (*runRecord, error) {
	r := &runRecord{run: &index.Run{Kind: kind, Started: time.Now().UTC()}}
	id, err := w.StartRun(ctx, kind, r.run.Started)
	if err != nil {
		return nil, err
	}
	r.id = id
	return r, nil
}

// finish records the run (again, with what ingest added since).
func (r *runRecord) finish(ctx context.Context, w *index.Writer) {
	r.run.Finished = time.Now().UTC()
	w.FinishRun(context.WithoutCancel(ctx), r.id, *r.run)
}

// retrier schedules the retries of a failing watch loop with a delay that
// doubles from min up to max.
type retrier struct {
	min, max time.Duration
	delay    time.Duration // 0 while nothing fails
	timer    *time.Timer
}

func newRetrier(lo, hi time.Duration) *retrier {
	if lo <= 0 {
		lo = 2 * time.Second
	}
	if hi <= 0 {
		hi = 5 * time.Minute
	}
	return &retrier{min: lo, max: max(lo, hi)}
}

// failed schedules the next retry and returns when it is due.
func (r *retrier) failed() time.Time {
	if r.delay == 0 {
		r.delay = r.min
	} else {
		r.delay = min(2*r.delay, r.max)
	}
	if r.timer == nil {
		r.timer = time.NewTimer(r.delay)
	} else {
		r.timer.Reset(r.delay)
	}
	return time.Now().Add(r.delay)
}

// pending reports whether something failed and has not passed since.
func (r *retrier) pending() bool { return r.delay > 0 }

// passed ends the retries.
func (r *retrier) passed() {
	r.delay = 0
	if r.timer != nil {
		r.timer.Stop()
	}
}

// due fires when a retry is due; nil (never) while nothing fails.
func (r *retrier) due() <-chan time.Time {
	if r.delay == 0 || r.timer == nil {
		return nil
	}
	return r.timer.C
}

func (r *retrier) stop() {
	if r.timer != nil {
		r.timer.Stop()
	}
}

// stateKeeper publishes WatchState into the index, at most every second
// for progress updates.
type stateKeeper struct {
	w   *index.Writer
	wt  *watcher.Watcher
	log *slog.Logger

	mu        sync.Mutex
	state     index.WatchState
	published time.Time
}

func (s *stateKeeper) ingesting(ctx context.Context, book string) {
	s.mu.Lock()
	changed := s.state.Ingesting != book
	s.state.Ingesting = book
	due := changed && (book == "" || time.Since(s.published) > time.Second)
	s.mu.Unlock()
	if due {
		s.publish(ctx)
	}
}

// failing shows status the error the loop is retrying (nil: none), at
// once: it must show while it lasts, even when the index cannot take a
// write.
func (s *stateKeeper) failing(err error, retryAt time.Time) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if rerr := s.w.ReportTrouble(msg, retryAt); rerr != nil {
		s.log.Warn("cannot tell status about the error", "err", rerr)
	}
}

func (s *stateKeeper) fullScan(ctx context.Context) {
	s.mu.Lock()
	s.state.LastFullScan = time.Now().UTC()
	s.mu.Unlock()
}

func (s *stateKeeper) publish(ctx context.Context) {
	stats := s.wt.Stats()
	s.mu.Lock()
	s.state.Queue = stats.Pending + stats.Queued
	s.state.Watched = stats.Watched
	s.state.Degraded = stats.Degraded
	s.state.Updated = time.Now().UTC()
	s.published = s.state.Updated
	b, _ := json.Marshal(s.state)
	s.mu.Unlock()
	if ctx.Err() == nil {
		s.w.SetMeta(ctx, index.WatchStateKey, string(b))
	}
}

// clear removes the state on a clean exit, so status does not show a
// watcher that is gone.
func (s *stateKeeper) clear() {
	s.w.SetMeta(context.Background(), index.WatchStateKey, "")
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if os.IsPathSeparator(p[i]) {
			return p[i+1:]
		}
	}
	return p
}
