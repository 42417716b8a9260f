package pdf

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/grimoire-search/grimoire/ingest/pdf/internal/pdfium"
	nouns "github.com/grimoire-search/grimoire/internal/plural"
)

// rawPage is what PDFium gave for one page.
type rawPage struct {
	width, height float64
	rotation      int
	// box is the visible page: left, bottom, right, top.
	box   [4]float64
	frags []fragment
	// unmapped are the characters PDFium could not map, which the
	// stand-ins in frags stand for; fonts names their fonts.
	unmapped []unmappedChar
	fonts    []string
	// chars counts the page's characters, mapped those with Unicode that
	// are letters or digits.
	chars, mapped int
	truncated     bool
	// image: the page draws an image and has next to no text, as a scan
	// does.
	image bool
}

// pdfiumDoc is what PDFium says about the document itself; it stands in
// for pdfcpu's reading when pdfcpu failed.
type pdfiumDoc struct {
	pages   int
	outline []pdfium.Bookmark
	labels  []string
	title   string
	author  string
	info    infoCatalog
}

type unmappedChar struct {
	font int
	code uint32
}

type pageResult struct {
	index int
	page  *rawPage
	err   error
}

// job is one document's PDFium pass, shared by its workers.
type job struct {
	e       *Extractor
	data    []byte
	gate    *gate
	pages   int
	next    atomic.Int32
	results chan pageResult
	exits   chan workerExit
	// done is closed when the coordinator returns; workers then stop
	// reporting.
	done chan struct{}
}

type workerExit struct {
	w   *worker
	err error
}

// worker drives one instance from its own goroutine. The coordinator only
// reads its atomics; once it gives up on a worker (abandoned), the worker
// finishes the call it is in, if ever, and closes its instance.
type worker struct {
	j  *job
	in *pdfium.Instance
	// state is running until either the worker returns (exited) or the
	// coordinator gives up on it (abandoned); the first to move it decides
	// who hands the instance's slot back.
	state atomic.Int32
	// busySince is when the current step started (unix ns), 0 when idle;
	// page is the page in work, -1 while opening.
	busySince atomic.Int64
	page      atomic.Int32
}

// errOpen wraps a failure to open the document, so the coordinator can
// tell it from failures on a page.
type errOpen struct{ err error }

func (e errOpen) Error() string { return e.err.Error() }
func (e errOpen) Unwrap() error { return e.err }

// extract reads every page with PDFium. It returns the pages (nil where a
// page failed or overran its time) and what PDFium knows of the document.
func (p *parse) extract(ctx context.Context, data []byte) ([]*rawPage, *pdfiumDoc, error) {
	e := p.e
	o := e.opts
	first, err := e.pool.acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	j := &job{e: e, data: data, gate: p.gate, exits: make(chan workerExit, o.Workers), done: make(chan struct{})}
	defer close(j.done)
	info := make(chan *pdfiumDoc, 1)
	opener := j.start(first, info)

	// Wait for the document to open.
	var pd *pdfiumDoc
	openerDone := false
	tick := time.NewTicker(watchInterval(o.PageTimeout))
	defer tick.Stop()
	for pd == nil {
		select {
		case pd = <-info:
		case x := <-j.exits:
			if x.err != nil {
				return nil, nil, x.err
			}
			// A short document: the opener read every page and left
			// before its report was picked up.
			select {
			case pd = <-info:
				openerDone = true
			default:
				return nil, nil, errors.New("PDFium stopped while opening the document")
			}
		case <-tick.C:
			if opener.overdue(2 * o.PageTimeout) {
				j.abandon(opener)
				return nil, nil, fmt.Errorf("%w: PDFium took longer than %v to open it", ErrDamaged, 2*o.PageTimeout)
			}
		case <-j.gate.refused():
			j.abandon(opener)
			return nil, nil, j.gate.reason()
		case <-ctx.Done():
			j.abandon(opener)
			return nil, nil, ctx.Err()
		}
	}
	n := pd.pages
	pages := make([]*rawPage, n)
	if n == 0 {
		return pages, pd, nil
	}

	live := map[*worker]bool{}
	if !openerDone {
		live[opener] = true
	}
	// A long document is spread over idle instances; each opens its own
	// copy, which costs a few milliseconds, and the memory of the file.
	// A document the audit could not check gets one instance: PDFium's
	// memory limit is all that bounds it.
	if n >= parallelPages && len(data) <= maxParallelBytes && j.gate.audited() {
		for len(live) < o.Workers && int(j.next.Load()) < n-parallelPages/2 {
			in, ok := e.pool.tryAcquire(ctx)
			if !ok {
				break
			}
			live[j.start(in, nil)] = true
		}
	}

	seen := make([]bool, n)
	done, failed := 0, 0
	maxFailed := max(3, n/20)
	var firstErr error
	// finish counts a page once: a worker given up for lateness may still
	// deliver it.
	finish := func(i int) bool {
		if i < 0 || i >= n || seen[i] {
			return false
		}
		seen[i] = true
		done++
		return true
	}
	fail := func(page int, err error) error {
		if !finish(page) {
			return nil
		}
		failed++
		if firstErr == nil {
			firstErr = err
		}
		e.log.Warn("pdf: page skipped", "page", page+1, "err", err)
		if failed > maxFailed {
			return fmt.Errorf("%w: PDFium failed on %s (page %d: %v)", ErrDamaged, nouns.Count(failed, "page"), page+1, firstErr)
		}
		return nil
	}
	abandonAll := func() {
		for w := range live {
			j.abandon(w)
		}
	}
	// replace keeps one worker going while pages remain.
	replace := func() error {
		if len(live) > 0 || int(j.next.Load()) >= n {
			return nil
		}
		in, err := e.pool.acquire(ctx)
		if err != nil {
			return err
		}
		live[j.start(in, nil)] = true
		return nil
	}
	for done < n {
		var err error
		select {
		case r := <-j.results:
			if r.err != nil {
				err = fail(r.index, r.err)
			} else if finish(r.index) {
				pages[r.index] = r.page
			}
		case x := <-j.exits:
			if !live[x.w] {
				continue
			}
			delete(live, x.w)
			var eo errOpen
			switch {
			case errors.Is(x.err, ErrResourceLimit):
				err = x.err
			case errors.As(x.err, &eo):
				if len(live) == 0 {
					err = eo.err
				}
			case x.err != nil:
				// The instance died on a page: that page is lost, the
				// others go on in a fresh instance.
				err = fail(int(x.w.page.Load()), x.err)
			}
			if err == nil {
				err = replace()
			}
		case <-tick.C:
			for w := range live {
				if err != nil || !w.overdue(o.PageTimeout) {
					continue
				}
				delete(live, w)
				j.abandon(w)
				err = fail(int(w.page.Load()), fmt.Errorf("took longer than %v", o.PageTimeout))
			}
			if err == nil {
				err = replace()
			}
		case <-j.gate.refused():
			err = j.gate.reason()
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil {
			abandonAll()
			return nil, nil, err
		}
	}
	// Every page is in; the workers are on their way out and release
	// their instances themselves.
	return pages, pd, nil
}

// A document is spread over more than one instance from parallelPages
// pages on, unless the file is larger than maxParallelBytes (each instance
// holds a copy).
const (
	parallelPages    = 24
	maxParallelBytes = 128 << 20
)

func watchInterval(pageTimeout time.Duration) time.Duration {
	return min(max(pageTimeout/8, 10*time.Millisecond), 250*time.Millisecond)
}

const (
	workerRunning int32 = iota
	workerExited
	workerAbandoned
)

func (w *worker) abandoned() bool { return w.state.Load() == workerAbandoned }

func (w *worker) overdue(limit time.Duration) bool {
	s := w.busySince.Load()
	return s != 0 && time.Since(time.Unix(0, s)) > limit
}

// abandon stops waiting for a worker: its slot goes back to the pool now,
// its instance when its goroutine returns.
func (j *job) abandon(w *worker) {
	if w.state.CompareAndSwap(workerRunning, workerAbandoned) {
		j.e.pool.abandon()
	}
}

// start runs a worker on an instance. The opener (info != nil) also
// reports the page count and PDFium's view of the document.
func (j *job) start(in *pdfium.Instance, info chan<- *pdfiumDoc) *worker {
	w := &worker{j: j, in: in}
	w.page.Store(-1)
	w.busySince.Store(time.Now().UnixNano())
	go w.run(info)
	return w
}

func (w *worker) run(info chan<- *pdfiumDoc) {
	j := w.j
	e := j.e
	// Calls cannot be interrupted, so none gets a context that ends.
	ctx := context.Background()
	var err error
	// gated is set when the worker stops at the gate, out of PDFium.
	gated := false
	defer func() {
		if r := recover(); r != nil {
			e.log.Debug("pdf: PDFium crashed", "panic", r)
			err = errors.New("PDFium crashed reading it")
		}
		if !w.state.CompareAndSwap(workerRunning, workerExited) {
			e.pool.finishAbandoned(w.in)
			return
		}
		e.pool.release(w.in, err == nil || gated)
		select {
		case j.exits <- workerExit{w: w, err: err}:
		case <-j.done:
		}
	}()
	w.busySince.Store(0)
	if err = j.gate.wait(-1, j.done); err != nil {
		gated = true
		return
	}
	w.busySince.Store(time.Now().UnixNano())
	d, err := w.in.OpenDocument(ctx, j.data, "")
	if err != nil {
		err = errOpen{err}
		return
	}
	defer d.Close(ctx)
	if info != nil {
		pd, err2 := readPDFiumDoc(ctx, d, e.opts.MaxPages)
		if err2 != nil {
			err = errOpen{err2}
			return
		}
		if pd.pages > e.opts.MaxPages {
			err = errOpen{fmt.Errorf("%w: %d pages, more than the limit of %d", ErrTooLarge, pd.pages, e.opts.MaxPages)}
			return
		}
		j.pages = pd.pages
		j.results = make(chan pageResult, pd.pages+1)
		select {
		case info <- pd:
		case <-j.done:
			return
		}
	}
	// Other workers are started by the coordinator after the opener has
	// set up j.pages and j.results, so they see both.
	var buf []pdfium.Char
	for !w.abandoned() {
		i := int(j.next.Add(1)) - 1
		if i >= j.pages {
			w.busySince.Store(0)
			return
		}
		w.page.Store(int32(i))
		w.busySince.Store(0)
		if err = j.gate.wait(i, j.done); err != nil {
			gated = true
			return
		}
		w.busySince.Store(time.Now().UnixNano())
		var pg *rawPage
		pg, buf, err = readPage(ctx, d, i, e.opts.MaxCharsPerPage, buf)
		w.busySince.Store(0)
		if err != nil && w.in.Dead() {
			// The instance is gone; the coordinator counts the page lost.
			return
		}
		if w.abandoned() {
			return
		}
		select {
		case j.results <- pageResult{index: i, page: pg, err: err}:
		case <-j.done:
			return
		}
		err = nil
	}
}

func readPDFiumDoc(ctx context.Context, d *pdfium.Document, maxPages int) (*pdfiumDoc, error) {
	n, err := d.PageCount(ctx)
	if err != nil {
		return nil, err
	}
	pd := &pdfiumDoc{pages: n}
	if n > maxPages || n <= 0 {
		return pd, nil
	}
	if pd.outline, err = d.Outline(ctx, maxOutline, 8); err != nil {
		return nil, err
	}
	labeled := false
	pd.labels = make([]string, n)
	for i := range n {
		if pd.labels[i], err = d.PageLabel(ctx, i); err != nil {
			return nil, err
		}
		labeled = labeled || pd.labels[i] != ""
	}
	if !labeled {
		pd.labels = nil
	}
	if pd.title, err = d.MetaText(ctx, "Title"); err != nil {
		return nil, err
	}
	if pd.author, err = d.MetaText(ctx, "Author"); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		key string
		to  *string
	}{{"Subject", &pd.info.subject}, {"Keywords", &pd.info.keywords}} {
		if *f.to, err = d.MetaText(ctx, f.key); err != nil {
			return nil, err
		}
	}
	return pd, nil
}

// scanLetters: a page with an image and fewer letters and digits than this
// is a scan. Scans often carry a line of text stamped on every page (a
// library's "Downloaded from…"), which does not make them text.
const scanLetters = 20

// maxOutline bounds the outline entries read.
const maxOutline = 10000

// readPage extracts one page: characters, fragments, fonts. buf is reused
// across pages.
func readPage(ctx context.Context, d *pdfium.Document, index, maxChars int, buf []pdfium.Char) (*rawPage, []pdfium.Char, error) {
	tp, err := d.LoadPage(ctx, index)
	if err != nil {
		return nil, buf, err
	}
	defer tp.Close(ctx)
	pg := &rawPage{width: float64(tp.Width), height: float64(tp.Height), rotation: tp.Rotation}
	pg.box = [4]float64{0, 0, pg.width, pg.height}
	if pg.rotation%2 != 0 {
		pg.box[2], pg.box[3] = pg.height, pg.width
	}
	if b := tp.Box; tp.HasBox && b[2]-b[0] > 1 && b[3]-b[1] > 1 {
		pg.box = [4]float64{float64(b[0]), float64(b[1]), float64(b[2]), float64(b[3])}
	}
	n, err := tp.CountChars(ctx)
	if err != nil {
		return nil, buf, err
	}
	if n > maxChars {
		n, pg.truncated = maxChars, true
	}
	chars, err := tp.Chars(ctx, n, buf[:0])
	if err != nil {
		return nil, buf, err
	}
	pg.chars = n
	fontIdx := map[string]int{}
	for i := range chars {
		c := &chars[i]
		if isStandIn(c.Rune) {
			// Private-use characters of the planes stand-ins use carry
			// nothing searchable; they must not pass for stand-ins.
			c.Rune = -1
			continue
		}
		if !c.Unmapped && !suspicious(c.Rune) {
			if unicode.IsLetter(c.Rune) || unicode.IsDigit(c.Rune) {
				pg.mapped++
			}
			continue
		}
		name, err := tp.FontName(ctx, i)
		if err != nil {
			return nil, chars, err
		}
		k, ok := fontIdx[name]
		if !ok {
			k = len(pg.fonts)
			fontIdx[name] = k
			pg.fonts = append(pg.fonts, name)
		}
		pg.unmapped = append(pg.unmapped, unmappedChar{font: k, code: uint32(c.Rune)})
		c.Rune = standIn(len(pg.unmapped) - 1)
	}
	if pg.mapped < scanLetters {
		if pg.image, err = tp.HasImage(ctx); err != nil {
			return nil, chars, err
		}
	}
	pg.frags = buildFragments(chars)
	for i := range pg.frags {
		f := &pg.frags[i]
		if f.first < 0 {
			continue
		}
		a, err := tp.Style(ctx, f.first)
		if err != nil {
			return nil, chars, err
		}
		var b pdfium.Style
		hasB := f.last > f.first+2
		if hasB {
			if b, err = tp.Style(ctx, f.last); err != nil {
				return nil, chars, err
			}
		}
		f.applyStyle(a, b, hasB)
	}
	for i := range pg.frags {
		f := &pg.frags[i]
		if f.size <= 0 {
			f.size = f.h / 1.15
		}
		f.spaceGaps()
	}
	return pg, chars, nil
}
