package main

import (
	"context"
	"errors"
	"os"

	"golang.org/x/term"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/ingest/embed"
	"github.com/grimoire-search/grimoire/ingest/llm"
	"github.com/grimoire-search/grimoire/reconcile"
	"github.com/grimoire-search/grimoire/retrieve"
	"github.com/grimoire-search/grimoire/syncer"
	"github.com/grimoire-search/grimoire/watcher"
)

// embedder returns the configured embedding model, connecting to its
// server once per process.
func (a *app) embedder(ctx context.Context) (embed.Embedder, error) {
	if a.emb == nil {
		emb, err := embed.New(ctx, a.cfg.embedConfig(), a.log)
		if err != nil {
			return nil, err
		}
		a.emb = emb
	}
	return a.emb, nil
}

// contextualizer returns the configured language model for Contextual
// Retrieval and its stamp, or nil when [context] provider is "none".
func (a *app) contextualizer(ctx context.Context) (*llm.Contextualizer, index.ContextStamp, error) {
	c, err := llm.New(ctx, a.cfg.llmConfig(), a.log)
	if c == nil || err != nil {
		return nil, index.ContextStamp{}, err
	}
	return c, c.Stamp(), nil
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
	emb, err := a.queryEmbedder(ctx, &r.DB)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	opts := a.retrieveOptions(emb)
	var qe retrieve.QueryEmbedder
	if emb != nil {
		qe = emb
	}
	s := retrieve.New(&r.DB, qe, opts)
	return &retrieve.Library{DB: &r.DB, Searcher: s}, func() { r.Close() }, nil
}

// queryEmbedder returns the embedder for queries, checked against the
// index's stamp. It returns nil, and searches fall back to full text, when
// the vectors cannot be compared with the model yet (a switch to it is
// under way) or its server does not answer: reading should not stop because
// a model server is down.
func (a *app) queryEmbedder(ctx context.Context, d *index.DB) (embed.Embedder, error) {
	emb, err := a.embedder(ctx)
	if errors.Is(err, embed.ErrUnreachable) {
		a.log.Warn("the embedding server does not answer; searching full text only", "err", err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	err = d.CheckStamp(ctx, ingest.Stamp(emb))
	if index.CodeOf(err) == index.Conflict {
		if next, ok, nerr := d.NextStamp(ctx); nerr == nil && ok && next == ingest.Stamp(emb) {
			a.log.Warn("the library is being re-embedded for the configured model; searching full text only until it is done")
			return nil, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return emb, nil
}

func (a *app) retrieveOptions(emb embed.Embedder) retrieve.Options {
	o := retrieve.DefaultOptions()
	r := a.cfg.Retrieval
	o.Mode, o.RRFK, o.CandidatePool = r.Mode, r.RRFK, r.CandidatePool
	o.FTSWeight, o.VectorWeight = r.FTSWeight, r.VectorWeight
	o.Fusion = r.Fusion
	if o.Fusion == "auto" {
		o.Fusion = autoFusion(emb)
	}
	if emb == nil {
		return o
	}
	if o.VectorWeight == 0 {
		o.VectorWeight = autoVectorWeight(emb)
	}
	o.Dim = emb.Info().Dim
	return o
}

// syncerOptions wires the configuration into a sync or watch, after
// checking that the configured model is the index's.
func (a *app) syncerOptions(ctx context.Context, w *index.Writer) (syncer.Options, error) {
	emb, err := a.embedder(ctx)
	if err != nil {
		return syncer.Options{}, err
	}
	if err := w.CheckStamp(ctx, ingest.Stamp(emb)); err != nil {
		return syncer.Options{}, err
	}
	iopts := a.ingestOptions(emb)
	iopts.Context, iopts.ContextStamp, err = a.contextualizer(ctx)
	if err != nil {
		return syncer.Options{}, err
	}
	iopts.ContextConcurrency = a.cfg.Context.Concurrency
	return syncer.Options{
		Reconcile: a.reconcileOptions(),
		Ingest:    iopts,
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

// autoFusion is how hybrid search merges the arms when the configuration
// leaves it to grimoire. The built-in embedder's vectors are a weak lexical
// signal that hurts reciprocal rank fusion at any weight that matters; as
// part of a rerank of full text's candidates they help (SciFact dev nDCG@10
// in the README). Neural models get the usual rank fusion. Without an
// embedder (a model switch under way) search is full text, which re-scoring
// by sub-words still improves.
func autoFusion(emb embed.Embedder) string {
	if emb == nil || emb.Info().Provider == "builtin" {
		return retrieve.Rerank
	}
	return retrieve.RRF
}

func (a *app) reconcileOptions() reconcile.Options {
	return reconcile.Options{
		Roots:       a.cfg.Library,
		Formats:     ingest.Formats(),
		MaxFileSize: a.cfg.MaxFileSize << 20,
		Logger:      a.log,
	}
}

func (a *app) ingestOptions(emb embed.Embedder) ingest.Options {
	c := a.cfg.Chunking
	chunk := c.ChunkTokens
	// Size chunks for the model: a chunk of up to 1.5 times chunk_tokens
	// (a short section kept whole), with its heading path and context, must
	// fit the model's context, with room for the token estimate's error.
	// A text that still does not fit is embedded in halves, never cut.
	if n := emb.Info().ContextLength; n > 0 && chunk*3/2+100 > n*4/5 {
		chunk = max(64, (n*4/5-100)*2/3)
		a.log.Info("chunks sized for the embedding model's context", "context", n, "chunk_tokens", chunk)
	}
	return ingest.Options{
		Chunking: ingest.Chunking{ChunkTokens: chunk, OverlapTokens: c.OverlapTokens, SectionSplitTokens: c.SectionSplitTokens},
		Embedder: emb,
		Parsers:  a.bookParsers(),
		Logger:   a.log,
	}
}

// bookParsers returns the process's one set of parsers: PDFium starts on
// the first PDF only, and then serves every run of a long-lived watch.
func (a *app) bookParsers() *ingest.Parsers {
	if a.parsers == nil {
		a.parsers = ingest.NewParsers(a.log)
	}
	return a.parsers
}

// stderrIsTerminal reports whether progress may be drawn.
func (a *app) stderrIsTerminal() bool {
	f, ok := a.stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
