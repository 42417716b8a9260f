package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/model"
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/model/llm"
	"github.com/grimoire-search/grimoire/model/rerank"
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

// embedderOf returns the embedder that the section e configures: this
// process's own when it is its configuration's, else a new one (a command
// handed to a running watcher names the model of its own configuration).
func (a *app) embedderOf(ctx context.Context, e embeddingSection) (embed.Embedder, error) {
	if e == a.cfg.Embedding {
		return a.embedder(ctx)
	}
	return embed.New(ctx, e.config(), a.log)
}

// contextualizer returns the configured language model for Contextual
// Retrieval and its stamp, or nil when [context] provider is "none".
func (a *app) contextualizer(ctx context.Context) (*llm.Contextualizer, model.ContextStamp, error) {
	c, err := llm.New(ctx, a.cfg.llmConfig(), a.log)
	if c == nil || err != nil {
		return nil, model.ContextStamp{}, err
	}
	return c, c.Stamp(), nil
}

// openWriter takes the index's writer lock; command names this process for
// a second writer's error message.
func (a *app) openWriter(ctx context.Context, command string) (*index.Writer, error) {
	if err := a.cfg.requireFolders(ctx); err != nil {
		return nil, err
	}
	a.noteUpgrade(ctx)
	w, err := index.OpenWriter(ctx, a.cfg.DBPath, command)
	if errors.Is(err, fs.ErrPermission) && !exists(a.cfg.DBPath) {
		// The index lives in the library folder unless db_path says
		// otherwise: a library on a read-only share needs it elsewhere.
		return nil, &fault.Error{Code: fault.CodeOf(err), Msg: err.Error(),
			Hint: "set db_path in grimoire.toml (or GRIMOIRE_DB_PATH) to keep the index in a folder you can write"}
	}
	return w, err
}

// noteUpgrade says, before a writer opens an index an older grimoire
// wrote, that the command waits for the upgrade: done once, in one
// transaction, it takes a minute or more on a large library (and starts
// again if the process is stopped first).
func (a *app) noteUpgrade(ctx context.Context) {
	if !exists(a.cfg.DBPath) {
		return
	}
	r, err := index.OpenReader(ctx, a.cfg.DBPath)
	if err == nil {
		r.Close()
		return
	}
	if errors.Is(err, index.ErrOutdated) {
		fmt.Fprintf(a.stderr, "grimoire: upgrading the index %s for this version of grimoire, once; on a large library this takes a minute or more\n", a.cfg.DBPath)
	}
}

// openLibrary opens the index read-only with a searcher, checking that the
// configured model is the one whose vectors the index holds, and with the
// configured reranker.
func (a *app) openLibrary(ctx context.Context) (*retrieve.Library, func(), error) {
	if err := a.cfg.requireFolders(ctx); err != nil {
		return nil, nil, err
	}
	r, err := index.OpenReader(ctx, a.cfg.DBPath)
	if err != nil {
		return nil, nil, err
	}
	o := a.cfg.retrieveOptions()
	rr, err := rerank.New(a.cfg.rerankConfig(), a.log)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	if rr != nil {
		// Reached on the first search only: list and outline never wait on it.
		o.Reranker = rr
	}
	s, err := retrieve.Open(ctx, &r.DB, o, a.embedder, a.log)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	return &retrieve.Library{DB: &r.DB, Searcher: s}, func() { r.Close() }, nil
}

// syncerOptions wires the configuration into a sync or watch, after
// checking that the configured model is the index's.
func (a *app) syncerOptions(ctx context.Context, w *index.Writer) (syncer.Options, error) {
	emb, err := a.embedder(ctx)
	if err != nil {
		return syncer.Options{}, err
	}
	if err := w.CheckStamp(ctx, emb.Info().Stamp()); err != nil {
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

func (a *app) reconcileOptions() reconcile.Options {
	return reconcile.Options{
		Roots:       a.cfg.Library,
		Formats:     ingest.Formats(),
		MaxFileSize: a.cfg.MaxFileSize << 20,
		// Never nil: an empty list still reads calibre entries as one book.
		CalibrePrefer: append([]string{}, a.cfg.Calibre.Prefer...),
		MDBook:        true,
		Logger:        a.log,
	}
}

func (a *app) ingestOptions(emb embed.Embedder) ingest.Options {
	o := a.cfg.OCR
	return ingest.Options{
		Chunking: a.chunking(emb),
		Embedder: emb,
		Parsers:  a.bookParsers(),
		OCR: ingest.OCROptions{
			Off:         o.Enabled == "off",
			Tesseract:   o.Tesseract,
			Languages:   o.Languages,
			DPI:         o.DPI,
			Concurrency: o.Concurrency,
		},
		Logger: a.log,
	}
}

// chunking is the configured chunking, sized for emb's context.
func (a *app) chunking(emb embed.Embedder) ingest.Chunking {
	c := a.cfg.Chunking
	chunking := ingest.Chunking{ChunkTokens: c.ChunkTokens, OverlapTokens: c.OverlapTokens, SectionSplitTokens: c.SectionSplitTokens}
	n := emb.Info().ContextLength
	if sized := chunking.ForModel(n); sized != chunking {
		a.log.Info("chunks sized for the embedding model's context", "context", n, "chunk_tokens", sized.ChunkTokens)
		chunking = sized
	}
	return chunking
}

// bookParsers returns the process's one set of parsers: PDFium starts on
// the first PDF only, and then serves every run of a long-lived watch.
func (a *app) bookParsers() *ingest.Parsers {
	if a.parsers == nil {
		a.parsers = ingest.NewParsers(a.log)
	}
	return a.parsers
}
