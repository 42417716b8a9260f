package main

import (
	"context"
	"os"

	"golang.org/x/term"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/ingest/embed"
	"github.com/grimoire-search/grimoire/reconcile"
	"github.com/grimoire-search/grimoire/retrieve"
	"github.com/grimoire-search/grimoire/syncer"
	"github.com/grimoire-search/grimoire/watcher"
)

// embedder returns the configured embedding model.
func (a *app) embedder() (embed.Embedder, error) {
	return embed.NewBuiltin(), nil
}

// openWriter takes the index's writer lock; command names this process for
// a second writer's error message.
func (a *app) openWriter(ctx context.Context, command string) (*index.Writer, error) {
	return index.OpenWriter(ctx, a.cfg.DBPath, command)
}

// openLibrary opens the index read-only with a searcher, checking that the
// configured model is the one whose vectors the index holds.
func (a *app) openLibrary(ctx context.Context) (*retrieve.Library, func(), error) {
	r, err := index.OpenReader(ctx, a.cfg.DBPath)
	if err != nil {
		return nil, nil, err
	}
	emb, err := a.embedder()
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	if err := r.CheckStamp(ctx, ingest.Stamp(emb)); err != nil {
		r.Close()
		return nil, nil, err
	}
	s := retrieve.New(&r.DB, emb, a.retrieveOptions(emb))
	return &retrieve.Library{DB: &r.DB, Searcher: s}, func() { r.Close() }, nil
}

func (a *app) retrieveOptions(emb embed.Embedder) retrieve.Options {
	o := retrieve.DefaultOptions()
	r := a.cfg.Retrieval
	o.Mode, o.RRFK, o.CandidatePool = r.Mode, r.RRFK, r.CandidatePool
	o.FTSWeight, o.VectorWeight = r.FTSWeight, r.VectorWeight
	if o.VectorWeight == 0 {
		o.VectorWeight = autoVectorWeight(emb)
	}
	o.Dim = emb.Info().Dim
	return o
}

// syncerOptions wires the configuration into a sync or watch, after
// checking that the configured model is the index's.
func (a *app) syncerOptions(ctx context.Context, w *index.Writer) (syncer.Options, error) {
	emb, err := a.embedder()
	if err != nil {
		return syncer.Options{}, err
	}
	if err := w.CheckStamp(ctx, ingest.Stamp(emb)); err != nil {
		return syncer.Options{}, err
	}
	return syncer.Options{
		Reconcile: a.reconcileOptions(),
		Ingest:    a.ingestOptions(emb),
		Watch:     watcher.Options{Debounce: a.cfg.Watch.Debounce, RescanInterval: a.cfg.Watch.RescanInterval},
		Logger:    a.log,
	}, nil
}

// autoVectorWeight is the vector arm's fusion weight when the configuration
// leaves it at 0. The built-in embedder is a hashed lexical signal that
// makes hybrid search worse at any weight that can reorder BM25 (SciFact dev
// nDCG@10: 0.598 at weight 1, 0.688 at 0.05, 0.702 = BM25 at 0.01). Below
// 61/(70·71) ≈ 0.012 it never changes BM25's top ten when BM25 has eleven
// hits or more, and it still answers what BM25 cannot match at all
// (misspellings, unsegmented CJK text).
func autoVectorWeight(emb embed.Embedder) float64 {
	if emb.Info().Provider == "builtin" {
		return 0.01
	}
	return 1
}

func (a *app) reconcileOptions() reconcile.Options {
	return reconcile.Options{
		Roots:       a.cfg.Library,
		TypeOf:      ingest.SourceType,
		MaxFileSize: a.cfg.MaxFileSize << 20,
		Logger:      a.log,
	}
}

func (a *app) ingestOptions(emb embed.Embedder) ingest.Options {
	c := a.cfg.Chunking
	return ingest.Options{
		Chunking: ingest.Chunking{ChunkTokens: c.ChunkTokens, OverlapTokens: c.OverlapTokens, SectionSplitTokens: c.SectionSplitTokens},
		Embedder: emb,
		Logger:   a.log,
	}
}

// stderrIsTerminal reports whether progress may be drawn.
func (a *app) stderrIsTerminal() bool {
	f, ok := a.stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
