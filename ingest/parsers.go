package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/grimoire-search/grimoire/ingest/doc"
	izotero "github.com/grimoire-search/grimoire/ingest/zotero"
)

// errParsersClosed is returned by Parse after Close.
var errParsersClosed = errors.New("ingest: the parsers are closed")

// Parsers are the parsers of the formats grimoire reads, each made on the
// first book of its format and kept until Close: PDFium starts on the first
// PDF, and then serves every run of a long-lived watch. They are safe for
// concurrent use.
type Parsers struct {
	formats Registry
	log     *slog.Logger

	mu     sync.Mutex
	open   map[string]parser // by format type
	closed bool
}

// NewParsers returns the parsers of Formats, none made yet. log receives
// the parsers' own logs; nil discards them.
func NewParsers(log *slog.Logger) *Parsers {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Parsers{formats: Formats(), log: log, open: make(map[string]parser)}
}

// Parse reads data as a book of format typ, without a Project Gutenberg
// header and licence, in whatever format they came. A parser that panics
// on a hostile file fails that book, never the process; a book of more
// than doc.MaxText of text fails with doc.ErrTooLarge.
//
// recognised, when not nil, is the text read by OCR from the book's
// scanned pages, by 1-based page; a format whose pages may be scans
// (scanner) then lists them in the document's Scanned and lays out the
// text of those recognised. Other formats ignore it.
func (ps *Parsers) Parse(ctx context.Context, typ string, data []byte, recognised map[int]string) (*doc.Document, error) {
	d, err := ps.parse(ctx, typ, data, recognised)
	if err != nil {
		return nil, err
	}
	// Parsers that gather their text in one place check as it grows;
	// this holds every format to the same cap.
	if err := doc.CheckText(d.TextSize()); err != nil {
		return nil, err
	}
	if d.DropGutenberg() && d.Empty() {
		return nil, fmt.Errorf("%w: nothing between the Project Gutenberg header and footer", doc.ErrNoText)
	}
	d.Catalog = d.Catalog.Clean() // a file's word is held to the caps, whichever parser read it
	return d, nil
}

func (ps *Parsers) parse(ctx context.Context, typ string, data []byte, recognised map[int]string) (d *doc.Document, err error) {
	p, err := ps.parser(typ)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("the %s parser crashed on this file: %v", typ, r)
		}
	}()
	if c, ok := p.(compound); ok {
		return c.ParseParts(ctx, data, recognised, parts{ps, typ})
	}
	if s, ok := p.(scanner); ok && recognised != nil {
		return s.ParseScanned(ctx, data, recognised)
	}
	return p.Parse(ctx, data)
}

// compound is the parser of a book made of files of other formats (a
// Zotero item's attachments), each read, and its scanned pages drawn for
// OCR, by the parser of its format (parts); its pages are numbered on
// from one file to the next, and OCR reads them as any book's.
type compound interface {
	ParseParts(ctx context.Context, data []byte, recognised map[int]string, parts izotero.Parts) (*doc.Document, error)
	RenderParts(ctx context.Context, data []byte, pages []int, dpi float64, each func(doc.PageImage) error, parts izotero.Parts) error
}

// parts reads the files of a compound book of type of by their formats'
// parsers; a file of that type again is refused.
type parts struct {
	ps *Parsers
	of string
}

func (p parts) Parse(ctx context.Context, typ string, data []byte, recognised map[int]string) (*doc.Document, error) {
	if typ == p.of {
		return nil, fmt.Errorf("a %s book holds another", typ)
	}
	return p.ps.parse(ctx, typ, data, recognised)
}

func (p parts) Render(ctx context.Context, typ string, data []byte, pages []int, dpi float64, each func(doc.PageImage) error) error {
	if typ == p.of {
		return fmt.Errorf("a %s book holds another", typ)
	}
	return p.ps.RenderPages(ctx, typ, data, pages, dpi, each)
}

// scanner is the parser of a format whose pages may be scans without a
// text layer (PDF, DjVu): it lays out text recognised by OCR on its pages, and
// draws the pages for OCR.
type scanner interface {
	// ParseScanned is Parse with the text recognised so far, by 1-based
	// page; the document's Scanned lists the scans. A document of scans
	// alone is no failure.
	ParseScanned(ctx context.Context, data []byte, recognised map[int]string) (*doc.Document, error)
	// RenderPages draws pages (1-based) in grayscale at dpi, in order,
	// handing each to each, and stops at the first error each returns.
	RenderPages(ctx context.Context, data []byte, pages []int, dpi float64, each func(doc.PageImage) error) error
}

// drawer is a scanner that draws pages with a command that may not be
// installed (ddjvu for DjVu).
type drawer interface {
	// CanDraw returns nil when pages can be drawn now, else why not, with
	// how to install what is missing.
	CanDraw() error
}

// CanDraw returns why the pages of format typ cannot be drawn for OCR
// now, nil when they can (always, for PDF: PDFium is built in).
func (ps *Parsers) CanDraw(typ string) error {
	p, err := ps.parser(typ)
	if err != nil {
		return err
	}
	if d, ok := p.(drawer); ok {
		return d.CanDraw()
	}
	// A compound book's files tell when they are drawn: a DjVu one
	// without ddjvu fails its pages, which OCR reports.
	return nil
}

// RenderPages draws pages of a book of format typ for OCR; see scanner.
func (ps *Parsers) RenderPages(ctx context.Context, typ string, data []byte, pages []int, dpi float64, each func(doc.PageImage) error) error {
	p, err := ps.parser(typ)
	if err != nil {
		return err
	}
	if c, ok := p.(compound); ok {
		return c.RenderParts(ctx, data, pages, dpi, each, parts{ps, typ})
	}
	s, ok := p.(scanner)
	if !ok {
		return fmt.Errorf("grimoire cannot draw the pages of %s files for OCR", typ)
	}
	return s.RenderPages(ctx, data, pages, dpi, each)
}

// starter is a parser with a slow start: PDFium compiles on first use.
type starter interface {
	// Started reports whether Start has run (or failed: a second try
	// would fail the same way).
	Started() bool
	// Start starts the parser; it returns at once once started, with the
	// error of a start that failed.
	Start(ctx context.Context) error
}

// Start starts the parser of typ when it has a slow start and has not
// started yet, calling starting first so that the caller can say what
// the wait is. A start that fails is not reported here: the parse that
// follows fails with its error.
func (ps *Parsers) Start(ctx context.Context, typ string, starting func()) {
	p, err := ps.parser(typ)
	if err != nil {
		return
	}
	s, ok := p.(starter)
	if !ok || s.Started() {
		return
	}
	starting()
	s.Start(ctx)
}

// parser returns the parser of format typ, making it on first use.
func (ps *Parsers) parser(typ string) (parser, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.closed {
		return nil, errParsersClosed
	}
	if p, ok := ps.open[typ]; ok {
		return p, nil
	}
	f, ok := ps.formats.lookup(typ)
	if !ok {
		return nil, fmt.Errorf("no parser for %q files", typ)
	}
	p := f.open(ps.log)
	ps.open[typ] = p
	return p, nil
}

// Close releases what the parsers hold (PDFium), once the parses in flight
// have finished; Parse fails after it. It is safe to call twice, and cheap
// when no parser holds anything.
func (ps *Parsers) Close() error {
	ps.mu.Lock()
	open := ps.open
	ps.open, ps.closed = nil, true
	ps.mu.Unlock()
	var errs []error
	for _, p := range open {
		if c, ok := p.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}
