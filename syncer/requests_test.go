package syncer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/watcher"
)

// ask hands req to the running watch and waits for its outcome.
func ask(t *testing.T, reqs chan<- Request, req Request) Outcome {
	t.Helper()
	done := make(chan Outcome, 1)
	if req.Ctx == nil {
		req.Ctx = context.Background()
	}
	req.Done = done
	select {
	case reqs <- req:
	case <-time.After(20 * time.Second):
		t.Fatal("the watch loop did not take the request")
	}
	select {
	case o := <-done:
		return o
	case <-time.After(20 * time.Second):
		t.Fatal("the watch loop did not answer the request")
	}
	return Outcome{}
}

// TestWatchRunsRequests: work handed to a running watch is done between its
// batches, with its error; a sync pass answers once what it found is
// ingested, with the run's counters.
func TestWatchRunsRequests(t *testing.T) {
	ctx := context.Background()
	lib, w, opts := setup(t)
	os.WriteFile(filepath.Join(lib, "a.md"), []byte("# A\n\nalpha beta\n"), 0o644)
	reqs := make(chan Request)
	opts.Requests = reqs
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- Watch(wctx, w, opts) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	// A pass answers with the run once its ingest is done, whether the
	// watcher's own batch or the pass found the new book.
	os.WriteFile(filepath.Join(lib, "b.md"), []byte("# B\n\ngamma delta\n"), 0o644)
	o := ask(t, reqs, Request{Pass: Pass{}})
	if o.Err != nil || o.Run == nil || o.Run.Kind != "sync" || o.Run.Scanned != 2 {
		t.Fatalf("pass: %+v, %v", o.Run, o.Err)
	}
	if s, err := w.Status(ctx); err != nil || s.Ready != 2 {
		t.Fatalf("after the pass: %+v, %v", s, err)
	}

	tests := []struct {
		name    string
		do      func(ctx context.Context, w *index.Writer) error
		wantErr fault.Code
		ready   int
	}{
		{name: "a delete is done", ready: 1, do: func(ctx context.Context, w *index.Writer) error {
			_, err := w.DeleteBook(ctx, "b")
			return err
		}},
		{name: "its error comes back with its code", ready: 1, wantErr: fault.NotFound, do: func(ctx context.Context, w *index.Writer) error {
			_, err := w.DeleteBook(ctx, "b")
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ask(t, reqs, Request{Do: tc.do})
			if tc.wantErr == 0 && o.Err != nil || tc.wantErr != 0 && fault.CodeOf(o.Err) != tc.wantErr {
				t.Errorf("outcome %v, want code %v", o.Err, tc.wantErr)
			}
			if s, err := w.Status(ctx); err != nil || s.Ready != tc.ready {
				t.Errorf("after it: %+v, %v", s, err)
			}
		})
	}

	// A requester that is gone before the loop takes its request has
	// nothing done for it.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	ran := false
	o = ask(t, reqs, Request{Ctx: gone, Do: func(context.Context, *index.Writer) error {
		ran = true
		return nil
	}})
	if ran || !errors.Is(o.Err, context.Canceled) {
		t.Errorf("a gone requester's work ran (%v) or was answered %v", ran, o.Err)
	}
}

// TestPassWaitsForItsRound: a pass is answered by the first ingest round
// that started after its reconcile, not by one that was under way before.
func TestPassWaitsForItsRound(t *testing.T) {
	ctx := context.Background()
	lib, w, opts := setup(t)
	os.WriteFile(filepath.Join(lib, "a.md"), []byte("# A\n\nalpha beta\n"), 0o644)
	wt, err := watcher.New(opts.Reconcile.Roots, opts.Watch)
	if err != nil {
		t.Fatal(err)
	}
	l := newWatchLoop(w, opts, wt)
	defer l.retry.stop()
	done := make(chan Outcome, 1)
	if stop, err := l.serve(ctx, Request{Ctx: ctx, Pass: Pass{}, Done: done}); stop || err != nil {
		t.Fatalf("the pass stopped the loop: %v", err)
	}
	if l.pass == nil || l.pass.after != l.pokes {
		t.Fatalf("pending pass %+v after poke %d", l.pass, l.pokes)
	}
	rounds := []struct {
		name     string
		upTo     uint64
		answered bool
	}{
		{name: "a round under way before the pass", upTo: l.pokes - 1},
		{name: "a round cut short by a hold", upTo: 0},
		{name: "the round the pass started", upTo: l.pokes, answered: true},
	}
	for _, r := range rounds {
		l.ingested(ctx, ingestRound{results: []ingest.Result{{Ingested: 1}}, upTo: r.upTo})
		select {
		case o := <-done:
			if !r.answered {
				t.Fatalf("%s answered the pass: %+v", r.name, o.Run)
			}
			if o.Err != nil || o.Run.New != 1 || o.Run.Ingested != 3 {
				t.Errorf("%s: run %+v, %v", r.name, o.Run, o.Err)
			}
		default:
			if r.answered {
				t.Fatalf("%s did not answer the pass", r.name)
			}
		}
	}
	if l.pass != nil {
		t.Error("the pass is still pending once answered")
	}
}

// TestHoldCutsTheRound: a request holds ingest off by cutting the round
// under way; the cut round is no failure, and the work resumes after.
func TestHoldCutsTheRound(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lib, w, opts := setup(t)
	for _, n := range []string{"a", "b", "c"} {
		os.WriteFile(filepath.Join(lib, n+".md"), []byte("# "+n+"\n\nalpha\n"), 0o644)
	}
	if _, err := reconcileWith(ctx, w, opts); err != nil {
		t.Fatal(err)
	}
	started, unblock := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hearIngest(&opts, func(ingest.Progress) {
		once.Do(func() {
			close(started)
			<-unblock
		})
	})
	wt, err := watcher.New(opts.Reconcile.Roots, opts.Watch)
	if err != nil {
		t.Fatal(err)
	}
	in := newIngester(w, opts.Ingest, settleOf(opts.Watch), &stateKeeper{w: w, wt: wt, log: opts.log()})
	go in.run(ctx)
	in.poke(1)
	<-started
	held := make(chan struct{})
	go func() {
		in.hold()
		close(held)
	}()
	// hold cuts the round in the same step that marks the hold.
	for !in.isHolding() {
		runtime.Gosched()
	}
	close(unblock)
	<-held
	r := <-in.rounds
	if r.err != nil || r.upTo != 0 {
		t.Fatalf("the cut round: %+v", r)
	}
	in.release()
	in.poke(2)
	r = <-in.rounds
	if r.err != nil || r.upTo != 2 {
		t.Fatalf("the round after the hold: %+v", r)
	}
	if s, err := w.Status(ctx); err != nil || s.Ready != 3 {
		t.Errorf("after the hold: %+v, %v", s, err)
	}
}

func (in *ingester) isHolding() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.holding
}

func reconcileWith(ctx context.Context, w *index.Writer, opts Options) (*library.Run, error) {
	run := &library.Run{}
	return run, reconcileOnce(ctx, w, opts, nil, run)
}

// TestPassValidate: a pass another process asks for runs only with a kind
// a command hands over and a scope of a few clean paths in the library;
// anything else is Invalid.
func TestPassValidate(t *testing.T) {
	root := filepath.Join(t.TempDir(), "books")
	roots := []string{root}
	many := make([]string, maxScopePaths+1)
	for i := range many {
		many[i] = filepath.Join(root, "b")
	}
	tests := []struct {
		name string
		pass Pass
		// bad: the text the Invalid error holds; "" when the pass is fine.
		bad string
	}{
		{name: "a sync of the whole library", pass: Pass{Kind: "sync"}},
		{name: "no kind is a sync", pass: Pass{}},
		{name: "eval's sync", pass: Pass{Kind: "eval"}},
		{name: "a file in the library", pass: Pass{Kind: "sync", Scope: []string{filepath.Join(root, "a.pdf")}}},
		{name: "the library's folder itself", pass: Pass{Kind: "sync", Scope: []string{root}}},
		{name: "an unknown kind", pass: Pass{Kind: "purge"}, bad: `kind "purge"`},
		{name: "the watch's own kind", pass: Pass{Kind: "watch"}, bad: `kind "watch"`},
		{name: "a kind of a megabyte", pass: Pass{Kind: strings.Repeat("x", 1<<20)}, bad: "takes only"},
		{name: "an empty scope", pass: Pass{Scope: []string{}}, bad: "names 0 paths"},
		{name: "too many paths", pass: Pass{Scope: many}, bad: "names 65 paths"},
		{name: "an empty path", pass: Pass{Scope: []string{""}}, bad: "not a clean absolute path"},
		{name: "a relative path", pass: Pass{Scope: []string{"books/a.pdf"}}, bad: "not a clean absolute path"},
		{name: "a path that climbs out", pass: Pass{Scope: []string{root + string(filepath.Separator) + ".." + string(filepath.Separator) + "etc"}}, bad: "not a clean absolute path"},
		{name: "a NUL in a path", pass: Pass{Scope: []string{filepath.Join(root, "a\x00b")}}, bad: "not a clean absolute path"},
		{name: "a path too long", pass: Pass{Scope: []string{filepath.Join(root, strings.Repeat("a", maxPathLen))}}, bad: "longer than any file system"},
		{name: "a path outside the library", pass: Pass{Scope: []string{filepath.Dir(root)}}, bad: "outside the library"},
		{name: "a folder that only starts like the library", pass: Pass{Scope: []string{root + "2"}}, bad: "outside the library"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.pass.Validate(roots)
			if tc.bad == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if fault.CodeOf(err) != fault.Invalid || !strings.Contains(fmt.Sprint(err), tc.bad) {
				t.Errorf("error %v (code %v), want Invalid with %q", err, fault.CodeOf(err), tc.bad)
			}
			if len(fmt.Sprint(err)) > 1000 {
				t.Errorf("an error of %d bytes", len(fmt.Sprint(err)))
			}
		})
	}
}

// TestWatchRefusesBadPasses: the watch answers a pass of an unknown kind
// or a scope outside its library with Invalid, and runs nothing.
func TestWatchRefusesBadPasses(t *testing.T) {
	lib, w, opts := setup(t)
	reqs := make(chan Request)
	opts.Requests = reqs
	wctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Watch(wctx, w, opts) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	for _, p := range []Pass{
		{Kind: "purge"},
		{Kind: "sync", Scope: []string{filepath.Dir(lib)}},
		{Kind: "sync", Scope: []string{"."}},
	} {
		o := ask(t, reqs, Request{Pass: p})
		if fault.CodeOf(o.Err) != fault.Invalid || o.Run != nil {
			t.Errorf("%+v: run %v, error %v", p, o.Run, o.Err)
		}
	}
}
