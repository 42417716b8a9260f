package main

import (
	"testing"
	"time"
)

func TestProgressLineRender(t *testing.T) {
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
