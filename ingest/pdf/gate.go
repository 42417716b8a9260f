package pdf

import (
	"errors"
	"sync"
)

// gate holds PDFium back until the audit has cleared what it is about to
// read: the document (its object streams) before PDFium opens it, and
// each page before PDFium loads that page. The audit runs with pdfcpu's
// reading of the file, beside PDFium, and keeps well ahead of it.
//
// When pdfcpu cannot read the file there is nothing to audit; the gate
// then opens entirely, and PDFium's own memory limit is what bounds it.
type gate struct {
	mu      sync.Mutex
	open    bool // the document may be opened
	pages   int  // pages cleared
	done    bool // everything is cleared, or nothing could be audited
	checked bool // the audit ran (false when pdfcpu could not read the file)
	err     error
	// changed is closed, and replaced, at every change.
	changed chan struct{}
	// failed is closed when the audit refuses the document.
	failed chan struct{}
}

func newGate() *gate {
	return &gate{changed: make(chan struct{}), failed: make(chan struct{})}
}

// errStopped is what wait returns when its caller gave up first.
var errStopped = errors.New("stopped waiting for the audit")

// wait blocks until page (0-based; -1 for opening the document) is
// cleared, the audit refuses the document (its error), or stop is closed.
// A nil gate never blocks.
func (g *gate) wait(page int, stop <-chan struct{}) error {
	if g == nil {
		return nil
	}
	for {
		g.mu.Lock()
		cleared := g.open && page < 0 || page >= 0 && page < g.pages
		err, ok, ch := g.err, g.done || cleared, g.changed
		g.mu.Unlock()
		switch {
		case err != nil:
			return err
		case ok:
			return nil
		}
		select {
		case <-ch:
		case <-stop:
			return errStopped
		}
	}
}

func (g *gate) update(f func()) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done || g.err != nil {
		return
	}
	f()
	close(g.changed)
	g.changed = make(chan struct{})
}

// opened clears the document for opening: its pages follow.
func (g *gate) opened() { g.update(func() { g.open, g.checked = true, true }) }

// cleared clears the first n pages.
func (g *gate) cleared(n int) { g.update(func() { g.pages = n }) }

// finish clears everything: the audit is over, or could not run. Safe to
// call after fail, which it leaves in place.
func (g *gate) finish() { g.update(func() { g.done = true }) }

// fail refuses the document.
func (g *gate) fail(err error) {
	g.update(func() {
		g.err = err
		close(g.failed)
	})
}

// audited reports whether the audit is running or ran: false means PDFium
// reads the document unchecked.
func (g *gate) audited() bool {
	if g == nil {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.checked
}

// reason is why the audit refused the document, or nil.
func (g *gate) reason() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// refused is closed when the audit refuses the document; nil for a nil
// gate, so that selecting on it never fires.
func (g *gate) refused() <-chan struct{} {
	if g == nil {
		return nil
	}
	return g.failed
}
