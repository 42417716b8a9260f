package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/handoff"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/syncer"
)

// The commands that a running watcher (grimoire watch, serve --watch) does
// for another process, as the request names them.
const (
	opDelete  = "delete"
	opLift    = "exclusions lift"
	opReindex = "reindex"
	opSync    = "sync"
)

// withWriter does work with this process's own writer. When the writer lock
// is taken by a watcher that takes requests, the request goes to it
// instead: it does the same work between its batches and sends back the
// result, which comes out here as if the work had been done here, errors
// and their codes included. A writer that takes no requests (an older
// grimoire, a rebuild) gets the lock's usual Conflict.
func withWriter[R any](ctx context.Context, a *app, command, op string, args any, work func(*index.Writer) (R, error)) (R, error) {
	var none R
	w, err := a.openWriter(ctx, command)
	if err == nil {
		defer w.Close()
		return work(w)
	}
	if fault.CodeOf(err) != fault.Conflict {
		return none, err
	}
	h, running := index.ReadLockHolder(a.cfg.DBPath)
	if !running || h.Requests == "" {
		return none, err
	}
	req, rerr := handoff.NewRequest(op, args)
	if rerr != nil {
		return none, rerr
	}
	res, herr := a.handOver(ctx, h, req)
	if errors.Is(herr, handoff.ErrNotTaking) {
		return none, err
	}
	var out R
	if len(res) > 0 && string(res) != "null" {
		if jerr := json.Unmarshal(res, &out); jerr != nil {
			return none, fmt.Errorf("read what %s (pid %d) answered: %w", h.Command, h.PID, jerr)
		}
	}
	return out, herr
}

// handOver sends req to the writer h and waits for it, saying so on stderr
// and showing its progress.
func (a *app) handOver(ctx context.Context, h index.LockHolder, req handoff.Request) (json.RawMessage, error) {
	prog := a.newProgress()
	defer prog.done()
	// A request waits while the watcher ends the batch or the sync it is
	// on; once that has lasted a while, say so, or the wait looks hung.
	var mu sync.Mutex
	var busy *time.Timer
	started, over := false, false
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		over = true
		if busy != nil {
			busy.Stop()
		}
	}()
	return handoff.Ask(ctx, h, req, func(ev handoff.Event) {
		switch ev.State {
		case handoff.Sent:
			fmt.Fprintf(a.stderr, "grimoire: %s (pid %d) writes the index; handed this to it, waiting…\n", h.Command, h.PID)
			busy = time.AfterFunc(busyNote, func() {
				mu.Lock()
				defer mu.Unlock()
				if !started && !over {
					fmt.Fprintln(a.stderr, "grimoire: it finishes what it is doing first; Ctrl-C gives up waiting")
				}
			})
		case handoff.Working:
			mu.Lock()
			started = true
			mu.Unlock()
		}
		if p := ev.Progress; p != nil {
			prog.show(progressLine{step: p.Label, done: p.Done, total: p.Total, count: p.Count, now: p.Now, ownPace: p.OwnPace, left: p.Left})
		}
	})
}

// busyNote is how long a request may wait for the watcher to take it up
// before the command says why it waits.
const busyNote = 3 * time.Second

// watchTakingRequests runs the watch and, beside it, takes the requests of
// other commands, which the watch loop runs between its batches. When no
// socket can be opened the watch runs alone: other commands then wait for
// the lock, as they did before requests existed.
func (a *app) watchTakingRequests(ctx context.Context, w *index.Writer, opts syncer.Options, command string) error {
	srv, err := handoff.Listen(w, a.log)
	if err != nil {
		a.log.Warn("other commands cannot hand their work to this watch; they wait for it to stop", "err", err)
		return syncer.Watch(ctx, w, opts)
	}
	loop := make(chan syncer.Request)
	opts.Requests = loop
	serving, stopServing := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { srv.Serve(serving, a.requestHandler(loop, command)) })
	err = syncer.Watch(ctx, w, opts)
	// The loop is gone: requests waiting for it are told so.
	stopServing()
	wg.Wait()
	return err
}

// requestHandler turns a request into work for the watch loop, hands it
// over, and returns what the command would print.
func (a *app) requestHandler(loop chan<- syncer.Request, command string) handoff.Handler {
	return func(ctx context.Context, req handoff.Request, rep *handoff.Reporter) (any, error) {
		ask := func(work syncer.Request) (syncer.Outcome, error) {
			return askLoop(ctx, loop, work, rep, command)
		}
		work, result, err := a.loopWork(req, rep, command, ask)
		if err != nil {
			return nil, err
		}
		o, err := ask(work)
		if err != nil {
			return nil, err
		}
		return result(o)
	}
}

// askLoop hands work to the watch loop and waits for its outcome; the error
// is the requester's own end or the watch's, which the outcome cannot carry.
func askLoop(ctx context.Context, loop chan<- syncer.Request, work syncer.Request, rep *handoff.Reporter, command string) (syncer.Outcome, error) {
	done := make(chan syncer.Outcome, 1)
	work.Ctx, work.Done = ctx, done
	select {
	case loop <- work:
	case <-ctx.Done():
		return syncer.Outcome{}, handoff.Unfinished(command, os.Getpid())
	}
	rep.Working()
	var o syncer.Outcome
	select {
	case o = <-done:
	case <-ctx.Done():
		select {
		case o = <-done:
		default:
			return syncer.Outcome{}, handoff.Unfinished(command, os.Getpid())
		}
	}
	if errors.Is(o.Err, syncer.ErrStopped) {
		o.Err = handoff.Unfinished(command, os.Getpid())
	}
	return o, nil
}

// loopWork decodes a request into the watch loop's work, and the function
// that makes the result from its outcome, which may hand the loop more
// work through ask. The work is the commands' own: the same functions they
// call with a writer of their own.
func (a *app) loopWork(req handoff.Request, rep *handoff.Reporter, command string, ask func(syncer.Request) (syncer.Outcome, error)) (syncer.Request, func(syncer.Outcome) (any, error), error) {
	var res any
	fromDo := func(o syncer.Outcome) (any, error) { return res, o.Err }
	switch req.Op {
	case opDelete:
		var args deleteArgs
		if err := req.Decode(&args); err != nil {
			return syncer.Request{}, nil, err
		}
		return syncer.Request{Do: func(ctx context.Context, w *index.Writer, _ ingest.Options) (*ingest.Options, error) {
			r, err := deleteBook(ctx, w, args)
			res = r
			return nil, err
		}}, fromDo, nil
	case opLift:
		var args liftArgs
		if err := req.Decode(&args); err != nil {
			return syncer.Request{}, nil, err
		}
		var l lifted
		return syncer.Request{Do: func(ctx context.Context, w *index.Writer, _ ingest.Options) (*ingest.Options, error) {
				var err error
				l, err = liftExclusion(ctx, w, args)
				return nil, err
			}}, func(o syncer.Outcome) (any, error) {
				if o.Err != nil {
					return nil, o.Err
				}
				return a.takeBack(l, rep, command, ask)
			}, nil
	case opReindex:
		var args reindexArgs
		if err := req.Decode(&args); err != nil {
			return syncer.Request{}, nil, err
		}
		return syncer.Request{Do: func(ctx context.Context, w *index.Writer, current ingest.Options) (*ingest.Options, error) {
			r, emb, err := a.reindex(ctx, w, args, remoteProgress(rep))
			res = r
			if err != nil || emb == nil || emb.Info().Stamp() == current.Embedder.Info().Stamp() {
				return nil, err
			}
			// The index now holds the vectors of another model: the
			// watch ingests with it from now on.
			next := current
			next.Embedder, next.Chunking = emb, a.chunking(emb)
			return &next, nil
		}}, fromDo, nil
	case opSync:
		var args syncArgs
		if err := req.Decode(&args); err != nil {
			return syncer.Request{}, nil, err
		}
		if !sameFolders(args.Library, a.cfg.Library) {
			return syncer.Request{}, nil, (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("%s (pid %d) watches %s, but this command's configuration names %s", command, os.Getpid(), strings.Join(a.cfg.Library, ", "), strings.Join(args.Library, ", "))}).
				WithHint("run it with the configuration the watcher uses, or stop the watcher")
		}
		remote := remoteProgress(rep)
		hashing := func(done, total int) { remote.counted("hashing", done, total, "file") }
		pass := syncer.Pass{Kind: args.Kind, Scope: args.Scope, Prune: args.Prune, Retry: args.Retry, Hashing: hashing, Ingesting: remote.ingest}
		// Checked here too, so that the requester hears at once rather
		// than when the loop takes the pass up.
		if err := pass.Validate(a.cfg.Library); err != nil {
			return syncer.Request{}, nil, err
		}
		return syncer.Request{Pass: pass}, func(o syncer.Outcome) (any, error) {
			if o.Run == nil {
				return nil, o.Err
			}
			return syncResultOf(o.Run), o.Err
		}, nil
	}
	return syncer.Request{}, nil, (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("%s (pid %d) does not know the request %q", command, os.Getpid(), req.Op)}).
		WithHint("it is an older grimoire: restart it with this one")
}

// takeBack has the watch loop sync the file of an exclusion it lifted: no
// change in the folder would bring the book back before the next rescan,
// which may be an hour away. The answer waits for the book's ingest, so
// that the command can say it is back.
func (a *app) takeBack(l lifted, rep *handoff.Reporter, command string, ask func(syncer.Request) (syncer.Outcome, error)) (any, error) {
	pass := syncer.Pass{Scope: []string{l.Path}, Ingesting: remoteProgress(rep).ingest}
	if l.Path == "" || pass.Validate(a.cfg.Library) != nil {
		// Recorded before paths were kept, or outside the library as it
		// is configured now: only a whole sync can find its files.
		return l, nil
	}
	o, err := ask(syncer.Request{Pass: pass})
	if err != nil {
		return l, err
	}
	l.Watcher = fmt.Sprintf("%s (pid %d)", command, os.Getpid())
	l.Run = syncResultOf(o.Run)
	return l, o.Err
}

func sameFolders(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
