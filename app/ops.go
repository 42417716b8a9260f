package app

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model"
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/syncer"
)

// The operations a running watcher does for another process, as a
// hand-off request names them.
const (
	opDelete  = "delete"
	opLift    = "exclusions lift"
	opReindex = "reindex"
	opSync    = "sync"
)

// SyncArgs is a sync: a reconcile and the ingest that follows it.
type SyncArgs struct {
	// Kind is the run's kind (syncer.KindSync, syncer.KindEval).
	Kind string `json:"kind"`
	// Library is the command's library, which must be the watcher's.
	Library []string `json:"library"`
	// Scope limits the reconcile to these paths; nil: every root.
	Scope []string `json:"scope"`
	// Retry tries failed books again; Prune applies the removals held
	// back for want of evidence.
	Retry bool `json:"retry"`
	Prune bool `json:"prune"`
}

// Synced is a sync's run as it travels from a watcher: with its holds,
// which a run leaves out of its JSON.
type Synced struct {
	Run   *library.Run   `json:"run"`
	Holds []library.Hold `json:"holds"`
}

func syncedOf(run *library.Run) Synced {
	if run == nil {
		return Synced{}
	}
	return Synced{Run: run, Holds: run.Holds}
}

// Of is the run with its holds back in it.
func (r Synced) Of() *library.Run {
	if r.Run != nil {
		r.Run.Holds = r.Holds
	}
	return r.Run
}

// Sync runs one reconcile-and-ingest pass under the writer lock, or has
// the running watcher run it; l hears it where it runs here.
func (s *Service) Sync(ctx context.Context, args SyncArgs, l Listener) (*library.Run, error) {
	r, err := withWriter(ctx, s, "grimoire "+args.Kind, opSync, args, func(w *index.Writer) (Synced, error) {
		opts, err := s.syncerOptions(ctx, w, l)
		if err != nil {
			return Synced{}, err
		}
		opts.Reconcile.Prune = args.Prune
		if args.Retry {
			if err := w.RetryFailed(ctx); err != nil {
				return Synced{}, err
			}
		}
		if l.Started != nil {
			l.Started()
		}
		run, err := syncer.Sync(ctx, w, opts, args.Kind, args.Scope)
		return syncedOf(run), err
	})
	return r.Of(), err
}

// Deleted is the book Delete removed, as it names it.
type Deleted struct {
	Slug  string `json:"slug"`
	Title string `json:"title"`
}

type deleteArgs struct {
	Slug string `json:"slug"`
}

// Delete removes the book key names (a slug, or its beginning) from the
// index and excludes its content from later syncs. The file stays.
func (s *Service) Delete(ctx context.Context, key string) (Deleted, error) {
	args := deleteArgs{Slug: key}
	return withWriter(ctx, s, "grimoire delete", opDelete, args, func(w *index.Writer) (Deleted, error) {
		return deleteBook(ctx, w, args)
	})
}

func deleteBook(ctx context.Context, w *index.Writer, args deleteArgs) (Deleted, error) {
	b, err := w.DeleteBook(ctx, args.Slug)
	if err != nil {
		return Deleted{}, err
	}
	return Deleted{Slug: b.Slug, Title: b.Title}, nil
}

// Lifted is the exclusion LiftExclusion removed, and what a running
// watcher did at once to take its book back in.
type Lifted struct {
	Title string `json:"title"`
	// Path is the file the book was deleted at.
	Path string `json:"path"`
	// Watcher names the watcher that synced Path right after lifting,
	// and Run is that sync; both empty when the command lifted the
	// exclusion itself, or the watcher could not sync Path.
	Watcher string `json:"watcher,omitempty"`
	Run     Synced `json:"run"`
}

type liftArgs struct {
	Key string `json:"key"`
}

// LiftExclusion lets the book of the exclusion key names (its slug, hash,
// title or path) back in at the next sync; a watcher that does it syncs
// the book's file at once.
func (s *Service) LiftExclusion(ctx context.Context, key string) (Lifted, error) {
	args := liftArgs{Key: key}
	return withWriter(ctx, s, "grimoire exclusions lift", opLift, args, func(w *index.Writer) (Lifted, error) {
		return liftExclusion(ctx, w, args)
	})
}

func liftExclusion(ctx context.Context, w *index.Writer, args liftArgs) (Lifted, error) {
	e, err := w.LiftExclusion(ctx, args.Key)
	if err != nil {
		return Lifted{}, err
	}
	return Lifted{Title: e.Title, Path: e.Path}, nil
}

// ReindexArgs says what Reindex rebuilds.
type ReindexArgs struct {
	FTS        bool `json:"fts"`
	Embeddings bool `json:"embeddings"`
	// Embedding is the model to re-embed with: the command's
	// configuration's, which a running watcher then switches to.
	Embedding Embedding `json:"embedding"`
}

// Reindexed is what Reindex did: each step that finished, and how long
// after the start.
type Reindexed struct {
	FTS        bool        `json:"fts"`
	FTSSeconds float64     `json:"fts_seconds"`
	Embeddings bool        `json:"embeddings"`
	Model      model.Stamp `json:"model"`
	Chunks     int         `json:"chunks"`
	Seconds    float64     `json:"seconds"`
}

// Reindex rebuilds derived indexes from the stored chunks: the full-text
// index, and the vectors with the configured model. It returns what it
// did, even when a later step failed.
func (s *Service) Reindex(ctx context.Context, args ReindexArgs, prog Progress) (Reindexed, error) {
	args.Embedding = s.set.Embedding
	return withWriter(ctx, s, "grimoire reindex", opReindex, args, func(w *index.Writer) (Reindexed, error) {
		r, _, err := s.reindex(ctx, w, args, prog)
		return r, err
	})
}

// reindex is Reindex's work on the index, in whichever process writes it,
// with the embedder it re-embedded with (nil when it did not).
func (s *Service) reindex(ctx context.Context, w *index.Writer, args ReindexArgs, prog Progress) (Reindexed, embed.Embedder, error) {
	var r Reindexed
	start := time.Now()
	if args.FTS {
		if err := w.RebuildFTS(ctx); err != nil {
			return r, nil, err
		}
		r.FTS, r.FTSSeconds = true, time.Since(start).Seconds()
	}
	if !args.Embeddings {
		return r, nil, nil
	}
	emb, err := s.embedderOf(ctx, args.Embedding)
	if err != nil {
		return r, nil, err
	}
	n, err := ingest.Reembed(ctx, w, emb, 0, func(done, total int) { prog.Counted("re-embedding", done, total, "chunk") })
	if err != nil {
		return r, nil, err
	}
	r.Embeddings, r.Model, r.Chunks, r.Seconds = true, emb.Info().Stamp(), n, time.Since(start).Seconds()
	return r, emb, nil
}

// Rebuilt is what Rebuild made, in the shape of `grimoire rebuild --json`.
type Rebuilt struct {
	index.RebuildReport
	Index      string            `json:"index"`
	Failures   []library.Failure `json:"failures"`
	DurationMS int64             `json:"duration_ms"`
}

// Rebuild makes the index anew from the library, beside the old one,
// keeping what the models wrote for books whose text has not changed; l
// hears the sync it runs.
func (s *Service) Rebuild(ctx context.Context, l Listener) (Rebuilt, error) {
	start := time.Now()
	w, err := index.Rebuild(ctx, s.set.DBPath, "grimoire rebuild")
	if err != nil {
		return Rebuilt{}, err
	}
	defer w.Close()
	opts, err := s.syncerOptions(ctx, w, l)
	if err != nil {
		return Rebuilt{}, err
	}
	if l.Started != nil {
		l.Started()
	}
	run, err := syncer.Sync(ctx, w, opts, "rebuild", nil)
	if l.Ended != nil {
		l.Ended()
	}
	if err != nil {
		return Rebuilt{}, err
	}
	// A library folder that is not there (an unplugged drive) gave none of
	// its books back: keep the salvage for them until it is.
	for _, root := range s.set.Library {
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return Rebuilt{}, (&fault.Error{Code: fault.NotFound, Msg: fmt.Sprintf("the rebuild is not finished: library folder %s cannot be read", root)}).
				WithHint("run `grimoire rebuild` again once it is back; until then the books found so far answer queries")
		}
	}
	rep, err := w.FinishRebuild(ctx)
	if err != nil {
		return Rebuilt{}, err
	}
	f := run.Failures
	if f == nil {
		f = []library.Failure{}
	}
	return Rebuilt{RebuildReport: rep, Index: w.Path(), Failures: f, DurationMS: time.Since(start).Milliseconds()}, nil
}
