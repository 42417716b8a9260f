package syncer

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/library"
)

// Request is work that another process hands the running watch, through
// Options.Requests, instead of waiting for the writer lock: the loop takes
// it between batches and runs it alone, with ingest held off, so it does
// what the command would do with the lock itself.
type Request struct {
	// Ctx ends when the requester gives up; the work stops as it would on
	// the command's Ctrl-C.
	Ctx context.Context
	// Do, when set, is the work: it runs with the loop's writer while no
	// ingest round runs, so it may change what Options.Ingest does from
	// then on (a switch of embedding model).
	Do func(ctx context.Context, w *index.Writer) error
	// Pass is the work when Do is nil: a sync.
	Pass Pass
	// Done receives the outcome, once; it must have room for it.
	Done chan<- Outcome
}

// Pass is a sync run by the watch: a reconcile, recorded as a run, and the
// ingest that follows it, up to a round that started after the reconcile.
type Pass struct {
	// Kind is the run's kind, as Sync takes it; default "sync".
	Kind string
	// Scope limits the reconcile to these paths; nil: every root.
	Scope []string
	// Prune applies the removals held back for want of evidence; Retry
	// tries failed books again.
	Prune, Retry bool
	// Hashing and Ingesting, when set, hear the pass's progress.
	Hashing   func(done, total int)
	Ingesting func(ingest.Progress)
}

// The kinds of run a command hands the watch: a sync, and the one eval
// runs before it measures.
const (
	KindSync = "sync"
	KindEval = "eval"
)

// Limits on a pass's scope. A command sends one path; more than a few
// dozen is no command's, and a path longer than any file system takes
// names nothing.
const (
	maxScopePaths = 64
	maxPathLen    = 4096
)

// Validate checks a pass that another process asks for against the
// library's roots: its kind is one a command hands over ("" is a sync),
// and its scope, when set, names at most a few dozen clean absolute paths
// inside the library. Anything else is Invalid: the requester is told
// rather than its pass run over the wrong files.
func (p Pass) Validate(roots []string) error {
	switch p.Kind {
	case "", KindSync, KindEval:
	default:
		return fault.Errorf(fault.Invalid, "a sync request of kind %.40q: the running writer takes only %q and %q", p.Kind, KindSync, KindEval)
	}
	if p.Scope == nil {
		return nil
	}
	if len(p.Scope) == 0 || len(p.Scope) > maxScopePaths {
		return fault.Errorf(fault.Invalid, "a sync request whose scope names %d paths: it takes 1 to %d", len(p.Scope), maxScopePaths)
	}
	for _, path := range p.Scope {
		switch {
		case len(path) > maxPathLen:
			return fault.Errorf(fault.Invalid, "a sync request whose scope holds a path of %d bytes, longer than any file system takes", len(path))
		case strings.ContainsRune(path, 0) || !filepath.IsAbs(path) || filepath.Clean(path) != path:
			return fault.Errorf(fault.Invalid, "a sync request whose scope holds %q, not a clean absolute path", path)
		case !subtree.InAny(path, roots):
			return fault.Errorf(fault.Invalid, "a sync request whose scope holds %s, outside the library (%s)", path, strings.Join(roots, ", "))
		}
	}
	return nil
}

// Outcome is how a request ended: its error, and for a pass the run.
type Outcome struct {
	Run *library.Run
	Err error
}

// ErrStopped is matched by errors.Is when the watch stopped before it
// finished a request.
var ErrStopped = errors.New("the watch stopped")

func (r Request) answer(o Outcome) {
	select {
	case r.Done <- o:
	default:
	}
}

// pendingPass is a pass whose reconcile is done and whose ingest the loop
// waits for.
type pendingPass struct {
	req Request
	rec *runRecord
	// after is the poke that followed the reconcile: a round that answers
	// it ingested what the reconcile queued.
	after uint64
}

// serve runs a request, returning whether the watch must stop (a takeover,
// damage, or the watch's end), and with what error.
func (l *watchLoop) serve(ctx context.Context, req Request) (stop bool, err error) {
	if err := req.Ctx.Err(); err != nil {
		// The requester is gone: nothing is done for no one.
		req.answer(Outcome{Err: err})
		return false, nil
	}
	if req.Do == nil {
		return l.startPass(ctx, req)
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(req.Ctx, cancel)()
	l.ing.hold()
	err = req.Do(rctx, l.w)
	l.ing.release()
	l.poke()
	if err != nil && ctx.Err() != nil {
		err = ErrStopped
	}
	req.answer(Outcome{Err: err})
	if err != nil {
		return halts(ctx, err)
	}
	return false, nil
}

// startPass reconciles for a sync request. Its answer waits for the ingest
// round that follows, unless the reconcile failed: a sync stops there too.
func (l *watchLoop) startPass(ctx context.Context, req Request) (stop bool, err error) {
	p := req.Pass
	if err := p.Validate(l.opts.Reconcile.Roots); err != nil {
		req.answer(Outcome{Err: err})
		return false, nil
	}
	if p.Retry {
		if err := l.w.RetryFailed(ctx); err != nil {
			req.answer(Outcome{Err: err})
			return halts(ctx, err)
		}
	}
	opts := l.opts.Reconcile
	opts.Prune = p.Prune
	if p.Hashing != nil {
		opts.Progress = p.Hashing
	}
	l.ing.listen(p.Ingesting)
	kind := p.Kind
	if kind == "" {
		kind = KindSync
	}
	rec, err := l.reconcileRun(ctx, kind, p.Scope, opts)
	if err != nil {
		l.ing.listen(nil)
		o := Outcome{Err: err}
		if rec != nil {
			rec.finish(ctx, l.w, l.log)
			o.Run = snapshot(rec.run)
		}
		req.answer(o)
		return halts(ctx, err)
	}
	l.pass = &pendingPass{req: req, rec: rec, after: l.pokes}
	return false, nil
}

// answerPass answers the pending pass with its run as it stands and the
// ingest's error.
func (l *watchLoop) answerPass(ctx context.Context, err error) {
	p := l.pass
	l.dropPass()
	p.rec.finish(ctx, l.w, l.log)
	p.req.answer(Outcome{Run: snapshot(p.rec.run), Err: err})
}

// dropPass forgets the pending pass: answered, or its requester is gone.
func (l *watchLoop) dropPass() {
	l.pass = nil
	l.ing.listen(nil)
}

// snapshot copies a run that the loop goes on adding to.
func snapshot(r *library.Run) *library.Run {
	c := *r
	c.Failures = slices.Clone(r.Failures)
	c.Holds = slices.Clone(r.Holds)
	return &c
}
