package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/ingest"
)

// plainEvery is how often a watch whose output is no terminal says how a
// book that takes long is getting on: often enough that a log shows the
// work alive, seldom enough that a 300-page scan writes a page of log,
// not thousands of lines.
const plainEvery = 30 * time.Second

// watchProgress tells, in a watch, how a book that takes long is getting
// on (a large book parsing, a scan read page by page): on a terminal as
// the line sync draws, shown once the book has been in work for
// progressDelay and taken away when it is done; elsewhere as a plain line
// of the change log every plainEvery while the book takes. A book that is
// done sooner says nothing but its change line.
type watchProgress struct {
	term *progress // the line on a terminal; nil elsewhere
	log  *changeLog
	now  func() time.Time

	mu sync.Mutex
	// line is the last progress of the book in work; its step is empty
	// when no book is.
	line  progressLine
	book  string
	since time.Time // when the book's work began
	told  time.Time // when a plain line last said how it went
	pace  ocrPace

	quit, stopped chan struct{}
}

// newWatchProgress follows a watch's ingest for log, which it keeps out
// of the way of the line on a terminal. done stops it.
func (a *cli) newWatchProgress(log *changeLog) *watchProgress {
	w := &watchProgress{log: log, now: time.Now}
	if p := a.newProgress(); p.enabled {
		p.start = time.Now()
		w.term, log.prog = p, p
		return w
	}
	w.quit, w.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(w.stopped)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-w.quit:
				return
			case now := <-t.C:
				w.tick(now)
			}
		}
	}()
	return w
}

// ingest takes the progress of the watch's ingest.
func (w *watchProgress) ingest(g ingest.Progress) {
	key := g.Book
	if g.Stage == ingest.StageStatistics {
		key = "" // the round's end, of no book
	}
	w.mu.Lock()
	now := w.now()
	if key != w.book || w.line.step == "" {
		w.book, w.since, w.told = key, now, time.Time{}
		if w.term != nil {
			w.term.restart(now)
		}
	}
	l := progressLine{}
	if g.Stage == ingest.StageOCR {
		l = ocrLine(g)
		w.pace.observe(l, now)
	} else {
		l = bookLine(g)
	}
	w.line = l
	w.mu.Unlock()
	if w.term != nil {
		w.term.show(l)
	}
}

// finished is told that a book is done, ready or not: its progress goes.
func (w *watchProgress) finished() {
	w.mu.Lock()
	w.line, w.book = progressLine{}, ""
	w.mu.Unlock()
	if w.term != nil {
		w.term.hide()
	}
}

// tick prints a plain line when the book in work has taken plainEvery
// since its work began or since the last line.
func (w *watchProgress) tick(now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.line.step == "" || now.Sub(w.since) < plainEvery || now.Sub(w.told) < plainEvery {
		return
	}
	w.told = now
	w.log.print(w.plain(now))
}

// plain is the line for a log: `OCR 30/340 pages (8%), 15m00s, about
// 2h35m left: "Logbook", 2.0 pages/min, book 1/1`. It runs under w.mu.
func (w *watchProgress) plain(now time.Time) string {
	l := w.line
	s := l.step
	if l.count != "" {
		s += " " + l.count
	}
	if l.total > 0 {
		s += fmt.Sprintf(" (%d%%)", int(min(float64(l.done)/float64(l.total), 1)*100))
	}
	s += ", " + clock(now.Sub(w.since))
	if l.ownPace {
		if left := w.pace.leftAt(now); left > 0 {
			s += ", about " + clock(roundLeft(left)) + " left"
		}
	}
	if l.now != "" {
		s += ": " + l.now
	}
	return s
}

// done stops following.
func (w *watchProgress) done() {
	if w.term != nil {
		w.term.done()
		return
	}
	close(w.quit)
	<-w.stopped
}
