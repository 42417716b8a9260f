// Package syncer keeps the index in step with the library: one-shot sync
// runs (reconcile, then ingest, recorded for status) and the watch loop,
// where the watcher's batches are reconciled while ingest runs beside them.
package syncer

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/reconcile"
	"github.com/grimoire-search/grimoire/watcher"
)

// Options configure sync runs and the watch loop.
type Options struct {
	Reconcile reconcile.Options
	// Ingest runs an ingest round with the writer's model, parsers and
	// chunking, which its owner configured (and may switch between
	// rounds: see Request).
	Ingest Ingest
	Watch  watcher.Options
	// RetryMin and RetryMax bound the delay before the watch loop tries
	// a failed reconcile or ingest again (a full disk, a model server
	// that is down): it starts at RetryMin and doubles up to RetryMax.
	// Defaults 2 s and 5 min.
	RetryMin, RetryMax time.Duration
	// Requests, when set, brings the watch work from other processes
	// (see Request).
	Requests <-chan Request
	Logger   *slog.Logger
}

// Ingest runs one ingest round with w.
type Ingest func(ctx context.Context, w *index.Writer, r Round) (ingest.Result, error)

// Round is what a sync or the watch asks of an ingest round beyond the
// configured options.
type Round struct {
	// Settle, when set, leaves alone a file written more recently than
	// this: it is still being written.
	Settle time.Duration
	// Progress, when set, hears the round's progress as well.
	Progress func(ingest.Progress)
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
func Sync(ctx context.Context, w *index.Writer, opts Options, kind string, scope []string) (*library.Run, error) {
	run := &library.Run{Kind: kind, Started: time.Now().UTC()}
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
	if ferr := w.FinishRun(context.WithoutCancel(ctx), id, *run); ferr != nil {
		if err != nil {
			// The run's own error is the one to return; this one only
			// means status will not show the run.
			opts.log().Warn("cannot record the run", "err", ferr)
		} else {
			err = ferr
		}
	}
	return run, err
}

// reconcileOnce reconciles scope (nil: every root) and adds what it did to
// run. Holds and failures are the run's to report, and Reconcile.Changed's
// as they come: they are not logged as well.
func reconcileOnce(ctx context.Context, w *index.Writer, opts Options, scope []string, run *library.Run) error {
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
	if err != nil {
		return err
	}
	// calibre's edits change a metadata.opf, not a book: the descriptions
	// are read again whatever the pass found.
	_, err = ingest.RefreshCatalogs(ctx, w, scope)
	return err
}

func ingestOnce(ctx context.Context, w *index.Writer, opts Options, run *library.Run) error {
	res, err := opts.Ingest(ctx, w, Round{})
	addIngest(run, res)
	return err
}

// addIngest adds what an ingest did to a run.
func addIngest(run *library.Run, res ingest.Result) {
	run.Ingested += res.Ingested
	run.Failed += res.Failed
	run.NeedsOCR += res.NeedOCR
	run.Pruned += res.Pruned
	run.Failures = append(run.Failures, res.Failures...)
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
		// Files grimoire does not read are handed on too: reconcile counts
		// them for status. The index's own files never are, so that its
		// writes (an index inside the library) do not wake the watcher in
		// a loop.
		wopts.Ignore = func(p string, isDir bool) bool {
			return reconcile.Ignored(baseName(p)) || w.OwnFile(p)
		}
	}
	wt, err := watcher.New(opts.Reconcile.Roots, wopts)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	l := newWatchLoop(w, opts, wt)
	defer l.retry.stop()
	defer l.settle.stop()
	var wg sync.WaitGroup
	werr := make(chan error, 1)
	wg.Go(func() { werr <- wt.Run(ctx) })
	wg.Go(func() { l.ing.run(ctx) })
	err = l.run(ctx, werr)
	cancel()
	wg.Wait()
	l.close(ctx)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// mustStop reports whether an error ends the watch rather than being
// retried: another writer took the index over, or it is damaged.
func mustStop(err error) bool {
	return errors.Is(err, index.ErrWriterReplaced) || fault.CodeOf(err) == fault.Damaged
}

// runRecord is a watch run: one batch's reconcile and the ingest that
// followed it, until the next batch.
type runRecord struct {
	id  int64
	run *library.Run
}

func startRecord(ctx context.Context, w *index.Writer, kind string) (*runRecord, error) {
	r := &runRecord{run: &library.Run{Kind: kind, Started: time.Now().UTC()}}
	id, err := w.StartRun(ctx, kind, r.run.Started)
	if err != nil {
		return nil, err
	}
	r.id = id
	return r, nil
}

// finish records the run (again, with what ingest added since). A run that
// cannot be recorded is logged and the watch goes on: the record only
// serves status, which shows an older run meanwhile.
func (r *runRecord) finish(ctx context.Context, w *index.Writer, log *slog.Logger) {
	r.run.Finished = time.Now().UTC()
	if err := w.FinishRun(context.WithoutCancel(ctx), r.id, *r.run); err != nil {
		log.Warn("cannot record the run", "kind", r.run.Kind, "err", err)
	}
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

// stateKeeper fills the WatchState that the index publishes, at most every
// second for progress updates. The watch loop and the ingester both report
// to it, hence its lock.
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

func (s *stateKeeper) fullScan() {
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
	state := s.state
	s.mu.Unlock()
	if ctx.Err() != nil {
		return
	}
	if err := s.w.PublishWatchState(ctx, state); err != nil && ctx.Err() == nil {
		// Status keeps showing the state published before. The index
		// failing this write fails the loop's own writes as well, and
		// those are reported and retried: this one is only worth a note.
		s.log.Debug("cannot publish the watch state", "err", err)
	}
}

// clear removes the state on a clean exit, so status does not show a
// watcher that is gone.
func (s *stateKeeper) clear() {
	if err := s.w.ClearWatchState(context.Background()); err != nil {
		// Status shows a watch state only while its process holds the
		// writer lock, and this one is about to let go of it (or has lost
		// it to a takeover): a state left behind is never shown.
		s.log.Debug("cannot clear the watch state", "err", err)
	}
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if os.IsPathSeparator(p[i]) {
			return p[i+1:]
		}
	}
	return p
}
