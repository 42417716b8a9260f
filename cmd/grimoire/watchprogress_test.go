package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest"
)

// TestWatchProgressPlain follows a watch whose output is no terminal on a
// fake clock: a book that takes long gets a plain line every plainEvery,
// naming it, and a scan its pages and the time left; a book done sooner
// says nothing.
func TestWatchProgressPlain(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	now := t0
	var out bytes.Buffer
	w := &watchProgress{log: &changeLog{w: &out}, now: func() time.Time { return now }}
	parsing := ingest.Progress{Stage: ingest.StageParsing, Book: "Moby-Dick", Size: 1_200_000, BooksTotal: 1, BytesTotal: 1_200_000}
	ocr := func(done int, perMinute float64) ingest.Progress {
		return ingest.Progress{Stage: ingest.StageOCR, Book: "Logbook", BooksTotal: 1, PagesDone: done, PagesTotal: 10, PagesPerMinute: perMinute}
	}
	steps := []struct {
		at       time.Duration
		progress *ingest.Progress
		finished bool
		want     string // the line printed at this tick, "" for none
	}{
		{at: 0, progress: &parsing},
		{at: 10 * time.Second},
		{at: 30 * time.Second, want: `indexing book 1/1 (0%), 30s: parsing "Moby-Dick" (1.1 MB)`},
		{at: 45 * time.Second},
		{at: 60 * time.Second, want: `indexing book 1/1 (0%), 1m00s: parsing "Moby-Dick" (1.1 MB)`},
		{at: 70 * time.Second, finished: true},
		{at: 100 * time.Second, progress: ptr(ocr(0, 0))},
		{at: 130 * time.Second, want: `OCR 0/10 pages (0%), 30s: "Logbook", book 1/1`},
		{at: 160 * time.Second, progress: ptr(ocr(1, 1)), want: `OCR 1/10 pages (10%), 1m00s, about 9m00s left: "Logbook", 1.0 pages/min, book 1/1`},
		{at: 190 * time.Second, want: `OCR 1/10 pages (10%), 1m30s, about 8m30s left: "Logbook", 1.0 pages/min, book 1/1`},
		{at: 200 * time.Second, finished: true},
		{at: 210 * time.Second, progress: &ingest.Progress{Stage: ingest.StageParsing, Book: "Quick", Size: 100, BooksTotal: 1, BytesTotal: 100}},
		{at: 215 * time.Second, finished: true},
		{at: 240 * time.Second},
		{at: 300 * time.Second},
	}
	for _, st := range steps {
		now = t0.Add(st.at)
		if st.progress != nil {
			w.ingest(*st.progress)
		}
		if st.finished {
			w.finished()
		}
		out.Reset()
		w.tick(now)
		if got := strings.TrimSuffix(out.String(), "\n"); got != st.want {
			t.Errorf("at %v: printed %q, want %q", st.at, got, st.want)
		}
	}
}

// TestWatchProgressOnATerminal: on a terminal a book's line shows once the
// book has been in work for progressDelay, whatever the watch did before,
// and is taken away when the book is done.
func TestWatchProgressOnATerminal(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	now := t0
	var screen bytes.Buffer
	clock := func() time.Time { return now }
	p := &progress{w: &screen, fd: -1, enabled: true, start: t0.Add(-time.Hour), now: clock}
	w := &watchProgress{term: p, log: &changeLog{w: &bytes.Buffer{}, prog: p}, now: clock}
	draw := func(at time.Duration) string {
		now = t0.Add(at)
		screen.Reset()
		p.mu.Lock()
		p.draw()
		p.mu.Unlock()
		return screen.String()
	}
	w.ingest(ingest.Progress{Stage: ingest.StageOCR, Book: "Logbook", BooksTotal: 1, PagesDone: 3, PagesTotal: 300})
	if got := draw(progressDelay / 2); got != "" {
		t.Errorf("drawn before the book took progressDelay: %q", got)
	}
	if got := draw(2 * progressDelay); !strings.Contains(got, `OCR 3/300 pages`) || !strings.Contains(got, `"Logbook"`) {
		t.Errorf("drawn %q, want the book's pages", got)
	}
	screen.Reset()
	w.finished()
	if got := screen.String(); got != "\r\x1b[K" {
		t.Errorf("at the book's end: %q, want the line cleared", got)
	}
	if got := draw(10 * progressDelay); got != "" {
		t.Errorf("drawn with no book in work: %q", got)
	}
}
