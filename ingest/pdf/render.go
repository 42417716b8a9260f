package pdf

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/pdf/internal/pdfium"
)

// RenderPages draws the given pages (1-based) of a PDF in grayscale at dpi,
// in order, turned as each page's /Rotate says, and hands each to each as
// it is drawn; PDFium draws the next page meanwhile. It stops at the first
// error each returns, at ctx's end, or when a page takes longer than
// Options.PageTimeout to draw (its PDFium instance is then left behind, as
// Parse leaves one).
func (e *Extractor) RenderPages(ctx context.Context, data []byte, pages []int, dpi float64, each func(doc.PageImage) error) error {
	if err := sniff(data); err != nil {
		return err
	}
	if len(pages) == 0 {
		return nil
	}
	in, err := e.pool.acquire(ctx)
	if err != nil {
		return err
	}
	type result struct {
		r   doc.PageImage
		err error
	}
	// The drawer runs ahead of each by one page.
	results := make(chan result, 1)
	stop := make(chan struct{})
	var busySince atomic.Int64
	// state: 0 running, 1 exited, 2 abandoned; the first to move it from
	// running decides who hands the instance back.
	var state atomic.Int32
	go func() {
		healthy := true
		defer func() {
			if state.CompareAndSwap(0, 1) {
				e.pool.release(in, healthy)
			} else {
				e.pool.finishAbandoned(in)
			}
		}()
		send := func(r result) bool {
			select {
			case results <- r:
				return true
			case <-stop:
				return false
			}
		}
		busySince.Store(time.Now().UnixNano())
		d, err := in.OpenDocument(ctx, data, "")
		busySince.Store(0)
		if err != nil {
			healthy = !in.Dead()
			send(result{err: fmt.Errorf("%w: PDFium cannot open it to draw its pages (%v)", ErrDamaged, err)})
			return
		}
		defer d.Close(context.Background())
		for _, n := range pages {
			busySince.Store(time.Now().UnixNano())
			img, at, err := d.Render(ctx, n-1, dpi)
			busySince.Store(0)
			if err != nil {
				healthy = !in.Dead()
				send(result{err: fmt.Errorf("drawing page %d: %w", n, err)})
				return
			}
			if !send(result{r: doc.PageImage{Page: n, Image: img, DPI: at}}) {
				return
			}
		}
	}()
	defer close(stop)
	abandon := func() {
		if state.CompareAndSwap(0, 2) {
			e.pool.abandon()
		}
	}
	tick := time.NewTicker(watchInterval(e.opts.PageTimeout))
	defer tick.Stop()
	for done := 0; done < len(pages); {
		select {
		case r := <-results:
			if r.err != nil {
				if errors.Is(r.err, pdfium.ErrDead) && ctx.Err() != nil {
					return ctx.Err()
				}
				return r.err
			}
			if err := each(r.r); err != nil {
				return err
			}
			done++
		case <-tick.C:
			if t := busySince.Load(); t != 0 && time.Since(time.Unix(0, t)) > e.opts.PageTimeout {
				abandon()
				return fmt.Errorf("PDFium took longer than %v to draw a page", e.opts.PageTimeout)
			}
		case <-ctx.Done():
			abandon()
			return ctx.Err()
		}
	}
	return nil
}
