// Package ingest turns pending books into searchable ones: it reads a book's
// file, parses it with the parser for its format into a document tree, lays
// the tree out as chapters, sections and chunks, adds each chunk's context,
// embeds it and stores everything in the index.
//
// Every stage picks up only the rows in the state it needs and commits in
// small batches, so a crash loses at most one batch and the next run
// continues where it stopped.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/embed"
	"github.com/grimoire-search/grimoire/ingest/markdown"
	"github.com/grimoire-search/grimoire/ingest/text"
)

// SourceType returns the source type of a path by its extension, or "" when
// grimoire does not read that kind of file.
func SourceType(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown", ".mdown", ".mkd":
		return doc.Markdown
	case ".txt", ".text":
		return doc.Text
	}
	return ""
}

// parse runs the parser for typ. A parser that panics on a hostile file
// fails that book, never the run.
func parse(ctx context.Context, typ string, data []byte) (d *doc.Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the %s parser crashed on this file: %v", typ, r)
		}
	}()
	switch typ {
	case doc.Markdown:
		// Markdown files have the encodings of text files (Windows-1252,
		// UTF-16 from Windows editors): decode the same way first.
		s, _, err := text.Decode(data)
		if err != nil {
			return nil, err
		}
		return markdown.Parse(ctx, []byte(s))
	case doc.Text:
		return text.Parse(ctx, data)
	}
	return nil, fmt.Errorf("no parser for %q files", typ)
}

// Options configure an ingest run.
type Options struct {
	Chunking Chunking
	Embedder embed.Embedder
	// EmbedBatch is the number of chunks embedded and committed together;
	// default 32.
	EmbedBatch int
	// ParseTimeout bounds the parsing of one book; default 10 minutes.
	ParseTimeout time.Duration
	// Progress, when set, is told about each book's progress.
	Progress func(Progress)
	Logger   *slog.Logger
}

// Progress reports how far an ingest run is.
type Progress struct {
	Book        string // title or file name of the book in work
	BooksDone   int
	BooksTotal  int
	ChunksDone  int // of the book in work
	ChunksTotal int
}

// Result is what an ingest run did.
type Result struct {
	Ingested int
	Failed   int
	Pruned   int
	Failures []index.Failure
}

// Stamp returns the index stamp for an embedder's model.
func Stamp(e embed.Embedder) index.Stamp {
	i := e.Info()
	return index.Stamp{Provider: i.Provider, Model: i.Model, Dim: i.Dim, Prefix: i.Prefix}
}

// Run ingests every pending or partly ingested book.
func Run(ctx context.Context, w *index.Writer, opts Options) (Result, error) {
	var res Result
	if opts.Embedder == nil {
		return res, errors.New("ingest: no embedder configured")
	}
	if opts.EmbedBatch <= 0 {
		opts.EmbedBatch = 32
	}
	if opts.ParseTimeout <= 0 {
		opts.ParseTimeout = 10 * time.Minute
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	books, err := w.BooksToIngest(ctx)
	if err != nil {
		return res, err
	}
	if len(books) == 0 {
		return res, nil
	}
	if err := w.SetStamp(ctx, Stamp(opts.Embedder)); err != nil {
		return res, err
	}
	p := &pipeline{w: w, opts: opts, log: log}
	for i, b := range books {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		p.progress = Progress{Book: b.Title, BooksDone: i, BooksTotal: len(books)}
		if err := p.book(ctx, b, &res); err != nil {
			// A reconcile running beside us (watch) prunes a book whose
			// file changed again mid-ingest; its successor is queued.
			if ctx.Err() == nil {
				if exists, xerr := w.BookExists(ctx, b.ID); xerr == nil && !exists {
					log.Info("book replaced while it was ingested", "book", b.Slug)
					continue
				}
			}
			return res, err
		}
	}
	return res, nil
}

type pipeline struct {
	w        *index.Writer
	opts     Options
	log      *slog.Logger
	progress Progress
}

func (p *pipeline) report() {
	if p.opts.Progress != nil {
		p.opts.Progress(p.progress)
	}
}

// book ingests one book. Errors about the book itself are recorded on it;
// only errors that stop the whole run (the index, the embedder) are returned.
func (p *pipeline) book(ctx context.Context, b index.Book, res *Result) error {
	if b.Status == index.Pending {
		path, data, err := readContent(b)
		if err != nil {
			// Not the book's fault: the file changed or vanished since it
			// was scanned. The next reconcile sorts it out.
			p.log.Info("book not read", "book", b.Slug, "reason", err)
			res.Failures = append(res.Failures, index.Failure{Path: path, Error: err.Error()})
			return nil
		}
		p.report()
		start := time.Now()
		pctx, cancel := context.WithTimeout(ctx, p.opts.ParseTimeout)
		d, err := parse(pctx, b.SourceType, data)
		cancel()
		if err == nil && d.Empty() && (b.SourceType == doc.PDF || b.SourceType == doc.EPUB) {
			// A book without text is worth a failure only where the user
			// can act on it (OCR a scan); an empty note is just empty.
			err = doc.ErrNoText
		}
		if errors.Is(err, doc.ErrNoText) && (b.SourceType == doc.Markdown || b.SourceType == doc.Text) {
			d, err = &doc.Document{SourceType: b.SourceType}, nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			reason := failureReason(b.SourceType, err)
			p.log.Warn("book failed", "path", path, "reason", reason)
			pruned, ferr := p.w.MarkFailed(ctx, b.ID, reason)
			if ferr != nil {
				return ferr
			}
			res.Failed++
			res.Pruned += pruned
			res.Failures = append(res.Failures, index.Failure{Path: path, Error: reason})
			return nil
		}
		title := strings.TrimSpace(d.Title)
		if title == "" {
			title = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
		laid := layout(d, title, p.opts.Chunking)
		for i := range laid.chunks {
			// Without a language model the heading path is all the context
			// there is, and it is already in Heading.
			laid.chunks[i].State = index.ChunkContextualized
		}
		meta := index.BookMeta{Title: title, Authors: d.Authors, Language: d.Language, SourceType: d.SourceType, PageCount: d.PageCount}
		if meta.SourceType == "" {
			meta.SourceType = b.SourceType
		}
		if err := p.w.StoreParsed(ctx, b.ID, meta, laid.chapters, laid.chunks); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		p.log.Debug("parsed", "path", path, "chapters", len(laid.chapters), "chunks", len(laid.chunks), "took", time.Since(start))
		b.Title = title
		b.Chunks = len(laid.chunks)
	}
	p.progress.Book = b.Title
	if err := p.embed(ctx, b); err != nil {
		return err
	}
	pruned, err := p.w.FinishBook(ctx, b.ID)
	if err != nil {
		return err
	}
	res.Ingested++
	res.Pruned += pruned
	return nil
}

// embed embeds the book's remaining chunks, one committed batch at a time.
func (p *pipeline) embed(ctx context.Context, b index.Book) error {
	p.progress.ChunksTotal = b.Chunks
	p.progress.ChunksDone = 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunks, err := p.w.ChunksToEmbed(ctx, b.ID, p.opts.EmbedBatch)
		if err != nil {
			return err
		}
		if len(chunks) == 0 {
			return nil
		}
		if p.progress.ChunksDone == 0 && b.Chunks > 0 {
			p.progress.ChunksDone = max(0, chunks[0].Index)
		}
		texts := make([]string, len(chunks))
		ids := make([]int64, len(chunks))
		for i, k := range chunks {
			texts[i] = EmbeddingText(k)
			ids[i] = k.ID
		}
		vecs, err := p.opts.Embedder.EmbedDocuments(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed %q: %w", b.Title, err)
		}
		if err := p.w.StoreEmbeddings(ctx, ids, vecs); err != nil {
			return fmt.Errorf("embed %q: %w", b.Title, err)
		}
		p.progress.ChunksDone += len(chunks)
		p.report()
	}
}

// EmbeddingText is what the embedder sees of a chunk: its heading path, its
// context when there is one, and its text.
func EmbeddingText(k index.Chunk) string {
	parts := make([]string, 0, 3)
	for _, s := range []string{k.Heading, k.Context, k.Text} {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

// readContent reads a file that holds the book's content, checking that it
// still does.
func readContent(b index.Book) (string, []byte, error) {
	if len(b.Paths) == 0 {
		return "", nil, fmt.Errorf("book %s: no file holds it any more", b.Slug)
	}
	var lastErr error
	for _, path := range b.Paths {
		data, err := os.ReadFile(path)
		if err != nil {
			lastErr = err
			continue
		}
		if index.SumBytes(data) != b.Hash {
			lastErr = fmt.Errorf("%s changed since it was scanned", path)
			continue
		}
		return path, data, nil
	}
	return b.Paths[0], nil, lastErr
}

// failureReason says why a book failed, for a person reading status.
func failureReason(typ string, err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "parsing took too long and was stopped"
	case errors.Is(err, doc.ErrNoText) && typ == doc.PDF:
		return "no text found: a scanned PDF needs OCR first (for example with ocrmypdf)"
	case errors.Is(err, doc.ErrNoText):
		return "no text found"
	}
	return err.Error()
}
