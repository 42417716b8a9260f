package ingest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/ocr"
	"github.com/grimoire-search/grimoire/library"
)

// OCROptions configure the reading of scanned pages by tesseract.
type OCROptions struct {
	// Off leaves scanned pages unread, as when tesseract is missing: a
	// book of scans waits, a book with text besides is read without them.
	Off bool
	// Tesseract is the command; empty looks for tesseract on PATH.
	Tesseract string
	// Languages are tesseract's languages to read in ("eng", "deu");
	// empty: the book's own language when tesseract has it, else English.
	Languages []string
	// DPI is the resolution pages are drawn at; default 300.
	DPI int
	// Concurrency is how many pages are read at once, each by a
	// tesseract process on one core; default the number of CPUs.
	Concurrency int
	// PageTimeout bounds the reading of one page; a page that takes longer
	// is stored empty (and flagged as of low confidence). Default 10
	// minutes.
	PageTimeout time.Duration
}

// DefaultOCRDPI is the resolution scanned pages are drawn at for OCR.
const DefaultOCRDPI = 300

func (o OCROptions) withDefaults() OCROptions {
	if o.DPI <= 0 {
		o.DPI = DefaultOCRDPI
	}
	if o.Concurrency <= 0 {
		o.Concurrency = runtime.NumCPU()
	}
	if o.PageTimeout <= 0 {
		o.PageTimeout = 10 * time.Minute
	}
	return o
}

// errScan is book's way to say a book was put aside for OCR.
var errScan = errors.New("put aside for OCR")

// scan is a book's scanned pages that OCR has not read yet.
type scan struct {
	path, typ string
	data      []byte
	// pages is the number of scanned pages, missing those not read yet.
	pages    int
	missing  []int
	language string
}

// ocrState is what a run found of tesseract: the engine, or why there is
// none.
type ocrState struct {
	engine *ocr.Engine
	why    string
}

// ocrEngine looks for tesseract once a run, so that one installed while
// grimoire runs (a watch) is found by the next run; nil when there is
// none, with p.ocr.why saying why.
func (p *pipeline) ocrEngine(ctx context.Context) *ocr.Engine {
	if p.ocr != nil {
		return p.ocr.engine
	}
	p.ocr = &ocrState{}
	if p.opts.OCR.Off {
		p.ocr.why = OCROff
		return nil
	}
	e, err := ocr.Find(ctx, p.opts.OCR.Tesseract)
	if err != nil {
		p.ocr.why = err.Error()
		return nil
	}
	p.ocr.engine = e
	return e
}

// texts are the recognised pages' texts, by page.
func texts(pages map[int]index.OCRPage) map[int]string {
	out := make(map[int]string, len(pages))
	for n, pg := range pages {
		out[n] = pg.Text
	}
	return out
}

// unreadPages are the scanned pages not recognised yet.
func unreadPages(scanned []int, recognised map[int]index.OCRPage) []int {
	var out []int
	for _, n := range scanned {
		if _, ok := recognised[n]; !ok {
			out = append(out, n)
		}
	}
	return out
}

// whyNoOCR says why the scanned pages of a book of format typ cannot be
// read now: OCR off, no tesseract, or nothing to draw the pages with (no
// ddjvu for DjVu); "" when they can.
func (p *pipeline) whyNoOCR(ctx context.Context, typ string) string {
	if p.ocrEngine(ctx) == nil {
		return p.ocr.why
	}
	if err := p.opts.Parsers.CanDraw(typ); err != nil {
		return err.Error()
	}
	return ""
}

// stillWaiting reports whether book b waits for OCR that still cannot run,
// so that it is passed over without reading its file again.
func (p *pipeline) stillWaiting(ctx context.Context, b library.Book) (bool, error) {
	was, known, err := p.w.OCRWaiting(ctx, b.Hash)
	if err != nil || !known || was == "" {
		return false, err
	}
	why := p.whyNoOCR(ctx, b.SourceType)
	if why == "" {
		return false, nil
	}
	if why != was {
		if err := p.w.OCRWait(ctx, b.Hash, why); err != nil {
			return false, err
		}
	}
	p.res.NeedOCR++
	p.waiting(b, why)
	return true, nil
}

// scanned takes a book with scanned pages still to read: put aside for
// after the other books when tesseract can read them, else recorded as
// waiting for it.
func (p *pipeline) scanned(ctx context.Context, b library.Book, s *scan) error {
	if why := p.whyNoOCR(ctx, s.typ); why != "" {
		if err := p.w.NeedOCR(ctx, b.Hash, s.pages, why); err != nil {
			return err
		}
		p.res.NeedOCR++
		p.waiting(b, why)
		return nil
	}
	if err := p.w.NeedOCR(ctx, b.Hash, s.pages, ""); err != nil {
		return err
	}
	p.setAside(b)
	return errScan
}

// setAside puts book b aside for OCR after the other books, once.
func (p *pipeline) setAside(b library.Book) {
	if !slices.ContainsFunc(p.scans, func(o library.Book) bool { return o.ID == b.ID }) {
		p.scans = append(p.scans, b)
	}
}

// takeUpReadBooks sets aside for OCR the ready books whose scanned pages
// were left unread when they were indexed (no tesseract then) and can be
// read now: they stay searchable from their other pages meanwhile, and
// are laid out again once OCR is done. Those that still cannot be read
// keep waiting, with the reason brought up to date; those OCR failed on
// wait for their file to change.
func (p *pipeline) takeUpReadBooks(ctx context.Context, books []library.Book) error {
	for _, b := range books {
		was, _, err := p.w.OCRWaiting(ctx, b.Hash)
		if err != nil {
			return err
		}
		if strings.HasPrefix(was, OCRFailed) {
			continue
		}
		why := p.whyNoOCR(ctx, b.SourceType)
		if why != was {
			if err := p.w.OCRWait(ctx, b.Hash, why); err != nil {
				return err
			}
		}
		if why != "" {
			continue
		}
		p.tried[b.ID] = true
		p.setAside(b)
		p.booksTotal++
		p.bytesTotal += b.Size
	}
	return nil
}

// waiting tells Options.Finished that book b waits for OCR.
func (p *pipeline) waiting(b library.Book, why string) {
	if p.opts.Finished != nil {
		p.opts.Finished(Outcome{Book: b, NeedsOCR: why})
	}
}

// recogniseAll reads the scanned pages of the books put aside, one book
// at a time, and ingests each once its pages are read. It gives way to
// books that became pending meanwhile (a watch), ingesting them between
// two pages.
func (p *pipeline) recogniseAll(ctx context.Context) error {
	for len(p.scans) > 0 {
		b := p.scans[0]
		p.progress = Progress{Book: b.Title, Size: b.Size, BooksDone: p.booksDone, BooksTotal: p.booksTotal, BytesDone: p.doneBytes, BytesTotal: p.bytesTotal}
		how, err := p.recogniseBook(ctx, b)
		if err != nil {
			if p.vanished(ctx, b) {
				p.scans = p.scans[1:]
				continue
			}
			return err
		}
		if how == gaveWay {
			// The books that came meanwhile first.
			more, err := p.newcomers(ctx)
			if err != nil {
				return err
			}
			p.booksTotal += len(more)
			for _, o := range more {
				p.bytesTotal += o.Size
			}
			if err := p.books(ctx, more); err != nil {
				return err
			}
			continue
		}
		p.scans = p.scans[1:]
		p.doneBytes += b.Size
		p.booksDone++
	}
	return p.flush(ctx)
}

// ocrOutcome is how the OCR of a book ended.
type ocrOutcome int

const (
	// read: every scanned page is read.
	read ocrOutcome = iota
	// gaveWay: stopped to let other books through; the pages read are
	// stored.
	gaveWay
	// setAside: the book failed, or waits for a language pack; either is
	// recorded on it.
	setAside
)

// newcomers are the books pending that this run has not taken up yet,
// scans known as such left out.
func (p *pipeline) newcomers(ctx context.Context) ([]library.Book, error) {
	books, err := p.w.BooksToIngest(ctx)
	if err != nil {
		return nil, err
	}
	var out []library.Book
	for _, b := range books {
		if p.tried[b.ID] {
			continue
		}
		if _, known, err := p.w.OCRWaiting(ctx, b.Hash); err != nil {
			return nil, err
		} else if !known {
			out = append(out, b)
		}
	}
	return out, nil
}

// recogniseBook reads book b's scanned pages that are not read yet, then
// ingests it.
func (p *pipeline) recogniseBook(ctx context.Context, b library.Book) (ocrOutcome, error) {
	pr, err := p.parse(ctx, b)
	if err != nil || pr == nil {
		// Failed or not read: recorded as such.
		return setAside, err
	}
	if pr.scan != nil {
		how, err := p.recognise(ctx, b, pr.scan)
		if err != nil || how != read {
			return how, err
		}
		if pr, err = p.parse(ctx, b); err != nil || pr == nil {
			return setAside, err
		}
		if pr.scan != nil {
			return setAside, fmt.Errorf("%s: pages %v still unread after OCR", pr.scan.path, pr.scan.missing)
		}
	}
	return read, p.store(ctx, b, *pr)
}

// OCRFailed starts the reason OCR failed on a book: recorded on a ready
// book's scans, it keeps runs from trying them again until the book is
// laid out anew (its file changes, a rebuild).
const OCRFailed = "OCR failed: "

// OCROff is why scans wait while the configuration turns OCR off.
const OCROff = `OCR is off ([ocr] enabled = "off")`

// errGiveWay stops drawing pages when other books are waiting.
var errGiveWay = errors.New("giving way to other books")

// recognise reads the missing pages of a scan: PDFium draws them in
// order, tesseract reads Options.OCR.Concurrency at once, and each page is
// stored as soon as it is read, so that an interrupted run loses only the
// pages in flight.
func (p *pipeline) recognise(ctx context.Context, b library.Book, s *scan) (ocrOutcome, error) {
	eng := p.ocrEngine(ctx)
	langs, note, err := eng.Choose(p.opts.OCR.Languages, s.language)
	if err != nil {
		// A language the configuration asks for is missing: the book
		// waits, with status saying which package brings it.
		if err := p.w.NeedOCR(ctx, b.Hash, s.pages, err.Error()); err != nil {
			return setAside, err
		}
		p.res.NeedOCR++
		p.waiting(b, err.Error())
		return setAside, nil
	}
	if note != "" {
		p.log.Warn(note, "path", s.path)
	}
	p.progress.Book, p.progress.Format = b.Title, s.typ
	p.progress.PagesTotal, p.progress.PagesDone = s.pages, s.pages-len(s.missing)
	p.progress.PagesPerMinute = 0
	p.at(StageOCR)

	type pageDone struct {
		page int
		err  error
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan doc.PageImage)
	results := make(chan pageDone)
	var wg sync.WaitGroup
	for range min(p.opts.OCR.Concurrency, len(s.missing)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				err := p.readPage(rctx, b.Hash, r, langs)
				results <- pageDone{r.Page, err}
			}
		}()
	}
	var giveWay sync.Once
	stop := make(chan struct{})
	renderErr := make(chan error, 1)
	go func() {
		err := p.opts.Parsers.RenderPages(rctx, s.typ, s.data, s.missing, float64(p.opts.OCR.DPI), func(r doc.PageImage) error {
			select {
			case jobs <- r:
				return nil
			case <-stop:
				return errGiveWay
			case <-rctx.Done():
				return rctx.Err()
			}
		})
		close(jobs)
		wg.Wait()
		close(results)
		renderErr <- err
	}()
	start := time.Now()
	readNow := 0
	var firstErr error
	for r := range results {
		if r.err != nil {
			if firstErr == nil {
				firstErr = r.err
				cancel()
			}
			continue
		}
		readNow++
		p.res.PagesRecognised++
		p.progress.PagesDone++
		p.progress.PagesPerMinute = float64(readNow) / time.Since(start).Minutes()
		p.report()
		if more, err := p.newcomers(ctx); err == nil && len(more) > 0 {
			giveWay.Do(func() { close(stop) })
		}
	}
	err = <-renderErr
	switch {
	case ctx.Err() != nil:
		return setAside, ctx.Err()
	case firstErr != nil:
		err = firstErr
	case errors.Is(err, errGiveWay):
		p.log.Info("OCR gives way to books that came meanwhile", "path", s.path, "pages read", p.progress.PagesDone, "of", s.pages)
		return gaveWay, nil
	}
	if err != nil {
		reason := OCRFailed + err.Error()
		f := library.Failure{Path: s.path, Error: reason}
		if b.Status == library.Ready {
			// A book searchable from its text stays so: its scans wait,
			// with why, until its file changes.
			if err := p.w.OCRWait(ctx, b.Hash, reason); err != nil {
				return setAside, err
			}
			p.res.Failures = append(p.res.Failures, f)
			p.failed(b, []library.Failure{f})
			return setAside, nil
		}
		pruned, ferr := p.w.MarkFailed(ctx, b.ID, reason)
		if ferr != nil {
			return setAside, ferr
		}
		p.res.Failed++
		p.res.Pruned += pruned
		p.res.Failures = append(p.res.Failures, f)
		p.failed(b, []library.Failure{f})
		return setAside, nil
	}
	return read, nil
}

// readPage recognises one drawn page and stores its text. A page that
// takes longer than the page timeout is stored empty, with a warning.
func (p *pipeline) readPage(ctx context.Context, h library.Hash, r doc.PageImage, langs string) error {
	pctx, cancel := context.WithTimeout(ctx, p.opts.OCR.PageTimeout)
	defer cancel()
	page, err := p.ocr.engine.Recognize(pctx, r.Image, int(r.DPI+0.5), langs)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		p.log.Warn("OCR of a page took too long; it is left empty", "page", r.Page, "limit", p.opts.OCR.PageTimeout)
		page = ocr.Page{}
	default:
		return fmt.Errorf("page %d: %w", r.Page, err)
	}
	return p.w.StoreOCRPage(ctx, h, index.OCRPage{Page: r.Page, Text: page.Text, Words: page.Words, Confidence: page.Confidence})
}
