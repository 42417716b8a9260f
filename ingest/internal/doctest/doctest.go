// Package doctest holds what the tests of the parsers share: the
// invariants every parsed document keeps, a golden rendering of a
// document, and the word F1 that compares a parse with a reference text.
package doctest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/golden"
)

// Check verifies what every parse must guarantee, whatever the input: the
// source type, valid UTF-8 without NULs, no empty chapter, section or
// block, blocks without white space around them (but code), no pages.
func Check(tb testing.TB, d *doc.Document, sourceType string) {
	tb.Helper()
	if d == nil {
		tb.Fatal("nil document")
	}
	if d.SourceType != sourceType {
		tb.Errorf("SourceType = %q, want %q", d.SourceType, sourceType)
	}
	checkString := func(what, s string) {
		tb.Helper()
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			tb.Errorf("%s: invalid text %q", what, s)
		}
	}
	checkString("title", d.Title)
	checkString("language", d.Language)
	for _, a := range d.Authors {
		checkString("author", a)
		if strings.TrimSpace(a) == "" {
			tb.Error("empty author")
		}
	}
	for ci, ch := range d.Chapters {
		what := fmt.Sprintf("chapter %d %q", ci, ch.Title)
		checkString(what, ch.Title)
		checkString(what+" anchor", ch.Anchor)
		if len(ch.Sections) == 0 {
			tb.Errorf("%s has no sections", what)
		}
		for si, s := range ch.Sections {
			what := fmt.Sprintf("section %d.%d %q", ci, si, s.Title)
			checkString(what, s.Title)
			checkString(what+" anchor", s.Anchor)
			if len(s.Blocks) == 0 {
				tb.Errorf("%s has no blocks", what)
			}
			for bi, b := range s.Blocks {
				what := fmt.Sprintf("block %d.%d.%d", ci, si, bi)
				if strings.TrimSpace(b.Text) == "" {
					tb.Errorf("%s is empty", what)
				}
				if b.Text != strings.TrimSpace(b.Text) && b.Kind != doc.Code {
					tb.Errorf("%s has white space around it: %q", what, b.Text)
				}
				checkString(what, b.Text)
				checkString(what+" anchor", b.Anchor)
				if b.Page != 0 || b.PageEnd != 0 {
					tb.Errorf("%s has a page", what)
				}
				if b.Kind < doc.Paragraph || b.Kind > doc.Quote {
					tb.Errorf("%s has kind %d", what, b.Kind)
				}
			}
		}
	}
}

// Dump renders a document for a golden file: its metadata, its outline
// with anchors, then every block's kind, anchor and text.
func Dump(d *doc.Document) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "title: %q\n", d.Title)
	fmt.Fprintf(&sb, "authors: %q\n", d.Authors)
	fmt.Fprintf(&sb, "language: %q\n", d.Language)
	// The catalogue only where the file gives one, so that the dumps of
	// files without one read as before.
	c := d.Catalog
	if c.Publisher != "" {
		fmt.Fprintf(&sb, "publisher: %q\n", c.Publisher)
	}
	if len(c.Tags) > 0 {
		fmt.Fprintf(&sb, "tags: %q\n", c.Tags)
	}
	if c.Published != "" {
		fmt.Fprintf(&sb, "published: %q\n", c.Published)
	}
	for _, scheme := range slices.Sorted(maps.Keys(c.Identifiers)) {
		fmt.Fprintf(&sb, "identifier %s: %q\n", scheme, c.Identifiers[scheme])
	}
	if c.Series != "" {
		fmt.Fprintf(&sb, "series: %q %g\n", c.Series, c.SeriesIndex)
	}
	fmt.Fprintf(&sb, "source: %s\n", d.SourceType)
	for ci, ch := range d.Chapters {
		fmt.Fprintf(&sb, "chapter %d %q %s\n", ci+1, ch.Title, ch.Anchor)
		for si, s := range ch.Sections {
			fmt.Fprintf(&sb, "  section %d.%d %q %s\n", ci+1, si+1, s.Title, s.Anchor)
			for _, b := range s.Blocks {
				fmt.Fprintf(&sb, "    %s %s\n", b.Kind, b.Anchor)
				for ln := range strings.SplitSeq(b.Text, "\n") {
					fmt.Fprintf(&sb, "      |%s\n", ln)
				}
			}
		}
	}
	return sb.String()
}

// Golden compares got with the golden file at path, or writes it when
// update is set (the test's -update flag).
func Golden(tb testing.TB, path, got string, update bool) {
	tb.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run the test with -update to write it)", err)
	}
	if string(want) != got {
		tb.Errorf("%s differs (run with -update to accept):\n%s", path, golden.LineDiff(string(want), got))
	}
}

// Text is everything of d that the index makes searchable: the titles of
// chapters and sections and the text of every block.
func Text(d *doc.Document) string {
	var sb strings.Builder
	for _, c := range d.Chapters {
		sb.WriteString(c.Title + "\n")
		for _, s := range c.Sections {
			sb.WriteString(s.Title + "\n")
			for _, b := range s.Blocks {
				sb.WriteString(b.Text + "\n\n")
			}
		}
	}
	return sb.String()
}

// Words splits text into the tokens a comparison with a reference counts:
// NFKC-normalized, lower-cased runs of letters, digits and combining marks,
// with each Han, Kana or Hangul character a token of its own.
func Words(s string) map[string]int {
	out := make(map[string]int)
	s = norm.NFKC.String(s)
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			out[w.String()]++
			w.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			out[string(r)]++
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			w.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return out
}

// WordF1 is the harmonic mean of the precision and recall of got's words
// against want's, counted as multisets.
func WordF1(got, want map[string]int) (f1, precision, recall float64) {
	var g, w, both int
	for k, n := range got {
		g += n
		both += min(n, want[k])
	}
	for _, n := range want {
		w += n
	}
	if g == 0 || w == 0 {
		return 0, 0, 0
	}
	precision, recall = float64(both)/float64(g), float64(both)/float64(w)
	if both == 0 {
		return 0, precision, recall
	}
	return 2 * precision * recall / (precision + recall), precision, recall
}

// Outline renders a document's chapter titles one per line, each followed
// by its titled sections indented by two spaces.
func Outline(d *doc.Document) string {
	var sb strings.Builder
	for _, ch := range d.Chapters {
		fmt.Fprintf(&sb, "%s\n", ch.Title)
		for _, s := range ch.Sections {
			if s.Title != "" {
				fmt.Fprintf(&sb, "  %s\n", s.Title)
			}
		}
	}
	return sb.String()
}
