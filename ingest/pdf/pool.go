package pdf

import (
	"context"
	"errors"
	"sync"

	"github.com/grimoire-search/grimoire/ingest/pdf/internal/pdfium"
)

// maxStuck is how many abandoned instances may still be running inside
// PDFium (a page that overran its time limit cannot be interrupted, only
// left behind) before the extractor refuses new work.
const maxStuck = 4

var errStuck = errors.New("PDFium is still busy with pages that overran their time limit; restart grimoire to free it")

// pool owns the PDFium runtime and its instances. The runtime starts on
// first use, in the background, so that a slow first compile is not tied
// to one caller's context. Instances are kept idle between documents and
// replaced once they have served enough (their memory never shrinks).
type pool struct {
	e *Extractor

	mu       sync.Mutex
	rt       *pdfium.Runtime
	startErr error
	starting chan struct{}
	idle     []*pdfium.Instance
	active   int // instances handed out and not released
	stuck    int // abandoned instances whose goroutine has not returned
	closed   bool
	// slots holds one token per active instance, so that at most Workers
	// run at once; acquire blocks on it.
	slots chan struct{}
}

func (p *pool) init(e *Extractor) {
	p.e = e
	p.slots = make(chan struct{}, e.opts.Workers)
}

// runtime starts PDFium once; concurrent callers wait for the same start.
// A failed start is remembered: retrying would cost the same seconds for
// every PDF and fail the same way.
func (p *pool) runtime(ctx context.Context) (*pdfium.Runtime, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	if p.rt != nil || p.startErr != nil {
		defer p.mu.Unlock()
		return p.rt, p.startErr
	}
	if p.starting == nil {
		p.starting = make(chan struct{})
		go p.start()
	}
	ch := p.starting
	p.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	return p.rt, p.startErr
}

func (p *pool) start() {
	rt, err := p.e.startRuntime(context.Background(), p.e.opts.Workers+maxStuck)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.startErr = errPDFium(err)
	}
	p.rt = rt
	close(p.starting)
	if p.closed {
		p.shutdownLocked()
	}
}

// acquire returns an instance, waiting for a free slot until ctx ends.
func (p *pool) acquire(ctx context.Context) (*pdfium.Instance, error) {
	rt, err := p.runtime(ctx)
	if err != nil {
		return nil, err
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return p.take(ctx, rt)
}

// tryAcquire returns an instance only when a slot is free right now; it
// is how a long document borrows idle capacity without waiting.
func (p *pool) tryAcquire(ctx context.Context) (*pdfium.Instance, bool) {
	p.mu.Lock()
	rt := p.rt
	p.mu.Unlock()
	if rt == nil {
		return nil, false
	}
	select {
	case p.slots <- struct{}{}:
	default:
		return nil, false
	}
	in, err := p.take(ctx, rt)
	return in, err == nil
}

// take hands out an idle instance or makes one; the caller holds a slot.
func (p *pool) take(ctx context.Context, rt *pdfium.Runtime) (*pdfium.Instance, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.slots
		return nil, ErrClosed
	}
	if p.stuck >= maxStuck {
		p.mu.Unlock()
		<-p.slots
		return nil, errStuck
	}
	p.active++
	if n := len(p.idle); n > 0 {
		in := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return in, nil
	}
	p.mu.Unlock()
	in, err := rt.NewInstance(ctx)
	if err != nil {
		p.mu.Lock()
		p.active--
		p.mu.Unlock()
		<-p.slots
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, errPDFium(err)
	}
	return in, nil
}

// release returns an instance. One that failed, was asked to stop, or has
// served its share is closed instead of kept.
func (p *pool) release(in *pdfium.Instance, healthy bool) {
	o := p.e.opts
	docs, pages := in.Usage()
	keep := healthy && !in.Dead() && docs < o.RecycleDocuments && pages < o.RecyclePages && in.MemorySize() <= o.RecycleMemory
	p.mu.Lock()
	p.active--
	if keep && !p.closed {
		p.idle = append(p.idle, in)
		in = nil
	}
	p.mu.Unlock()
	if in != nil {
		in.Close()
	}
	<-p.slots
	p.mu.Lock()
	if p.closed {
		p.shutdownLocked()
	}
	p.mu.Unlock()
}

// abandon gives up on an instance whose goroutine is stuck in PDFium: its
// slot is freed at once, and the goroutine calls finishAbandoned when (if)
// PDFium returns.
func (p *pool) abandon() {
	p.mu.Lock()
	p.active--
	p.stuck++
	p.mu.Unlock()
	<-p.slots
}

func (p *pool) finishAbandoned(in *pdfium.Instance) {
	in.Close()
	p.mu.Lock()
	p.stuck--
	if p.closed {
		p.shutdownLocked()
	}
	p.mu.Unlock()
}

func (p *pool) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	return p.shutdownLocked()
}

// shutdownLocked closes idle instances, and the runtime once nothing runs
// in it any more: closing it under a running instance would pull its
// compiled code from under it.
func (p *pool) shutdownLocked() error {
	for _, in := range p.idle {
		in.Close()
	}
	p.idle = nil
	if p.rt == nil || p.active > 0 || p.stuck > 0 {
		return nil
	}
	err := p.rt.Close()
	p.rt = nil
	return err
}
