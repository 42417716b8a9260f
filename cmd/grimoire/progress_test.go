package main

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func TestProgressLineRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		line           progressLine
		elapsed, inRun time.Duration
		want           string
	}{
		{"a step without a measure", progressLine{step: "scanning the library"}, 2 * time.Second, 2 * time.Second,
			"scanning the library  2s"},
		{"no estimate before there is progress", progressLine{step: "indexing", total: 100, count: "book 1/3", now: `parsing "Walden" (1.2 MB)`},
			90 * time.Second, 80 * time.Second,
			`indexing book 1/3 [>                   ]   0%  1m30s  parsing "Walden" (1.2 MB)`},
		{"no estimate in the first seconds", progressLine{step: "hashing", done: 50, total: 100, count: "50/100 files"},
			2 * time.Second, 2 * time.Second,
			"hashing 50/100 files [==========>         ]  50%  2s"},
		{"an estimate from the step's pace", progressLine{step: "indexing", done: 25, total: 100, count: "book 2/3", now: `"Walden": embedding 340/1,204 chunks`},
			time.Hour + 5*time.Minute, 40 * time.Second,
			`indexing book 2/3 [=====>              ]  25%  1h05m, about 2m00s left  "Walden": embedding 340/1,204 chunks`},
		{"OCR's own estimate, not the step's clock", progressLine{step: "OCR", done: 30, total: 340, count: "30/340 pages", now: `"Logbook", 2.0 pages/min, book 3/3`, ownPace: true, left: 155 * time.Minute},
			4 * time.Hour, 2 * time.Second,
			`OCR 30/340 pages [=>                  ]   8%  4h00m, about 2h35m left  "Logbook", 2.0 pages/min, book 3/3`},
		{"OCR before a page is read: no estimate", progressLine{step: "OCR", done: 10, total: 340, count: "10/340 pages", now: `"Logbook", book 3/3`, ownPace: true},
			4 * time.Hour, time.Hour,
			`OCR 10/340 pages [>                   ]   2%  4h00m  "Logbook", book 3/3`},
		{"done", progressLine{step: "querying", done: 300, total: 300, count: "300/300 queries"}, 9 * time.Second, 9 * time.Second,
			"querying 300/300 queries [====================] 100%  9s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.line.render(tc.elapsed, tc.inRun); got != tc.want {
				t.Errorf("render:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestFitColumns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		cols int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"a line too long", 10, "a line to…"},
		{"東京の本を読む", 7, "東京の…"},
	}
	for _, tc := range tests {
		if got := fitColumns(tc.in, tc.cols); got != tc.want {
			t.Errorf("fitColumns(%q, %d) = %q, want %q", tc.in, tc.cols, got, tc.want)
		}
	}
}

func TestChangeLogPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		roots []string
		path  string
		want  string
	}{
		{"one folder: from the folder", []string{"/lib"}, "/lib/shelf/a.md", "shelf/a.md"},
		{"several: from above, naming the folder", []string{"/home/u/Books", "/mnt/papers"}, "/mnt/papers/x.pdf", "papers/x.pdf"},
		{"outside every folder: whole", []string{"/lib"}, "/elsewhere/a.md", "/elsewhere/a.md"},
		{"control characters made visible", []string{"/lib"}, "/lib/evil\x1b[31m.md", `evil\x1b[31m.md`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &changeLog{roots: tc.roots}
			if got := c.path(tc.path); got != tc.want {
				t.Errorf("path(%q) = %q, want %q", tc.path, got, tc.want)
			}
		})
	}
}

// TestProgressLineFit lays out lines with long names at the widths of
// common terminals: the name keeps its start and its end, the other
// fields give way first, and no line is wider than the terminal.
func TestProgressLineFit(t *testing.T) {
	t.Parallel()
	const name = "The History of the Decline and Fall of the Roman Empire, Volume the Third"
	parsing := progressLine{step: "indexing", done: 41, total: 100, count: "book 3/12", now: `parsing "` + name + `" (1.2 MB)`}
	embedding := progressLine{step: "indexing", done: 41, total: 100, count: "book 3/12", now: `"` + name + `": embedding 340/1,204 chunks`}
	ocr := progressLine{step: "OCR", done: 30, total: 340, count: "30/340 pages", now: `"` + name + `", 2.0 pages/min, book 3/3`, ownPace: true, left: 155 * time.Minute}
	wide := ocr
	wide.now = `"東京の本を読む東京の本を読む東京の本を読む東京の本を読む", 2.0 pages/min, book 3/3`
	tests := []struct {
		name string
		line progressLine
		cols int
		want string
	}{
		{"parsing at 40", parsing, 40, `indexing  41%  parsing "Th…rd" (1.2 MB)`},
		{"parsing at 80", parsing, 80, `indexing book 3/12  41%  58s left  parsing "The History …me the Third" (1.2 MB)`},
		{"parsing at 120", parsing, 120, `indexing book 3/12  41%  58s left  parsing "The History of the Decline and F…e Roman Empire, Volume the Third" (1.2 MB)`},
		{"embedding at 40", embedding, 40, `indexing  41%  "The History of the Dec…`},
		{"embedding at 80", embedding, 80, `indexing  41%  58s left  "The History …e the Third": embedding 340/1,204 chunks`},
		{"embedding at 120", embedding, 120, `indexing book 3/12  41%  58s left  "The History of the Decline …n Empire, Volume the Third": embedding 340/1,204 chunks`},
		{"OCR at 40", ocr, 40, `OCR   8%  "The History of the Decline …`},
		{"OCR at 80", ocr, 80, `OCR   8%  2h35m left  "The History of …lume the Third", 2.0 pages/min, book 3/3`},
		{"OCR at 120", ocr, 120, `OCR 30/340 pages   8%  2h35m left  "The History of the Decline a…man Empire, Volume the Third", 2.0 pages/min, book 3/3`},
		{"wide characters at 80", wide, 80, `OCR   8%  2h35m left  "東京の本を読む…東京の本を読む", 2.0 pages/min, book 3/3`},
		{"wide characters at 120", wide, 120, `OCR 30/340 pages   8%  2h35m left  "東京の本を読む東京の本を読む東京の本を読む東京の本を読む", 2.0 pages/min, book 3/3`},
		{"short enough: all of it", progressLine{step: "hashing", done: 50, total: 100, count: "50/100 files"}, 80,
			"hashing 50/100 files [==========>         ]  50%  1h05m, about 40s left"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// draw leaves the last column free: a line that fills it
			// wraps on some terminals.
			got := tc.line.fit(65*time.Minute, 40*time.Second, tc.cols-1)
			if got != tc.want {
				t.Errorf("fit at %d:\n got %q\nwant %q", tc.cols, got, tc.want)
			}
			if n := columns(got); n > tc.cols-1 {
				t.Errorf("%d columns at %d", n, tc.cols)
			}
		})
	}
}

// TestOCRTimeLeftMoves follows a scan's OCR on a fake clock: the estimate
// of the time left counts down while a page is read, and grows once the
// page takes longer than the pace so far, rather than standing still
// until the page is done.
func TestOCRTimeLeftMoves(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	now := t0
	p := &progress{w: io.Discard, fd: -1, enabled: true, start: t0.Add(-time.Hour), now: func() time.Time { return now }}
	page := func(done int, left time.Duration) progressLine {
		return progressLine{step: "OCR", done: int64(done), total: 10, count: fmt.Sprintf("%d/10 pages", done), now: `"Logbook"`, ownPace: true, left: left}
	}
	steps := []struct {
		at   time.Duration // since t0
		line *progressLine // shown then; nil: only the clock moves
		want string        // the time left the line says, "" for none
	}{
		{0, ptr(page(0, 0)), ""},
		{30 * time.Second, nil, ""},
		{time.Minute, ptr(page(1, 9*time.Minute)), "about 9m00s left"},
		{90 * time.Second, nil, "about 8m30s left"},
		{2 * time.Minute, nil, "about 8m00s left"},
		// The second page has taken two minutes, twice the pace: were it
		// done now, eight pages at 1m30s each would be left.
		{3 * time.Minute, nil, "about 12m00s left"},
		{4 * time.Minute, nil, "about 16m00s left"},
		{4 * time.Minute, ptr(page(2, 16*time.Minute)), "about 16m00s left"},
		{5 * time.Minute, nil, "about 15m00s left"},
	}
	for _, st := range steps {
		now = t0.Add(st.at)
		if st.line != nil {
			p.show(*st.line)
		}
		p.mu.Lock()
		got := p.text(now, 200)
		p.mu.Unlock()
		if st.want == "" && strings.Contains(got, " left") || st.want != "" && !strings.Contains(got, ", "+st.want+"  ") {
			t.Errorf("at %v: %q, want %q", st.at, got, st.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
