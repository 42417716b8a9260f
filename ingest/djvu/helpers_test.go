package djvu

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// check verifies what every parse must keep: the source type, valid text
// without NULs, no empty chapter, section or block, blocks trimmed, and
// each block on a page of the document, pages in order.
func check(tb testing.TB, d *doc.Document) {
	tb.Helper()
	if d.SourceType != doc.DjVu {
		tb.Errorf("SourceType = %q", d.SourceType)
	}
	valid := func(what, s string) {
		tb.Helper()
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			tb.Errorf("%s: invalid text %q", what, s)
		}
	}
	valid("title", d.Title)
	for _, a := range d.Authors {
		valid("author", a)
	}
	if len(d.PageLabels) != 0 && len(d.PageLabels) != d.PageCount {
		tb.Errorf("%d page labels for %d pages", len(d.PageLabels), d.PageCount)
	}
	last := 0
	for ci, ch := range d.Chapters {
		valid("chapter", ch.Title)
		if len(ch.Sections) == 0 {
			tb.Errorf("chapter %d %q has no sections", ci, ch.Title)
		}
		for si, s := range ch.Sections {
			valid("section", s.Title)
			if len(s.Blocks) == 0 {
				tb.Errorf("section %d.%d has no blocks", ci, si)
			}
			for bi, b := range s.Blocks {
				what := fmt.Sprintf("block %d.%d.%d", ci, si, bi)
				valid(what, b.Text)
				if b.Text == "" || b.Text != strings.TrimSpace(b.Text) {
					tb.Errorf("%s: %q", what, b.Text)
				}
				if b.Page < 1 || b.Page > d.PageCount || b.Page < last {
					tb.Errorf("%s on page %d after %d of %d", what, b.Page, last, d.PageCount)
				}
				last = b.Page
			}
		}
	}
}
