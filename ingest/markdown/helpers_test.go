package markdown

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

func mustParse(t *testing.T, src string) *doc.Document {
	t.Helper()
	d, err := Parse(context.Background(), []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	checkInvariants(t, d, []byte(src))
	return d
}

// outlineOf renders chapters and sections with their anchors and block
// counts, one per line, sections indented:
//
//	Title L1
//	  "" L1 x2
//	  Sub L5 x1
func outlineOf(d *doc.Document) string {
	var sb strings.Builder
	for _, ch := range d.Chapters {
		fmt.Fprintf(&sb, "%s %s\n", ch.Title, ch.Anchor)
		for _, s := range ch.Sections {
			title := s.Title
			if title == "" {
				title = `""`
			}
			fmt.Fprintf(&sb, "  %s %s x%d\n", title, s.Anchor, len(s.Blocks))
		}
	}
	return sb.String()
}

func chapterTitles(d *doc.Document) []string {
	var out []string
	for _, ch := range d.Chapters {
		out = append(out, ch.Title)
	}
	return out
}

func sectionTitles(ch doc.Chapter) []string {
	var out []string
	for _, s := range ch.Sections {
		out = append(out, s.Title)
	}
	return out
}

func findBlock(d *doc.Document, pred func(doc.Block) bool) (doc.Block, bool) {
	for _, b := range d.Blocks() {
		if pred(b) {
			return b, true
		}
	}
	return doc.Block{}, false
}

var anchorRE = regexp.MustCompile(`^L[1-9][0-9]*$`)

// checkInvariants verifies what every parse must guarantee, whatever the
// input: valid UTF-8 everywhere, no empty chapter, section or block, anchors
// and lines inside the file and in reading order.
func checkInvariants(tb testing.TB, d *doc.Document, data []byte) {
	tb.Helper()
	if d == nil {
		tb.Fatal("nil document")
	}
	if d.SourceType != doc.Markdown {
		tb.Errorf("SourceType = %q", d.SourceType)
	}
	strs := append([]string{d.Title, d.Language}, d.Authors...)
	for _, s := range strs {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			tb.Errorf("invalid metadata string %q", s)
		}
	}
	// Count lines the way Parse does: CRLF, CR and LF each end a line.
	lines := 1 + bytes.Count(data, []byte("\n")) + bytes.Count(data, []byte("\r")) - bytes.Count(data, []byte("\r\n"))
	prev := 0
	checkAnchor := func(what, a string) {
		tb.Helper()
		if !anchorRE.MatchString(a) {
			tb.Errorf("%s anchor %q", what, a)
			return
		}
		var n int
		fmt.Sscanf(a, "L%d", &n)
		if n > lines {
			tb.Errorf("%s anchor %s past the last line %d", what, a, lines)
		}
	}
	for ci, ch := range d.Chapters {
		if !utf8.ValidString(ch.Title) {
			tb.Errorf("chapter %d title not UTF-8", ci)
		}
		checkAnchor("chapter", ch.Anchor)
		if len(ch.Sections) == 0 {
			tb.Errorf("chapter %d %q has no sections", ci, ch.Title)
		}
		for si, s := range ch.Sections {
			if !utf8.ValidString(s.Title) {
				tb.Errorf("section %d.%d title not UTF-8", ci, si)
			}
			checkAnchor("section", s.Anchor)
			if len(s.Blocks) == 0 {
				tb.Errorf("section %d.%d %q has no blocks", ci, si, s.Title)
			}
			for _, b := range s.Blocks {
				if strings.TrimSpace(b.Text) == "" {
					tb.Errorf("empty block at line %d in %d.%d", b.Line, ci, si)
				}
				if !utf8.ValidString(b.Text) || strings.ContainsRune(b.Text, 0) {
					tb.Errorf("block at line %d: invalid text %q", b.Line, b.Text)
				}
				if b.Line < 1 || b.Line > lines {
					tb.Errorf("block line %d outside 1..%d", b.Line, lines)
				}
				if b.Line < prev {
					tb.Errorf("block line %d after line %d: out of order", b.Line, prev)
				}
				prev = b.Line
				if b.Page != 0 || b.PageEnd != 0 {
					tb.Errorf("block at line %d has a page", b.Line)
				}
			}
		}
	}
}
