// Package ingest turns pending books into searchable ones: it reads a book's
// file, parses it with the parser for its format (Formats is the registry
// of the formats grimoire reads) into a document tree, lays the tree out as
// chapters, sections and chunks, adds each chunk's context, embeds it and
// stores everything in the index.
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
	"math"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/libfile"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model"
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/model/llm"
	"github.com/grimoire-search/grimoire/source"
	"github.com/grimoire-search/grimoire/subword"
)

// Options configure an ingest run.
type Options struct {
	// ZoteroBaseDir resolves the linked files of a Zotero library stored
	// relative to Zotero's base directory, as the walk did.
	ZoteroBaseDir string
	Chunking      Chunking
	Embedder      embed.Embedder
	// Context, when set, writes each chunk's situating context with a
	// language model (Contextual Retrieval); nil keeps the heading path
	// as the only context.
	Context *llm.Contextualizer
	// ContextStamp names Context's model and prompts, for the index.
	ContextStamp model.ContextStamp
	// ContextConcurrency bounds the requests to the language model in
	// flight; default DefaultContextConcurrency.
	ContextConcurrency int
	// Parsers read the books. A caller that runs ingest repeatedly
	// (watch) keeps one for all runs, so that PDFium starts once; when
	// nil, a run makes its own and closes it at the end.
	Parsers *Parsers
	// EmbedBatch is the number of chunks embedded and committed together;
	// default 32.
	EmbedBatch int
	// ParseTimeout bounds the parsing of one book; default 10 minutes.
	ParseTimeout time.Duration
	// OCR configures the reading of scanned pages.
	OCR OCROptions
	// Settle is the quiet window of a watch: a book whose file cannot be
	// read or parsed, and was modified less than Settle ago, is taken to
	// be still being written (a slow copy), not damaged. It stays pending
	// and is listed in Result.Unsettled. 0 (a one-shot sync) keeps only
	// the other rule: a file changed since it was scanned never fails.
	Settle time.Duration
	// Progress, when set, is told about each book's progress: each stage
	// as it starts, and each batch of chunks. It is called from the run's
	// goroutine.
	Progress func(Progress)
	// Finished, when set, is told of each book that is ready or failed,
	// once it is stored, and of each book that could not be read.
	Finished func(Outcome)
	Logger   *slog.Logger
}

// DefaultContextConcurrency is how many requests a run keeps in flight to
// the language model that writes chunk contexts, unless told otherwise.
const DefaultContextConcurrency = 2

// Progress reports how far an ingest run is.
type Progress struct {
	Book  string // title or file name of the book in work
	Stage Stage
	// Format is the book's format while it is parsed, and the format whose
	// parser starts (StageStarting).
	Format     string
	Size       int64 // of the book in work, in bytes
	BooksDone  int
	BooksTotal int
	// BytesDone and BytesTotal measure the run by the size of its books'
	// files: those done, and the share of the book in work that is
	// embedded. They make a steadier measure than books, which differ in
	// size by a thousand times.
	BytesDone   int64
	BytesTotal  int64
	ChunksDone  int // of the book in work
	ChunksTotal int
	// PagesDone and PagesTotal count the scanned pages of the book in
	// work that OCR has read (StageOCR), those read in earlier runs
	// included; PagesPerMinute is this run's pace, 0 until a page is done.
	PagesDone      int
	PagesTotal     int
	PagesPerMinute float64
}

// Stage is what a run is doing.
type Stage string

const (
	// StageStarting: the parser of Format starts, which takes a while
	// the first time (PDFium, on the first PDF a process reads).
	StageStarting Stage = "starting"
	StageParsing  Stage = "parsing"
	// StageOCR: OCR reads the book's scanned pages, after the books that
	// need none.
	StageOCR Stage = "recognising"
	// StageContexts: a language model writes the chunks' contexts.
	StageContexts  Stage = "contexts"
	StageEmbedding Stage = "embedding"
	// StageStatistics: the run is over; the index's statistics are
	// brought up to date.
	StageStatistics Stage = "statistics"
)

// Outcome is what became of a book in a run.
type Outcome struct {
	// Book is the book as the index holds it now (its slug, title, chunk
	// count and paths); a book that failed, as it was.
	Book library.Book
	// Replaced: the book took the place of the older version of its file,
	// which is gone now (an edited file).
	Replaced bool
	// NeedsOCR, when set, says why the book's scanned pages wait for OCR
	// (tesseract missing, with how to install it); the book stays pending.
	NeedsOCR string
	// Failures say why the book failed or was not read; none when it is
	// ready. A book not read is still pending: the next reconcile looks
	// at its file again.
	Failures []library.Failure
}

// Result is what an ingest run did.
type Result struct {
	Ingested int
	Failed   int
	Pruned   int
	// NeedOCR counts the books whose scanned pages wait for OCR: no
	// tesseract, OCR off, or a language it lacks. They stay pending.
	NeedOCR int
	// PagesRecognised counts the pages OCR read.
	PagesRecognised int
	Failures        []library.Failure
	// Unsettled are the files left pending because they were still being
	// written (see Options.Settle); SettleAt is the earliest time one of
	// them will have been quiet for Settle, zero when a change already on
	// its way to the watcher will bring them back.
	Unsettled []string
	SettleAt  time.Time
}

// Run ingests every pending or partly ingested book.
func Run(ctx context.Context, w *index.Writer, opts Options) (Result, error) {
	res, err := run(ctx, w, opts)
	if err == nil {
		// Passages stored by a grimoire that did not classify them get
		// their roles and copy signatures.
		_, err = w.Classify(ctx)
	}
	if err == nil {
		// Sections stored by a grimoire that kept their text twice get
		// it stored once.
		_, err = w.LayOutSections(ctx)
	}
	if err == nil {
		// Books made ready before the index kept postings of its own
		// get theirs; until every ready book has them, searches rank
		// with FTS5 alone.
		_, err = w.WritePostings(ctx)
	}
	if err == nil {
		err = subword.Refresh(ctx, w)
	}
	if err == nil {
		err = w.RefreshCommonTerms(ctx)
	}
	return res, err
}

func run(ctx context.Context, w *index.Writer, opts Options) (Result, error) {
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
	if opts.ContextConcurrency <= 0 {
		opts.ContextConcurrency = DefaultContextConcurrency
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	books, err := w.BooksToIngest(ctx)
	if err != nil {
		return res, err
	}
	unread, err := w.ReadyWithScansUnread(ctx)
	if err != nil {
		return res, err
	}
	if len(books) == 0 && len(unread) == 0 {
		return res, nil
	}
	if err := w.SetStamp(ctx, opts.Embedder.Info().Stamp()); err != nil {
		return res, err
	}
	if opts.Context != nil {
		if old, ok, err := w.ContextStamp(ctx); err != nil {
			return res, err
		} else if ok && old != opts.ContextStamp {
			log.Warn("contexts already stored were written by another model or prompt; they are kept, new ones use the configured one",
				"stored", old.Provider+"/"+old.Model+" "+old.Prompt, "now", opts.ContextStamp.Provider+"/"+opts.ContextStamp.Model+" "+opts.ContextStamp.Prompt)
		}
		if err := w.SetContextStamp(ctx, opts.ContextStamp); err != nil {
			return res, err
		}
	}
	if opts.Parsers == nil {
		opts.Parsers = NewParsers(log)
		// A failed close only leaves memory to the garbage collector:
		// the run's work is stored.
		defer opts.Parsers.Close()
	}
	p := &pipeline{w: w, opts: opts, formats: Formats(), log: log, res: &res, tried: map[int64]bool{}}
	p.reader = &source.Reader{Options: source.Options{Zotero: true, ZoteroBaseDir: opts.ZoteroBaseDir}, TypeOf: p.formats.TypeOf}
	p.opts.OCR = p.opts.OCR.withDefaults()
	var total int64
	for _, b := range books {
		total += b.Size
	}
	p.booksTotal, p.bytesTotal = len(books), total
	if err := p.takeUpReadBooks(ctx, unread); err != nil {
		return res, err
	}
	if err := p.books(ctx, books); err != nil {
		return res, err
	}
	// Scans last: OCR takes minutes a book, and gives way to books that
	// come meanwhile (scan.go).
	if err := p.recogniseAll(ctx); err != nil {
		return res, err
	}
	p.progress = Progress{Stage: StageStatistics, BooksDone: p.booksDone, BooksTotal: p.booksTotal, BytesDone: p.bytesTotal, BytesTotal: p.bytesTotal}
	p.report()
	return res, nil
}

// books ingests books in order, and stores the small ones left in the
// batch. A book whose scanned pages OCR is to read is put aside in
// p.scans.
func (p *pipeline) books(ctx context.Context, books []library.Book) error {
	for _, b := range books {
		if err := ctx.Err(); err != nil {
			return err
		}
		p.tried[b.ID] = true
		p.progress = Progress{Book: b.Title, Size: b.Size, BooksDone: p.booksDone, BooksTotal: p.booksTotal, BytesDone: p.doneBytes, BytesTotal: p.bytesTotal}
		err := p.book(ctx, b)
		if !errors.Is(err, errScan) {
			p.doneBytes += b.Size
			p.booksDone++
		}
		if err != nil && !errors.Is(err, errScan) {
			if p.vanished(ctx, b) {
				continue
			}
			return err
		}
	}
	return p.flush(ctx)
}

type pipeline struct {
	w       *index.Writer
	opts    Options
	formats Registry
	// reader reads the books' bytes, each Zotero library from one copy.
	reader   *source.Reader
	log      *slog.Logger
	progress Progress
	// doneBytes is the size of the books the run is done with, of
	// bytesTotal; booksDone of booksTotal likewise.
	doneBytes             int64
	bytesTotal            int64
	booksDone, booksTotal int
	res                   *Result
	// tried are the books this run has taken up; scans are the books put
	// aside for OCR, in order.
	tried map[int64]bool
	scans []library.Book
	// ocr is the tesseract found for this run, once looked for.
	ocr *ocrState
	// batch holds small books, parsed and embedded, that are stored
	// together in one transaction: most of the cost of a small book is
	// the transactions, not the work.
	batch       []prepared
	batchChunks int
}

// prepared is a small book ready to be stored whole.
type prepared struct {
	book   library.Book
	meta   index.BookMeta
	layout book
	// vecs are the chunks' vectors: those a rebuild salvaged until the
	// book is embedded (nil entries for the rest), then all of them.
	vecs [][]float32
	// catalog is what a calibre entry says of the book, if one holds it,
	// else what the book's file says; nil while calibre's cannot be read.
	catalog *library.CatalogEntry
	// scan, when set, says the book has scanned pages OCR has not read
	// yet; nothing else is set then but book.
	scan *scan
	// unread, when set, says the book is laid out without scanned pages
	// that OCR cannot read yet.
	unread *scansUnread
}

// scansUnread are a book's scanned pages left unread, and why.
type scansUnread struct {
	pages int
	why   string
}

// report tells Options.Progress where the run is, counting the embedded
// share of the book in work towards BytesDone.
func (p *pipeline) report() {
	if p.opts.Progress == nil {
		return
	}
	pr := p.progress
	if pr.ChunksTotal > 0 && pr.Stage == StageEmbedding {
		pr.BytesDone += pr.Size * int64(min(pr.ChunksDone, pr.ChunksTotal)) / int64(pr.ChunksTotal)
	}
	p.opts.Progress(pr)
}

// at reports that the book in work has reached stage.
func (p *pipeline) at(stage Stage) {
	p.progress.Stage = stage
	p.report()
}

// finished tells Options.Finished that book id is stored, ready.
// replaced: it took its old version's place.
func (p *pipeline) finished(ctx context.Context, id int64, replaced bool) {
	if p.opts.Finished == nil {
		return
	}
	// The book is stored: a stop asked for meanwhile must not keep it
	// from being told of.
	b, err := p.w.BookByID(context.WithoutCancel(ctx), id)
	if err != nil {
		// Pruned meanwhile by a reconcile beside the run: its successor
		// is queued and will be told of.
		return
	}
	p.opts.Finished(Outcome{Book: b, Replaced: replaced})
}

// failed tells Options.Finished that book b failed or was not read.
func (p *pipeline) failed(b library.Book, failures []library.Failure) {
	if p.opts.Finished != nil {
		p.opts.Finished(Outcome{Book: b, Failures: failures})
	}
}

// vanished reports whether a book disappeared under us: a reconcile running
// beside ingest (watch) prunes a book whose file was removed, or changed
// again mid-ingest (its successor is queued).
func (p *pipeline) vanished(ctx context.Context, b library.Book) bool {
	if ctx.Err() != nil {
		return false
	}
	exists, err := p.w.BookExists(ctx, b.ID)
	if err == nil && !exists {
		p.log.Info("book removed or replaced while it was ingested", "book", b.Slug)
		return true
	}
	return false
}

// book ingests one book. Errors about the book itself are recorded on it;
// only errors that stop the whole run (the index, the embedder) are returned.
func (p *pipeline) book(ctx context.Context, b library.Book) error {
	if b.Status == library.Pending {
		if wait, err := p.stillWaiting(ctx, b); err != nil || wait {
			return err
		}
		pr, err := p.parse(ctx, b)
		if err != nil || pr == nil {
			return err
		}
		if pr.scan != nil {
			return p.scanned(ctx, b, pr.scan)
		}
		return p.store(ctx, b, *pr)
	}
	return p.finish(ctx, b, nil)
}

// store stores a parsed book, and embeds it: a small one in the next
// batch, a large one at once.
func (p *pipeline) store(ctx context.Context, b library.Book, pr prepared) error {
	if p.opts.Context == nil && len(pr.layout.chunks) <= p.opts.EmbedBatch {
		return p.addSmall(ctx, pr)
	}
	var pre *ahead
	if p.opts.Context == nil {
		// The vectors are worked out while the index writes the chunks:
		// on two cores or more, embedding then costs no time of its own.
		pre = embedAhead(ctx, p.opts.Embedder, pr, p.opts.EmbedBatch)
	}
	if err := p.w.Update(ctx, func(t *index.Tx) error { return storeParsed(ctx, t, pr) }); err != nil {
		pre.discard()
		return fmt.Errorf("%s: %w", b.Title, err)
	}
	b.Title, b.Chunks = pr.meta.Title, len(pr.layout.chunks)
	return p.finish(ctx, b, pre)
}

// finish writes the contexts and vectors of a parsed book, and makes it
// ready; pre, when set, is its vectors being worked out ahead.
func (p *pipeline) finish(ctx context.Context, b library.Book, pre *ahead) error {
	p.progress.Book = b.Title
	if p.opts.Context != nil {
		if err := p.contextualize(ctx, b); err != nil {
			return err
		}
	}
	if err := p.embed(ctx, b, pre); err != nil {
		return err
	}
	pruned, err := p.w.FinishBook(ctx, b.ID)
	if err != nil {
		return err
	}
	p.res.Ingested++
	p.res.Pruned += pruned
	p.finished(ctx, b.ID, pruned > 0)
	return nil
}

// parse reads and parses a pending book and lays it out. A book that fails
// is recorded as failed and nil is returned without an error.
func (p *pipeline) parse(ctx context.Context, b library.Book) (*prepared, error) {
	files, err := p.w.FilesOf(ctx, b.Hash)
	if err != nil {
		return nil, err
	}
	path, data, err := readContent(ctx, p.reader, b, files)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if p.opts.Settle > 0 && p.unsettled(b, files, path) {
			return nil, nil
		}
		// Not the book's fault: the file changed or vanished since it
		// was scanned. The next reconcile sorts it out. The run's
		// failures report it; the log only traces it.
		p.log.Debug("book not read", "book", b.Slug, "reason", err)
		f := library.Failure{Path: path, Error: err.Error()}
		p.res.Failures = append(p.res.Failures, f)
		p.failed(b, []library.Failure{f})
		return nil, nil
	}
	recognised, err := p.w.OCRPages(ctx, b.Hash)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	d, typ, failures := p.parseAny(ctx, b, files, data, texts(recognised))
	if d == nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		reason := failures[0].Error
		if len(failures) > 1 {
			parts := make([]string, len(failures))
			for i, f := range failures {
				parts[i] = filepath.Base(f.Path) + ": " + f.Error
			}
			reason = strings.Join(parts, "; ")
		}
		for _, f := range failures {
			// The run's failures report it; the log only traces it.
			p.log.Debug("book failed", "path", f.Path, "reason", f.Error)
		}
		if p.unsettled(b, files, path) {
			return nil, nil
		}
		pruned, ferr := p.w.MarkFailed(ctx, b.ID, reason)
		if ferr != nil {
			return nil, ferr
		}
		p.res.Failed++
		p.res.Pruned += pruned
		p.res.Failures = append(p.res.Failures, failures...)
		p.failed(b, failures)
		return nil, nil
	}
	path = pathOfType(files, typ, path)
	var unread *scansUnread
	if missing := unreadPages(d.Scanned, recognised); len(missing) > 0 {
		// A book with text besides its scans is read without them when
		// OCR cannot run, as it was before OCR: a plate or a scanned
		// figure should not keep a book out of searches.
		why := p.whyNoOCR(ctx, typ)
		if d.Empty() || why == "" {
			return &prepared{book: b, scan: &scan{path: path, typ: typ, data: data, pages: len(d.Scanned), missing: missing, language: d.Language}}, nil
		}
		// Recorded as waiting: once OCR can run, a later run reads the
		// pages and lays the book out again.
		p.log.Warn("scanned pages left unread for now: no OCR", "path", path, "pages", len(missing), "reason", why)
		unread = &scansUnread{pages: len(d.Scanned), why: why}
	}
	cat, inCatalog, inCalibre := catalogOf(ctx, files)
	if inCatalog {
		// calibre's description is the one its user keeps.
		if cat.Title != "" {
			d.Title = cat.Title
		}
		if len(cat.Authors) > 0 {
			d.Authors = cat.Authors
		}
		if cat.Language != "" {
			d.Language = cat.Language
		}
	}
	title := clipTitle(d.Title)
	if title == "" {
		title = clipTitle(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	}
	laid := layout(d, title, p.opts.Chunking)
	if p.opts.Context == nil {
		for i := range laid.chunks {
			// Without a language model the heading path is all the
			// context there is, and it is already in Heading.
			laid.chunks[i].State = library.ChunkContextualized
		}
	}
	meta := index.BookMeta{Title: title, Authors: d.Authors, Language: d.Language, SourceType: typ, PageCount: d.PageCount, PageLabels: d.PageLabels}
	// A rebuild hands back the contexts and vectors the old index held for
	// chunks that came out the same, and so does the content a changed
	// file held before: the models are not asked again.
	stamp := p.opts.Embedder.Info().Stamp()
	vecs, err := p.w.Salvaged(ctx, b.Hash, laid.chunks, stamp)
	if err == nil && vecs == nil {
		vecs, err = p.w.Carried(ctx, b.Replaces, laid.chunks, stamp)
	}
	if err != nil {
		return nil, err
	}
	p.log.Debug("parsed", "path", path, "as", typ, "chapters", len(laid.chapters), "chunks", len(laid.chunks), "took", time.Since(start))
	pr := &prepared{book: b, meta: meta, layout: laid, vecs: vecs, unread: unread}
	switch {
	case inCatalog:
		pr.catalog = &cat
	case !inCalibre:
		pr.catalog = fileCatalog(d.Catalog)
	}
	return pr, nil
}

// unsettled reports whether a book that could not be read or parsed is a
// file still being written rather than a damaged one: a file of it is no
// longer as the scan saw it, or was modified within Settle. Such a book
// stays pending: the watcher hands on the file's change, or, for a file
// only recently modified, the watch tries it again once it has been quiet
// for Settle (Result.SettleAt), when it fails for good if it still cannot
// be read. Without Settle (sync), a changed file is not read, as when
// readContent finds it changed.
func (p *pipeline) unsettled(b library.Book, files []library.File, path string) bool {
	now := time.Now()
	changed, quietAt := false, time.Time{}
	for _, f := range files {
		same, modTime, ok := source.Now(f)
		if !ok {
			continue
		}
		if !same {
			changed, path = true, f.Path
			continue
		}
		if at := modTime.Add(p.opts.Settle); at.After(now) && (quietAt.IsZero() || at.Before(quietAt)) {
			quietAt, path = at, f.Path
		}
	}
	switch {
	case p.opts.Settle <= 0 && changed:
		f := library.Failure{Path: path, Error: "not read: changed since it was scanned; the next sync looks at it again"}
		p.res.Failures = append(p.res.Failures, f)
		p.failed(b, []library.Failure{f})
		return true
	case p.opts.Settle <= 0 || (!changed && quietAt.IsZero()):
		return false
	}
	p.log.Debug("book not read yet: its file is still being written", "book", b.Slug, "path", path)
	p.res.Unsettled = append(p.res.Unsettled, path)
	if !changed && (p.res.SettleAt.IsZero() || quietAt.Before(p.res.SettleAt)) {
		p.res.SettleAt = quietAt
	}
	return true
}

// storeParsed stores a parsed book and the vectors it already has.
func storeParsed(ctx context.Context, t *index.Tx, pr prepared) error {
	ids, err := t.StoreParsed(ctx, pr.book.ID, pr.meta, pr.layout.chapters, pr.layout.chunks)
	switch {
	case err != nil:
	case pr.unread != nil:
		err = t.NeedOCR(ctx, pr.book.Hash, pr.unread.pages, pr.unread.why)
	default:
		err = t.OCRDone(ctx, pr.book.Hash)
	}
	if err == nil && pr.catalog != nil {
		_, err = t.SetCatalog(ctx, pr.book.Hash, *pr.catalog)
	}
	if err != nil || pr.vecs == nil {
		return err
	}
	var have []int64
	var vecs [][]float32
	for i, v := range pr.vecs {
		if v != nil {
			have, vecs = append(have, ids[i]), append(vecs, v)
		}
	}
	return t.StoreEmbeddings(ctx, have, vecs)
}

// parseAny parses a book's bytes as each format its paths name in turn
// (see Registry.order), and returns the first document that comes out with
// its format. When none does, it returns one failure per format, on a path
// of that format: no path is blamed for another's format.
func (p *pipeline) parseAny(ctx context.Context, b library.Book, files []library.File, data []byte, recognised map[int]string) (*doc.Document, string, []library.Failure) {
	var failures []library.Failure
	for _, typ := range p.formats.order(files, b.SourceType) {
		f, _ := p.formats.lookup(typ) // zero for a type no format has, which Parse refuses
		p.progress.Format = typ
		if f.hasMagic(data) {
			// A slow start (PDFium compiling) is a stage of its own, not
			// a part of this book's parse and its time limit. A file that
			// is not of the format does not start it.
			p.opts.Parsers.Start(ctx, typ, func() { p.at(StageStarting) })
		}
		p.at(StageParsing)
		pctx, cancel := context.WithTimeout(ctx, p.opts.ParseTimeout)
		d, err := p.opts.Parsers.Parse(pctx, typ, data, recognised)
		cancel()
		if err == nil && d.Empty() && len(d.Scanned) == 0 && f.EmptyFails {
			err = doc.ErrNoText
		}
		if errors.Is(err, doc.ErrNoText) && !f.EmptyFails {
			d, err = &doc.Document{SourceType: typ}, nil
		}
		if err == nil {
			return d, typ, nil
		}
		if ctx.Err() != nil {
			return nil, "", nil
		}
		failures = append(failures, library.Failure{Path: pathOfType(files, typ, files[0].Path), Error: failureReason(f, err)})
	}
	return nil, "", failures
}

// pathOfType returns the first of files whose row is of type typ, or
// fallback.
func pathOfType(files []library.File, typ, fallback string) string {
	for _, f := range files {
		if f.SourceType == typ {
			return f.Path
		}
	}
	return fallback
}

// addSmall embeds a small book and queues it for the next batch.
func (p *pipeline) addSmall(ctx context.Context, pr prepared) error {
	if pr.vecs == nil {
		pr.vecs = make([][]float32, len(pr.layout.chunks))
	}
	var texts []string
	var at []int
	for i, k := range pr.layout.chunks {
		if pr.vecs[i] == nil {
			texts, at = append(texts, EmbeddingText(k)), append(at, i)
		}
	}
	if len(texts) > 0 {
		p.progress.Book = pr.meta.Title
		p.progress.ChunksDone, p.progress.ChunksTotal = 0, len(pr.layout.chunks)
		p.at(StageEmbedding)
		vecs, err := EmbedAll(ctx, p.opts.Embedder, texts)
		if err != nil {
			return fmt.Errorf("embed %q: %w", pr.meta.Title, err)
		}
		for j, i := range at {
			pr.vecs[i] = vecs[j]
		}
		p.progress.ChunksDone = len(pr.layout.chunks)
		p.report()
	}
	p.batch = append(p.batch, pr)
	p.batchChunks += len(pr.layout.chunks)
	if p.batchChunks >= 4*p.opts.EmbedBatch || len(p.batch) >= 64 {
		return p.flush(ctx)
	}
	return nil
}

// flush stores the queued small books, each whole, in one transaction. If
// the transaction fails (a book pruned meanwhile), the books are stored one
// by one so that the others still land.
func (p *pipeline) flush(ctx context.Context) error {
	if len(p.batch) == 0 {
		return nil
	}
	batch := p.batch
	p.batch, p.batchChunks = nil, 0
	store := func(t *index.Tx, pr prepared) (int, error) {
		if err := storeParsed(ctx, t, pr); err != nil {
			return 0, err
		}
		return t.FinishBook(ctx, pr.book.ID)
	}
	pruned := make([]int, len(batch))
	err := p.w.Update(ctx, func(t *index.Tx) error {
		for i, pr := range batch {
			n, err := store(t, pr)
			if err != nil {
				return err
			}
			pruned[i] = n
		}
		return nil
	})
	if err == nil {
		p.res.Ingested += len(batch)
		for i, pr := range batch {
			p.res.Pruned += pruned[i]
			p.finished(ctx, pr.book.ID, pruned[i] > 0)
		}
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, pr := range batch {
		var n int
		err := p.w.Update(ctx, func(t *index.Tx) error {
			var err error
			n, err = store(t, pr)
			return err
		})
		if err != nil {
			if p.vanished(ctx, pr.book) {
				continue
			}
			return fmt.Errorf("%s: %w", pr.meta.Title, err)
		}
		p.res.Ingested++
		p.res.Pruned += n
		p.finished(ctx, pr.book.ID, n > 0)
	}
	return nil
}

// embed embeds the book's remaining chunks, one committed batch at a time,
// taking the vectors pre worked out where their text is the chunk's.
func (p *pipeline) embed(ctx context.Context, b library.Book, pre *ahead) error {
	defer pre.discard()
	p.progress.Stage = StageEmbedding
	p.progress.ChunksTotal = b.Chunks
	p.progress.ChunksDone = 0
	for first, after := true, -1; ; first = false {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunks, err := p.w.ChunksToEmbedAfter(ctx, b.ID, after, p.opts.EmbedBatch)
		if err != nil {
			return err
		}
		if len(chunks) == 0 {
			return nil
		}
		if first {
			// A resumed book has its first chunks embedded already.
			p.progress.ChunksDone = max(0, chunks[0].Index)
			p.at(StageEmbedding)
		}
		after = chunks[len(chunks)-1].Index
		ids := make([]int64, len(chunks))
		vecs := make([][]float32, len(chunks))
		var texts []string
		var at []int
		for i, k := range chunks {
			ids[i] = k.ID
			text := EmbeddingText(k)
			if vecs[i] = pre.vector(k.Index, text); vecs[i] != nil {
				continue
			}
			texts, at = append(texts, text), append(at, i)
		}
		if len(texts) > 0 {
			got, err := EmbedAll(ctx, p.opts.Embedder, texts)
			if err != nil {
				return fmt.Errorf("embed %q: %w", b.Title, err)
			}
			for j, i := range at {
				vecs[i] = got[j]
			}
		}
		if err := p.w.StoreEmbeddings(ctx, ids, vecs); err != nil {
			return fmt.Errorf("embed %q: %w", b.Title, err)
		}
		p.progress.ChunksDone += len(chunks)
		p.report()
	}
}

// EmbedAll embeds texts. A text longer than the model's context is never
// cut: it is embedded in halves (split at a sentence or word boundary, again
// if need be) and its vector is the normalised mean of theirs.
func EmbedAll(ctx context.Context, e embed.Embedder, texts []string) ([][]float32, error) {
	return embedAll(ctx, e, texts, 0)
}

func embedAll(ctx context.Context, e embed.Embedder, texts []string, depth int) ([][]float32, error) {
	vecs, err := e.EmbedDocuments(ctx, texts)
	var tl *embed.TooLongError
	if err == nil || !errors.As(err, &tl) || depth >= 4 || len(tl.Indexes) == 0 {
		return vecs, err
	}
	long := make(map[int]bool, len(tl.Indexes))
	for _, i := range tl.Indexes {
		long[i] = true
	}
	var short []string
	var shortAt []int
	var halves []string
	for i, t := range texts {
		if long[i] {
			a, b := halve(t)
			halves = append(halves, a, b)
			continue
		}
		short = append(short, t)
		shortAt = append(shortAt, i)
	}
	out := make([][]float32, len(texts))
	if len(short) > 0 {
		sv, err := embedAll(ctx, e, short, depth)
		if err != nil {
			return nil, err
		}
		for j, i := range shortAt {
			out[i] = sv[j]
		}
	}
	hv, err := embedAll(ctx, e, halves, depth+1)
	if err != nil {
		return nil, err
	}
	j := 0
	for i := range texts {
		if !long[i] {
			continue
		}
		a, b := hv[2*j], hv[2*j+1]
		j++
		v := make([]float32, len(a))
		var n float64
		for k := range v {
			v[k] = a[k] + b[k]
			n += float64(v[k]) * float64(v[k])
		}
		if n > 0 {
			inv := float32(1 / math.Sqrt(n))
			for k := range v {
				v[k] *= inv
			}
		}
		out[i] = v
	}
	return out, nil
}

// halve splits text near its middle, at a sentence end if there is one,
// else at a space.
func halve(text string) (string, string) {
	mid := len(text) / 2
	best := -1
	for _, sep := range []string{". ", "\n", " "} {
		if i := strings.LastIndex(text[:mid], sep); i > len(text)/4 {
			best = i + len(sep)
			break
		}
		if i := strings.Index(text[mid:], sep); i >= 0 && mid+i < len(text)*3/4 {
			best = mid + i + len(sep)
			break
		}
	}
	if best < 0 {
		best = mid
		for best < len(text) && !utf8.RuneStart(text[best]) {
			best++
		}
	}
	return text[:best], text[best:]
}

// EmbeddingText is what the embedder sees of a chunk: its heading path, its
// context when there is one, and its text.
func EmbeddingText(k library.Chunk) string { return index.JoinText(k.Heading, k.Context, k.Text) }

// readContent reads a file that holds the book's content, checking that it
// still does. A file is read only as the scan saw it: reached from its
// library folder without following a link, a regular file, of the size and
// inode its row records, never more than that size.
func readContent(ctx context.Context, books *source.Reader, b library.Book, files []library.File) (string, []byte, error) {
	if len(files) == 0 {
		return "", nil, fmt.Errorf("book %s: no file holds it any more", b.Slug)
	}
	var lastErr error
	for _, f := range files {
		data, err := books.Read(ctx, f)
		if err != nil {
			if ctx.Err() != nil {
				return f.Path, nil, ctx.Err()
			}
			lastErr = fmt.Errorf("not read: %w; the next sync looks at it again", libfile.Cause(err))
			continue
		}
		if library.SumBytes(data) != b.Hash {
			lastErr = errors.New("not read: changed since it was scanned; the next sync looks at it again")
			continue
		}
		return f.Path, data, nil
	}
	return files[0].Path, nil, lastErr
}

// failureReason says why a book of format f failed, for a person reading
// status.
func failureReason(f Format, err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "parsing took too long and was stopped"
	case errors.Is(err, doc.ErrNoText) && f.NoTextHint != "":
		if strings.Contains(err.Error(), "OCR") {
			return err.Error()
		}
		return f.NoTextHint
	}
	// A parser's "no text found" says what it found instead.
	return err.Error()
}
