package syncer

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/reconcile"
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
	// settle pokes the ingester when a file that was still being written
	// has been quiet long enough to be read, or failed for good.
	settle *settler
	// current is the run of the latest batch: the ingest rounds that come
	// after it are added to it until the next batch.
	current *runRecord
	// reconciled: the last reconcile passed, so a passing ingest round
	// means the library is in sync again.
	reconciled bool
	// pokes numbers the loop's pokes of the ingester, the latest last.
	pokes uint64
	// pass is the sync request whose reconcile is done and whose ingest
	// is awaited; nil when none is.
	pass *pendingPass
}

func newWatchLoop(w *index.Writer, opts Options, wt *watcher.Watcher) *watchLoop {
	log := opts.log()
	st := &stateKeeper{w: w, state: index.WatchState{PID: os.Getpid(), Started: time.Now().UTC()}, wt: wt, log: log}
	return &watchLoop{
		w: w, opts: opts, log: log, wt: wt, st: st,
		ing:        newIngester(w, opts.Ingest, settleOf(opts.Watch), st),
		retry:      newRetrier(opts.RetryMin, opts.RetryMax),
		settle:     &settler{},
		reconciled: true,
	}
}

// run handles batches, retries and ingest rounds until ctx is done, the
// watcher stops, or an error ends the watch. It returns that error, nil
// when ctx is done.
func (l *watchLoop) run(ctx context.Context, werr <-chan error) error {
	for {
		batches, requests, retry := l.wt.Batches(), l.opts.Requests, l.retry.due()
		var passGone <-chan struct{}
		if l.pass != nil {
			// A sync pass counts what its ingest does: nothing else
			// starts until it is done.
			batches, requests, retry = nil, nil, nil
			passGone = l.pass.req.Ctx.Done()
		}
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
		case req := <-requests:
			if stop, err := l.serve(ctx, req); stop {
				return err
			}
			continue
		case <-passGone:
			l.dropPass()
			continue
		case <-l.settle.due():
			l.settle.fired()
			l.poke()
			continue
		case <-retry:
			// A failed batch's changes are lost with it: look at
			// everything again.
			b = watcher.Batch{Rescan: true, Reason: "retry after an error"}
		case nb, ok := <-batches:
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
	if l.pass != nil && r.upTo >= l.pass.after {
		l.answerPass(ctx, r.err)
	}
	return false, nil
}

// credit adds what an ingest round did to the current run, and records it.
func (l *watchLoop) credit(ctx context.Context, r ingestRound) {
	for _, res := range r.results {
		l.settle.at(res.SettleAt)
	}
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
	if _, err := l.reconcileRun(ctx, kind, scope, l.opts.Reconcile); err != nil {
		return halts(ctx, err)
	}
	return false, nil
}

// reconcileRun reconciles scope (nil: everything) with opts as a run of
// kind, which becomes the current run, and pokes the ingester. An error is
// returned, and unless it ends the watch (see halts), it is also scheduled
// for a retry; the run, when it could be started, is returned with it.
func (l *watchLoop) reconcileRun(ctx context.Context, kind string, scope []string, opts reconcile.Options) (*runRecord, error) {
	rec, err := startRecord(ctx, l.w, kind)
	if err != nil {
		l.reconciled = false
		if stop, _ := halts(ctx, err); !stop {
			l.fail("recording the run", err)
		}
		return nil, err
	}
	o := l.opts
	o.Reconcile = opts
	err = reconcileOnce(ctx, l.w, o, scope, rec.run)
	l.reconciled = err == nil
	if err != nil {
		if stop, _ := halts(ctx, err); stop {
			return rec, err
		}
		l.fail("reconcile", err)
		rec.run.Failures = append(rec.run.Failures, library.Failure{Path: "", Error: err.Error()})
	}
	if scope == nil {
		l.st.fullScan()
	}
	if l.current != nil {
		l.current.finish(ctx, l.w, l.log)
	}
	l.current = rec
	l.st.publish(ctx)
	l.poke()
	return rec, err
}

// poke asks the ingester for a round that starts after now.
func (l *watchLoop) poke() {
	l.pokes++
	l.ing.poke(l.pokes)
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
	if l.pass != nil {
		l.answerPass(ctx, ErrStopped)
	}
	l.st.clear()
}

// settler fires once, at the earliest time asked for; it is the loop's
// alone.
type settler struct {
	timer *time.Timer
	when  time.Time // zero while none is set
}

// at asks for a poke at t; a zero t asks for nothing.
func (s *settler) at(t time.Time) {
	if t.IsZero() || (!s.when.IsZero() && !t.Before(s.when)) {
		return
	}
	s.when = t
	if s.timer == nil {
		s.timer = time.NewTimer(time.Until(t))
		return
	}
	s.timer.Reset(time.Until(t))
}

// due fires when the poke is due; nil (never) while none is set.
func (s *settler) due() <-chan time.Time {
	if s.when.IsZero() {
		return nil
	}
	return s.timer.C
}

// fired is told that due fired.
func (s *settler) fired() { s.when = time.Time{} }

func (s *settler) stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
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
// round on rounds, for the watch loop to add to its run. A request from
// another process holds it off while it runs (see hold).
type ingester struct {
	w     *index.Writer
	st    *stateKeeper
	pokes chan uint64
	// rounds carries what the ingester did to the loop.
	rounds chan ingestRound

	ingest Ingest
	// settle is how long a file must have been quiet to be read.
	settle time.Duration

	// mu guards the rest: the hold, and who listens.
	mu      sync.Mutex
	turn    *sync.Cond // signalled when a round ends or a hold is lifted
	running bool
	holding bool
	// cut ends the round under way, for a hold.
	cut context.CancelFunc
	// listener, when set, hears ingest's progress too (a sync pass's
	// requester).
	listener func(ingest.Progress)
}

// ingestRound is what one or more ingest rounds did that the watch loop
// has not taken yet.
type ingestRound struct {
	results []ingest.Result
	// err is how the latest round ended: only the latest outcome matters
	// to the loop.
	err error
	// upTo is the latest poke the rounds answered: a round answers the
	// poke that started it, and every one before. 0 for a round that a
	// hold cut short.
	upTo uint64
}

func newIngester(w *index.Writer, ingest Ingest, settle time.Duration, st *stateKeeper) *ingester {
	in := &ingester{w: w, ingest: ingest, settle: settle, st: st, pokes: make(chan uint64, 1), rounds: make(chan ingestRound, 1)}
	in.turn = sync.NewCond(&in.mu)
	return in
}

// settleOf is how long the watch lets a file be quiet before it reads it:
// the watcher's window. One that fails sooner is still being written (a
// slow copy).
func settleOf(o watcher.Options) time.Duration {
	if o.Debounce > 0 {
		return o.Debounce
	}
	return watcher.DefaultDebounce
}

// poke asks for a round that answers poke n (and those before); it never
// waits. The loop is the only sender, so once it has emptied the channel
// its send cannot block.
func (in *ingester) poke(n uint64) {
	select {
	case <-in.pokes:
	default:
	}
	in.pokes <- n
}

// run ingests a round per poke until ctx is done.
func (in *ingester) run(ctx context.Context) {
	for {
		var n uint64
		select {
		case <-ctx.Done():
			return
		case n = <-in.pokes:
		}
		round, r := in.begin(ctx)
		res, err := in.ingest(round, in.w, r)
		cut := round.Err() != nil && ctx.Err() == nil
		in.end()
		in.st.ingesting(ctx, "")
		if cut {
			// Not a failure: the work resumes once the hold is
			// lifted, where it stopped.
			n, err = 0, nil
		}
		in.report(ingestRound{results: []ingest.Result{res}, err: err, upTo: n})
		if ctx.Err() != nil {
			return
		}
	}
}

// begin waits out a hold and starts a round: its context, which a hold
// cancels, and what it is asked.
func (in *ingester) begin(ctx context.Context) (context.Context, Round) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for in.holding {
		in.turn.Wait()
	}
	round, cut := context.WithCancel(ctx)
	in.running, in.cut = true, cut
	return round, Round{Settle: in.settle, Progress: func(p ingest.Progress) {
		in.st.ingesting(ctx, p.Book)
		in.mu.Lock()
		listener := in.listener
		in.mu.Unlock()
		if listener != nil {
			listener(p)
		}
	}}
}

func (in *ingester) end() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.cut()
	in.running, in.cut = false, nil
	in.turn.Broadcast()
}

// hold stops ingest for a request: the round under way is cut short (as
// an interrupted sync is: it resumes where it stopped) and none starts
// until release. Between the two, the request may change what Ingest
// does (a switch of embedding model).
func (in *ingester) hold() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.holding = true
	if in.cut != nil {
		in.cut()
	}
	for in.running {
		in.turn.Wait()
	}
}

// release lifts the hold. The caller pokes for the round that resumes the
// work.
func (in *ingester) release() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.holding = false
	in.turn.Broadcast()
}

// listen has f hear the progress of ingest from now on; nil stops it.
func (in *ingester) listen(f func(ingest.Progress)) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.listener = f
}

// report hands a round to the loop without waiting. A round the loop has
// not taken yet is folded into this one, so no result is lost. The
// ingester is the only sender, so once it has emptied the channel its
// send cannot block.
func (in *ingester) report(r ingestRound) {
	select {
	case older := <-in.rounds:
		r.results = append(older.results, r.results...)
		r.upTo = max(r.upTo, older.upTo)
	default:
	}
	in.rounds <- r
}
