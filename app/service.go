// Package app is grimoire's application service: built once from the
// configuration, it holds the models, the parsers and the options every
// package takes, and runs the operations that change the index (sync,
// watch, delete, lifting an exclusion, reindex, rebuild) with this
// process's writer or, when a watcher holds it, by handing them to that
// watcher, whose loop runs the same operations. The CLI turns flags into
// an operation and prints its typed result.
package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/handoff"
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

// Settings are the configuration as the packages take it.
type Settings struct {
	// Library is the library's folders; DBPath the index.
	Library []string
	DBPath  string
	// MaxFileSize is the largest file read, in bytes.
	MaxFileSize int64
	Embedding   Embedding
	// Context is the language model that writes chunk contexts, with the
	// number of its requests in flight.
	Context            llm.Config
	ContextConcurrency int
	Rerank             rerank.Config
	Retrieval          retrieve.Options
	// Chunking is the configured chunking, before it is sized for the
	// embedding model's context.
	Chunking ingest.Chunking
	OCR      ingest.OCROptions
	// CalibrePrefer orders the formats of a calibre entry.
	CalibrePrefer []string
	// ZoteroBaseDir is Zotero's base directory for linked attachments.
	ZoteroBaseDir string
	// Watch is the watcher's debounce and rescan interval.
	Watch watcher.Options
}

// Embedding is the [embedding] section of the configuration, as it also
// travels with a reindex handed to a watcher.
type Embedding struct {
	Provider       string `mapstructure:"provider" json:"provider"`
	Model          string `mapstructure:"model" json:"model"`
	URL            string `mapstructure:"url" json:"url"`
	APIKeyEnv      string `mapstructure:"api_key_env" json:"api_key_env"`
	QueryPrefix    string `mapstructure:"query_prefix" json:"query_prefix"`
	DocumentPrefix string `mapstructure:"document_prefix" json:"document_prefix"`
}

// Config is the section as package embed takes it. Either prefix set
// replaces both of the model family's.
func (e Embedding) Config() embed.Config {
	var prefixes *embed.Prefixes
	if e.QueryPrefix != "" || e.DocumentPrefix != "" {
		prefixes = &embed.Prefixes{Query: e.QueryPrefix, Document: e.DocumentPrefix}
	}
	return embed.Config{Provider: e.Provider, Model: e.Model, URL: e.URL, APIKeyEnv: e.APIKeyEnv, Prefixes: prefixes}
}

// Front is what the service needs of the program in front of it: where it
// says what the user waits for, how a command handed to a watcher is shown
// while it waits, and how the progress of work done for another process is
// sent back to it.
type Front interface {
	// CheckFolders checks, before the index is opened, that the library's
	// folders and the index's are there to be read.
	CheckFolders(ctx context.Context) error
	// Note says something the user waits for, on a line of its own.
	Note(msg string)
	// HandingOver shows the wait for h doing this process's command: on
	// hears the hand-off's events, and done ends the showing.
	HandingOver(h index.LockHolder) (on func(handoff.Event), done func())
	// Relay is the progress of work this process does for another, which
	// rep carries back to it.
	Relay(rep *handoff.Reporter) Progress
}

// Progress hears a long step: counted in nouns, or an ingest's books.
type Progress interface {
	Counted(step string, done, total int, noun string)
	Ingest(ingest.Progress)
}

// Service runs grimoire's operations for one process.
type Service struct {
	set   Settings
	log   *slog.Logger
	front Front

	emb     embed.Embedder  // once connected
	parsers *ingest.Parsers // once a sync or watch needs them

	// mu guards ingesting: the options the writer's ingest rounds run
	// with, which a reindex handed to a watch switches to its new model.
	mu        sync.Mutex
	ingesting ingest.Options
}

// New returns the service of the settings s; log may be nil.
func New(s Settings, log *slog.Logger, front Front) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{set: s, log: log, front: front}
}

// Close frees what the parsers hold (PDFium's memory).
func (s *Service) Close() {
	if s.parsers != nil {
		s.parsers.Close()
		s.parsers = nil
	}
}

// Embedder returns the configured embedding model, connecting to its
// server once per process.
func (s *Service) Embedder(ctx context.Context) (embed.Embedder, error) {
	if s.emb == nil {
		emb, err := embed.New(ctx, s.set.Embedding.Config(), s.log)
		if err != nil {
			return nil, err
		}
		s.emb = emb
	}
	return s.emb, nil
}

// embedderOf returns the embedder that the section e configures: this
// process's own when it is its configuration's, else a new one (a command
// handed to a running watcher names the model of its own configuration).
func (s *Service) embedderOf(ctx context.Context, e Embedding) (embed.Embedder, error) {
	if e == s.set.Embedding {
		return s.Embedder(ctx)
	}
	return embed.New(ctx, e.Config(), s.log)
}

// contextualizer returns the configured language model for Contextual
// Retrieval and its stamp, or nil when [context] provider is "none".
func (s *Service) contextualizer(ctx context.Context) (*llm.Contextualizer, model.ContextStamp, error) {
	c, err := llm.New(ctx, s.set.Context, s.log)
	if c == nil || err != nil {
		return nil, model.ContextStamp{}, err
	}
	return c, c.Stamp(), nil
}

// openWriter takes the index's writer lock, once Front.CheckFolders has
// passed; command names this process for a second writer's error message.
func (s *Service) openWriter(ctx context.Context, command string) (*index.Writer, error) {
	if err := s.front.CheckFolders(ctx); err != nil {
		return nil, err
	}
	s.noteUpgrade(ctx)
	w, err := index.OpenWriter(ctx, s.set.DBPath, command)
	if errors.Is(err, fs.ErrPermission) && !exists(s.set.DBPath) {
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
func (s *Service) noteUpgrade(ctx context.Context) {
	if !exists(s.set.DBPath) {
		return
	}
	r, err := index.OpenReader(ctx, s.set.DBPath)
	if err == nil {
		r.Close()
		return
	}
	if errors.Is(err, index.ErrOutdated) {
		s.front.Note(fmt.Sprintf("upgrading the index %s for this version of grimoire, once; on a large library this takes a minute or more", s.set.DBPath))
	}
}

// OpenLibrary opens the index read-only with a searcher, checking that the
// configured model is the one whose vectors the index holds, and with the
// configured reranker.
func (s *Service) OpenLibrary(ctx context.Context) (*retrieve.Library, func(), error) {
	if err := s.front.CheckFolders(ctx); err != nil {
		return nil, nil, err
	}
	r, err := index.OpenReader(ctx, s.set.DBPath)
	if err != nil {
		return nil, nil, err
	}
	o := s.set.Retrieval
	rr, err := rerank.New(s.set.Rerank, s.log)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	if rr != nil {
		// Reached on the first search only: list and outline never wait on it.
		o.Reranker = rr
	}
	sr, err := retrieve.Open(ctx, &r.DB, o, s.Embedder, s.log)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	return &retrieve.Library{DB: &r.DB, Searcher: sr}, func() { r.Close() }, nil
}

// Listener hears a sync or a watch as it goes; any field may be nil.
type Listener struct {
	// Started: the pass starts in this process (it was not handed to a
	// watcher).
	Started func()
	// Ended: the pass that started here is over; what follows it (a
	// rebuild's swap) is not heard.
	Ended func()
	// Hashing hears the reconcile's hashing, Changed each change it makes.
	Hashing func(done, total int)
	Changed func(reconcile.Change)
	// Ingesting hears ingest's progress, Ingested each book it ends.
	Ingesting func(ingest.Progress)
	Ingested  func(ingest.Outcome)
}

// syncerOptions wires the configuration into a sync or watch heard by l,
// after checking that the configured model is the index's.
func (s *Service) syncerOptions(ctx context.Context, w *index.Writer, l Listener) (syncer.Options, error) {
	emb, err := s.Embedder(ctx)
	if err != nil {
		return syncer.Options{}, err
	}
	if err := w.CheckStamp(ctx, emb.Info().Stamp()); err != nil {
		return syncer.Options{}, err
	}
	iopts := s.ingestOptions(emb)
	iopts.Context, iopts.ContextStamp, err = s.contextualizer(ctx)
	if err != nil {
		return syncer.Options{}, err
	}
	iopts.ContextConcurrency = s.set.ContextConcurrency
	s.mu.Lock()
	s.ingesting = iopts
	s.mu.Unlock()
	ro := s.reconcileOptions()
	if l.Hashing != nil {
		ro.Progress = l.Hashing
	}
	ro.Changed = l.Changed
	return syncer.Options{
		Reconcile: ro,
		Ingest:    s.ingest(l),
		Watch:     s.set.Watch,
		Logger:    s.log,
	}, nil
}

// ingest is an ingest round with the writer's current options, heard by l.
func (s *Service) ingest(l Listener) syncer.Ingest {
	return func(ctx context.Context, w *index.Writer, r syncer.Round) (ingest.Result, error) {
		s.mu.Lock()
		o := s.ingesting
		s.mu.Unlock()
		o.Settle = r.Settle
		o.Progress = both(r.Progress, l.Ingesting)
		o.Finished = l.Ingested
		return ingest.Run(ctx, w, o)
	}
}

// switchModel has the writer's ingest rounds embed with emb from now on:
// the index holds its vectors.
func (s *Service) switchModel(emb embed.Embedder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ingesting.Embedder == nil || s.ingesting.Embedder.Info().Stamp() == emb.Info().Stamp() {
		return
	}
	s.ingesting.Embedder, s.ingesting.Chunking = emb, s.chunking(emb)
}

func both(f, g func(ingest.Progress)) func(ingest.Progress) {
	switch {
	case f == nil:
		return g
	case g == nil:
		return f
	}
	return func(p ingest.Progress) {
		f(p)
		g(p)
	}
}

func (s *Service) reconcileOptions() reconcile.Options {
	return reconcile.Options{
		Roots:       s.set.Library,
		Formats:     ingest.Formats(),
		MaxFileSize: s.set.MaxFileSize,
		// Never nil: an empty list still reads calibre entries as one book.
		CalibrePrefer: append([]string{}, s.set.CalibrePrefer...),
		MDBook:        true,
		Zotero:        true,
		ZoteroBaseDir: s.set.ZoteroBaseDir,
		Logger:        s.log,
	}
}

func (s *Service) ingestOptions(emb embed.Embedder) ingest.Options {
	return ingest.Options{
		ZoteroBaseDir: s.set.ZoteroBaseDir,
		Chunking:      s.chunking(emb),
		Embedder:      emb,
		Parsers:       s.bookParsers(),
		OCR:           s.set.OCR,
		Logger:        s.log,
	}
}

// chunking is the configured chunking, sized for emb's context.
func (s *Service) chunking(emb embed.Embedder) ingest.Chunking {
	chunking := s.set.Chunking
	n := emb.Info().ContextLength
	if sized := chunking.ForModel(n); sized != chunking {
		s.log.Info("chunks sized for the embedding model's context", "context", n, "chunk_tokens", sized.ChunkTokens)
		chunking = sized
	}
	return chunking
}

// bookParsers returns the process's one set of parsers: PDFium starts on
// the first PDF only, and then serves every run of a long-lived watch.
func (s *Service) bookParsers() *ingest.Parsers {
	if s.parsers == nil {
		s.parsers = ingest.NewParsers(s.log)
	}
	return s.parsers
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
