package pdf

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// testExtractor is shared by the tests: PDFium starts once per test
// binary. Its compiled code is cached in the temporary directory, not in
// the user's cache.
var testExtractor *Extractor

func TestMain(m *testing.M) {
	level := slog.LevelWarn
	if os.Getenv("GRIMOIRE_PDF_DEBUG") != "" {
		level = slog.LevelDebug
	}
	testExtractor = NewExtractor(Options{
		CacheDir: testCacheDir(),
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
	})
	code := m.Run()
	if err := testExtractor.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "closing the extractor:", err)
		code = 1
	}
	os.Exit(code)
}

func testCacheDir() string { return filepath.Join(os.TempDir(), "grimoire-test-pdfium-cache") }

func parseBytes(t testing.TB, data []byte) *doc.Document {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := testExtractor.Parse(ctx, data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	checkTree(t, d)
	return d
}

// checkTree asserts what every parsed document must satisfy.
func checkTree(t testing.TB, d *doc.Document) {
	t.Helper()
	if d.SourceType != doc.PDF {
		t.Errorf("source type %q", d.SourceType)
	}
	if len(d.PageLabels) != 0 && len(d.PageLabels) != d.PageCount {
		t.Errorf("%d page labels for %d pages", len(d.PageLabels), d.PageCount)
	}
	if len(d.Chapters) == 0 {
		t.Error("no chapters")
	}
	for _, s := range append([]string{d.Title, d.Language}, d.Authors...) {
		if !utf8.ValidString(s) {
			t.Errorf("invalid UTF-8 in %q", s)
		}
	}
	last := 0
	for ci, c := range d.Chapters {
		if len(c.Sections) == 0 {
			t.Errorf("chapter %d %q has no sections", ci, c.Title)
		}
		for si, s := range c.Sections {
			if len(s.Blocks) == 0 {
				t.Errorf("chapter %d section %d %q has no blocks", ci, si, s.Title)
			}
			for _, b := range s.Blocks {
				if strings.TrimSpace(b.Text) == "" {
					t.Errorf("empty block on page %d", b.Page)
				}
				if !utf8.ValidString(b.Text) || strings.ContainsAny(b.Text, "\x00\x02\uFFFD\uFDD0") || strings.ContainsFunc(b.Text, isStandIn) {
					t.Errorf("bad characters in %.60q", b.Text)
				}
				if b.Page < 1 || b.Page > d.PageCount {
					t.Errorf("block page %d of %d: %.40q", b.Page, d.PageCount, b.Text)
				}
				if b.Page < last {
					t.Errorf("block on page %d after page %d: %.40q", b.Page, last, b.Text)
				}
				last = b.Page
				if b.PageEnd != 0 {
					t.Errorf("block spans pages %d-%d", b.Page, b.PageEnd)
				}
			}
		}
	}
}

func chapterTitles(d *doc.Document) []string {
	var out []string
	for _, c := range d.Chapters {
		out = append(out, c.Title)
	}
	return out
}

// pageTexts returns the text of each page, in order.
func pageTexts(d *doc.Document) []string {
	out := make([]string, d.PageCount)
	for _, c := range d.Chapters {
		for _, s := range c.Sections {
			for _, b := range s.Blocks {
				out[b.Page-1] += b.Text + "\n\n"
			}
		}
	}
	return out
}

// outline prints chapters and sections, for failure messages.
func outline(d *doc.Document) string {
	var b strings.Builder
	for _, c := range d.Chapters {
		fmt.Fprintf(&b, "%q\n", c.Title)
		for _, s := range c.Sections {
			fmt.Fprintf(&b, "  %q blocks=%d pages %d-%d %.50q\n", s.Title, len(s.Blocks), s.Blocks[0].Page, s.Blocks[len(s.Blocks)-1].Page, s.Blocks[0].Text)
		}
	}
	return b.String()
}
