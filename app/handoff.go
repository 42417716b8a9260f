package app

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
	"github.com/grimoire-search/grimoire/syncer"
)

// withWriter does work with this process's own writer. When the writer lock
// is taken by a watcher that takes requests, the request goes to it
// instead: it does the same work between its batches and sends back the
// result, which comes out here as if the work had been done here, errors
// and their codes included. A writer that takes no requests (an older
// grimoire, a rebuild) gets the lock's usual Conflict.
func withWriter[R any](ctx context.Context, s *Service, command, op string, args any, work func(*index.Writer) (R, error)) (R, error) {
	var none R
	w, err := s.openWriter(ctx, command)
	if err == nil {
		defer w.Close()
		return work(w)
	}
	if fault.CodeOf(err) != fault.Conflict {
		return none, err
	}
	h, running := index.ReadLockHolder(s.set.DBPath)
	if !running || h.Requests == "" {
		return none, err
	}
	req, rerr := handoff.NewRequest(op, args)
	if rerr != nil {
		return none, rerr
	}
	on, done := s.front.HandingOver(h)
	res, herr := handoff.Ask(ctx, h, req, on)
	done()
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

// Watch keeps the index in sync with the library until ctx is done, heard
// by l (Started once it is ready to watch), with this process's writer;
// command names it.
func (s *Service) Watch(ctx context.Context, command string, l Listener) error {
	w, err := s.openWriter(ctx, command)
	if err != nil {
		return err
	}
	defer w.Close()
	return s.watch(ctx, w, command, l)
}

// watch is Watch with the writer w. Beside the watch it takes
// the requests of other commands, which the watch loop runs between its
// batches. When no socket can be opened the watch runs alone: other
// commands then wait for the lock, as they did before requests existed.
func (s *Service) watch(ctx context.Context, w *index.Writer, command string, l Listener) error {
	opts, err := s.syncerOptions(ctx, w, l)
	if err != nil {
		return err
	}
	if l.Started != nil {
		l.Started()
	}
	srv, err := handoff.Listen(w, s.log)
	if err != nil {
		s.log.Warn("other commands cannot hand their work to this watch; they wait for it to stop", "err", err)
		return syncer.Watch(ctx, w, opts)
	}
	loop := make(chan syncer.Request)
	opts.Requests = loop
	serving, stopServing := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { srv.Serve(serving, s.requestHandler(loop, command)) })
	err = syncer.Watch(ctx, w, opts)
	// The loop is gone: requests waiting for it are told so.
	stopServing()
	wg.Wait()
	return err
}

// WatchWhenFree runs Watch whenever the writer lock is free, and stays
// quietly read-only while another process holds it, trying again now and
// then, until ctx is done. Each watch is heard by a listener of its own.
func (s *Service) WatchWhenFree(ctx context.Context, command string, listener func() Listener) {
	const retry = 30 * time.Second
	for ctx.Err() == nil {
		w, err := s.openWriter(ctx, command)
		if err != nil {
			if fault.CodeOf(err) != fault.Conflict {
				s.log.Error("cannot watch the library", "err", err)
			} else {
				s.log.Info("another process writes the index; serving read-only", "err", err)
			}
			if !sleep(ctx, retry) {
				return
			}
			continue
		}
		err = s.watch(ctx, w, command, listener())
		w.Close()
		if err != nil {
			s.log.Error("watching stopped", "err", err)
			sleep(ctx, retry)
		}
	}
}

// sleep waits d, or less when ctx ends first: then it returns false.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// requestHandler turns a request into work for the watch loop, hands it
// over, and returns what the command would print.
func (s *Service) requestHandler(loop chan<- syncer.Request, command string) handoff.Handler {
	return func(ctx context.Context, req handoff.Request, rep *handoff.Reporter) (any, error) {
		ask := func(work syncer.Request) (syncer.Outcome, error) {
			return askLoop(ctx, loop, work, rep, command)
		}
		work, result, err := s.loopWork(req, rep, command, ask)
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
// work through ask. The work is the operations' own: the same functions
// they call with a writer of their own.
func (s *Service) loopWork(req handoff.Request, rep *handoff.Reporter, command string, ask func(syncer.Request) (syncer.Outcome, error)) (syncer.Request, func(syncer.Outcome) (any, error), error) {
	var res any
	fromDo := func(o syncer.Outcome) (any, error) { return res, o.Err }
	switch req.Op {
	case opDelete:
		var args deleteArgs
		if err := req.Decode(&args); err != nil {
			return syncer.Request{}, nil, err
		}
		return syncer.Request{Do: func(ctx context.Context, w *index.Writer) error {
			r, err := deleteBook(ctx, w, args)
			res = r
			return err
		}}, fromDo, nil
	case opLift:
		var args liftArgs
		if err := req.Decode(&args); err != nil {
			return syncer.Request{}, nil, err
		}
		var l Lifted
		return syncer.Request{Do: func(ctx context.Context, w *index.Writer) error {
				var err error
				l, err = liftExclusion(ctx, w, args)
				return err
			}}, func(o syncer.Outcome) (any, error) {
				if o.Err != nil {
					return nil, o.Err
				}
				return s.takeBack(l, rep, command, ask)
			}, nil
	case opReindex:
		var args ReindexArgs
		if err := req.Decode(&args); err != nil {
			return syncer.Request{}, nil, err
		}
		return syncer.Request{Do: func(ctx context.Context, w *index.Writer) error {
			r, emb, err := s.reindex(ctx, w, args, s.front.Relay(rep))
			res = r
			if err == nil && emb != nil {
				// The index now holds the vectors of emb: the watch
				// ingests with it from now on.
				s.switchModel(emb)
			}
			return err
		}}, fromDo, nil
	case opSync:
		var args SyncArgs
		if err := req.Decode(&args); err != nil {
			return syncer.Request{}, nil, err
		}
		if !sameFolders(args.Library, s.set.Library) {
			return syncer.Request{}, nil, (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("%s (pid %d) watches %s, but this command's configuration names %s", command, os.Getpid(), strings.Join(s.set.Library, ", "), strings.Join(args.Library, ", "))}).
				WithHint("run it with the configuration the watcher uses, or stop the watcher")
		}
		remote := s.front.Relay(rep)
		hashing := func(done, total int) { remote.Counted("hashing", done, total, "file") }
		pass := syncer.Pass{Kind: args.Kind, Scope: args.Scope, Prune: args.Prune, Retry: args.Retry, Hashing: hashing, Ingesting: remote.Ingest}
		// Checked here too, so that the requester hears at once rather
		// than when the loop takes the pass up.
		if err := pass.Validate(s.set.Library); err != nil {
			return syncer.Request{}, nil, err
		}
		return syncer.Request{Pass: pass}, func(o syncer.Outcome) (any, error) {
			if o.Run == nil {
				return nil, o.Err
			}
			return syncedOf(o.Run), o.Err
		}, nil
	}
	return syncer.Request{}, nil, (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("%s (pid %d) does not know the request %q", command, os.Getpid(), req.Op)}).
		WithHint("it is an older grimoire: restart it with this one")
}

// takeBack has the watch loop sync the file of an exclusion it lifted: no
// change in the folder would bring the book back before the next rescan,
// which may be an hour away. The answer waits for the book's ingest, so
// that the command can say it is back.
func (s *Service) takeBack(l Lifted, rep *handoff.Reporter, command string, ask func(syncer.Request) (syncer.Outcome, error)) (any, error) {
	pass := syncer.Pass{Scope: []string{l.Path}, Ingesting: s.front.Relay(rep).Ingest}
	if l.Path == "" || pass.Validate(s.set.Library) != nil {
		// Recorded before paths were kept, or outside the library as it
		// is configured now: only a whole sync can find its files.
		return l, nil
	}
	o, err := ask(syncer.Request{Pass: pass})
	if err != nil {
		return l, err
	}
	l.Watcher = fmt.Sprintf("%s (pid %d)", command, os.Getpid())
	l.Run = syncedOf(o.Run)
	return l, o.Err
}

func sameFolders(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
