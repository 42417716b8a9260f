// Package pdf parses PDF books into the format-neutral tree of package doc:
// text in reading order, chapters and sections from the outline, and the
// page of every block, so that a citation names the page a passage was
// printed on.
//
// Two libraries divide the work. pdfcpu, pure Go, reads the document's
// structure: the outline and its destinations (named ones included), the
// page labels, the Info dictionary and XMP metadata, the encryption, and
// the fonts' own character maps (ToUnicode CMaps, glyph names), which
// stand in for PDFium's where it has none. It also rewrites a file whose
// cross-reference table PDFium cannot read, for a second try. PDFium,
// compiled to WebAssembly and run by wazero, reads the text: every
// character of every page with its box and font. On the characters this
// package does its own layout: lines, columns, paragraphs, running heads
// and page numbers, hyphenation, reading order.
//
// A few hundred kilobytes of PDF can inflate to gigabytes. Before PDFium
// loads a page, an audit on pdfcpu's reading of the file has measured
// what the page makes it inflate, and a document past the limits of
// Options is refused as what it is (ErrResourceLimit).
//
// An Extractor starts PDFium on its first PDF and keeps it for the rest
// of the run; the compiled module is cached on disk, so that the next
// process starts in a fraction of a second instead of several seconds.
package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/pdf/internal/pdfium"
)

// Errors that Parse wraps; test them with errors.Is. Documents without text
// (scanned pages, fonts without a Unicode mapping) wrap doc.ErrNoText.
var (
	// ErrPassword: the file is encrypted with a user password; grimoire
	// only opens files whose user password is empty.
	ErrPassword = errors.New("needs a password")
	// ErrNotPDF: the bytes are not a PDF at all (an empty file, an image
	// or text with a .pdf name).
	ErrNotPDF = errors.New("not a PDF file")
	// ErrDamaged: the file starts like a PDF but neither PDFium nor a
	// rewrite by pdfcpu could read it (a truncated download, say).
	ErrDamaged = errors.New("damaged PDF")
	// ErrTooLarge: the document has more pages than Options.MaxPages.
	ErrTooLarge = errors.New("too many pages")
	// ErrResourceLimit: reading the document would inflate more than
	// Options.MaxPageBytes, MaxBookBytes, MaxFontBytes or MaxObjectBytes
	// allow, which is what a decompression bomb does. The message names
	// the limit and the page.
	ErrResourceLimit = errors.New("too large to read safely")
	// ErrClosed: Parse was called after Close.
	ErrClosed = errors.New("the PDF extractor is closed")
)

// Options configure an Extractor. The zero value is usable: every field
// has a default.
type Options struct {
	// CacheDir holds PDFium's compiled code between processes. Empty means
	// os.UserCacheDir()/grimoire/pdfium-<go-pdfium version>.
	CacheDir string
	// NoDiskCache compiles PDFium in memory in every process (4–7 s)
	// instead of caching it.
	NoDiskCache bool
	// Workers is the number of PDFium instances, each single-threaded. A
	// long document is spread over the idle ones. Default: the number of
	// CPUs, at most 4.
	Workers int
	// MaxPages refuses longer documents; default 5000.
	MaxPages int
	// PageTimeout bounds one page; a page that takes longer is skipped
	// (and logged) and its PDFium instance discarded. Default 20 s. The
	// whole document is bounded by the context given to Parse.
	PageTimeout time.Duration
	// MaxCharsPerPage keeps only the first characters of a page that has
	// more; default 200 000.
	MaxCharsPerPage int
	// An instance is replaced after RecycleDocuments documents or
	// RecyclePages pages, or once its memory, which never shrinks, has
	// grown past RecycleMemory bytes. Defaults 64, 5000, 256 MiB.
	RecycleDocuments int
	RecyclePages     int
	RecycleMemory    uint64
	// MemoryLimit caps one instance's memory; PDFium fails to allocate
	// beyond it. Default 2 GiB.
	MemoryLimit uint64
	// MaxPageBytes bounds the content PDFium may inflate and parse to read
	// one page: its content streams and the forms it draws, each time it
	// draws them. MaxBookBytes bounds the same over the whole document,
	// MaxFontBytes the document's fonts (programs, character maps, Type 3
	// glyphs), which PDFium keeps once loaded, and MaxObjectBytes its
	// object and cross-reference streams, which hold its dictionaries. A
	// document past one is refused with ErrResourceLimit before PDFium
	// reads it. Defaults 64 MiB, 2 GiB, 256 MiB and 64 MiB: a real page's
	// content inflates to kilobytes, rarely megabytes, and the largest
	// fonts (whole CJK or Unicode fonts) to some 20 MB each.
	MaxPageBytes   int64
	MaxBookBytes   int64
	MaxFontBytes   int64
	MaxObjectBytes int64
	// Logger receives warnings (skipped pages, repaired files) and debug
	// timings; nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = min(runtime.NumCPU(), 4)
	}
	if o.MaxPages <= 0 {
		o.MaxPages = 5000
	}
	if o.PageTimeout <= 0 {
		o.PageTimeout = 20 * time.Second
	}
	if o.MaxCharsPerPage <= 0 {
		o.MaxCharsPerPage = 200_000
	}
	if o.RecycleDocuments <= 0 {
		o.RecycleDocuments = 64
	}
	if o.RecyclePages <= 0 {
		o.RecyclePages = 5000
	}
	if o.RecycleMemory == 0 {
		o.RecycleMemory = 256 << 20
	}
	if o.MemoryLimit == 0 {
		o.MemoryLimit = 2 << 30
	}
	if o.MaxPageBytes <= 0 {
		o.MaxPageBytes = 64 << 20
	}
	if o.MaxBookBytes <= 0 {
		o.MaxBookBytes = 2 << 30
	}
	if o.MaxFontBytes <= 0 {
		o.MaxFontBytes = 256 << 20
	}
	if o.MaxObjectBytes <= 0 {
		o.MaxObjectBytes = 64 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Extractor parses PDFs. It is safe for concurrent use; one Extractor is
// meant to serve a whole run, so that PDFium starts once. Each Parse takes
// a PDFium instance, and a long document borrows the idle ones too.
type Extractor struct {
	opts Options
	log  *slog.Logger
	pool pool
	// pdfcpuConf is copied for every read.
	pdfcpuConf *model.Configuration
}

// NewExtractor returns an Extractor. It starts nothing: PDFium is started
// by the first Parse that needs it.
func NewExtractor(opts Options) *Extractor {
	opts = opts.withDefaults()
	e := &Extractor{opts: opts, log: opts.Logger, pdfcpuConf: newPDFCPUConfig()}
	e.pool.init(e)
	return e
}

// Start starts PDFium, which the first Parse does otherwise: it takes
// seconds the first time (longer when its compiled code is not cached on
// disk yet). It returns at once when PDFium has started, with the error of
// a start that failed.
func (e *Extractor) Start(ctx context.Context) error {
	_, err := e.pool.runtime(ctx)
	return err
}

// Started reports whether PDFium has started, or failed to.
func (e *Extractor) Started() bool {
	e.pool.mu.Lock()
	defer e.pool.mu.Unlock()
	return e.pool.rt != nil || e.pool.startErr != nil
}

// Close stops PDFium once the Parse calls in flight have finished; later
// calls fail with ErrClosed. It is safe to call twice, and cheap on an
// Extractor that never started PDFium.
func (e *Extractor) Close() error {
	return e.pool.close()
}

// Parse reads one PDF. The errors it returns wrap ErrPassword, ErrNotPDF,
// ErrDamaged, ErrTooLarge, ErrResourceLimit, doc.ErrNoText ("no text layer
// — needs OCR") or the context's error, with a reason a user can act on; a
// malformed file fails that way, it never panics or hangs past ctx's
// deadline.
//
// Every Block has the 1-based index of the page it was read from; blocks
// never span pages. Chapters come from the outline's top level and
// sections from its second level (deeper levels stay in their section);
// text before the first destination is a front-matter chapter. Without an
// outline, chapters and sections come from headings set clearly larger
// than the text; failing that the document is one chapter.
func (e *Extractor) Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	return e.parse(ctx, data, false, nil)
}

// ParseScanned is Parse for a caller that recognises scanned pages (OCR).
// The document lists in Scanned the pages that are images without a text
// layer; recognised holds the text of those recognised so far, by 1-based
// page, as paragraphs separated by blank lines, and it is laid out on its
// page like extracted text. A document whose pages are all scans is no
// failure here: it comes back with Scanned set, and the text of the pages
// recognised.
func (e *Extractor) ParseScanned(ctx context.Context, data []byte, recognised map[int]string) (*doc.Document, error) {
	return e.parse(ctx, data, true, recognised)
}

func (e *Extractor) parse(ctx context.Context, data []byte, scanning bool, recognised map[int]string) (d *doc.Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("pdf: parser panic", "panic", r, "stack", string(debug.Stack()))
			// The panic is logged above; its text means nothing to a reader.
			d, err = nil, errors.New("the PDF parser failed on this file (an internal error; the log has the details)")
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := sniff(data); err != nil {
		return nil, err
	}
	start := time.Now()
	p := &parse{e: e, data: data, scanning: scanning, recognised: recognised}
	if err := p.run(ctx); err != nil {
		return nil, err
	}
	d = p.document()
	e.log.Debug("pdf: parsed", "pages", d.PageCount, "chapters", len(d.Chapters), "took", time.Since(start))
	return d, nil
}

// sniff rejects data that is not a PDF at all, saying what it is instead.
// PDF readers accept the header anywhere in the first kilobyte.
func sniff(data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("%w: the file is empty", ErrNotPDF)
	}
	head := data[:min(len(data), 1024)]
	if bytes.Contains(head, []byte("%PDF-")) {
		return nil
	}
	what := "its content is not PDF"
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG")):
		what = "it is a PNG image"
	case bytes.HasPrefix(data, []byte("\xFF\xD8\xFF")):
		what = "it is a JPEG image"
	case bytes.HasPrefix(data, []byte("GIF8")):
		what = "it is a GIF image"
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		what = "it is a TIFF image"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		what = "it is a ZIP archive (an EPUB or office document?)"
	case bytes.HasPrefix(data, []byte("%!PS")):
		what = "it is PostScript"
	case bytes.HasPrefix(data, []byte("{\\rtf")):
		what = "it is an RTF document"
	case bytes.HasPrefix(bytes.ToLower(bytes.TrimSpace(head)), []byte("<!doctype html")), bytes.HasPrefix(bytes.ToLower(bytes.TrimSpace(head)), []byte("<html")):
		what = "it is an HTML page"
	case utf8.Valid(head) && !bytes.ContainsFunc(head, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' && r != '\t' }):
		what = "it is plain text"
	}
	return fmt.Errorf("%w: %s", ErrNotPDF, what)
}

// defaultCacheDir names the cache after go-pdfium's version, so that an
// upgrade starts a fresh directory instead of growing an old one.
func defaultCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "grimoire", "pdfium-"+pdfiumVersion()), nil
}

func pdfiumVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/klippa-app/go-pdfium" {
				if m.Replace != nil && m.Replace.Version != "" {
					return m.Replace.Version
				}
				if m.Version != "" && m.Version != "(devel)" {
					return m.Version
				}
			}
		}
	}
	return "unknown"
}

// startRuntime is the pool's way to start PDFium: it resolves the cache
// directory and logs why it could not be used.
func (e *Extractor) startRuntime(ctx context.Context, maxInstances int) (*pdfium.Runtime, error) {
	cfg := pdfium.Config{MaxInstances: maxInstances, MemoryLimit: e.opts.MemoryLimit, Stderr: slogWriter{e.log}}
	if !e.opts.NoDiskCache {
		dir := e.opts.CacheDir
		if dir == "" {
			d, err := defaultCacheDir()
			if err != nil {
				e.log.Warn("pdf: no cache directory for PDFium; compiling it in memory", "err", err)
			}
			dir = d
		}
		cfg.CacheDir = dir
	}
	t := time.Now()
	rt, cacheErr, err := pdfium.Start(ctx, cfg)
	if cacheErr != nil {
		e.log.Warn("pdf: PDFium cache directory unusable; compiling in memory", "dir", cfg.CacheDir, "err", cacheErr)
	}
	if err != nil {
		return nil, err
	}
	e.log.Debug("pdf: PDFium started", "took", time.Since(t), "cache", cfg.CacheDir)
	return rt, nil
}

// slogWriter turns what PDFium prints on stderr into debug logs.
type slogWriter struct{ log *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.log.Debug("pdf: PDFium says", "text", string(p))
	return len(p), nil
}

// errPDFium wraps a failure of the PDFium runtime itself, as opposed to a
// problem of the file.
func errPDFium(err error) error {
	return fmt.Errorf("PDFium failed: %w", err)
}
