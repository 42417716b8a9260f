package text

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// lines joins fixture lines with "\n" and ends the text with one.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// prose returns a hard-wrapped paragraph of n lines of ordinary sentences,
// different for each seed so that paragraphs can be told apart.
func prose(seed, n int) string {
	words := []string{"the", "river", "ran", "slowly", "past", "an", "old", "mill", "where",
		"nobody", "had", "worked", "for", "years", "and", "children", "said", "ghosts",
		"lived", "under", "its", "wheel", "which", "was", "of", "course", "nonsense"}
	var out []string
	w := seed
	for i := range n {
		var l []string
		for len(strings.Join(l, " ")) < 62 {
			l = append(l, words[w%len(words)])
			w += 7
		}
		s := strings.Join(l, " ")
		if i == 0 {
			s = strings.ToUpper(s[:1]) + s[1:]
		}
		if i == n-1 {
			s += "."
		}
		out = append(out, s)
	}
	return strings.Join(out, "\n")
}

// mustParse parses a fixture and fails the test on error.
func mustParse(t *testing.T, text string) *doc.Document {
	t.Helper()
	d, err := Parse(context.Background(), []byte(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	checkTree(t, d)
	return d
}

// checkTree asserts the invariants every parsed document must keep.
func checkTree(t testing.TB, d *doc.Document) {
	t.Helper()
	if d.SourceType != doc.Text {
		t.Errorf("SourceType = %q, want %q", d.SourceType, doc.Text)
	}
	if len(d.Chapters) == 0 {
		t.Fatalf("no chapters")
	}
	lastLine := 0
	for ci, c := range d.Chapters {
		if len(c.Sections) == 0 {
			t.Errorf("chapter %d %q has no sections", ci, c.Title)
		}
		if !validAnchor(c.Anchor) {
			t.Errorf("chapter %d anchor %q", ci, c.Anchor)
		}
		for si, s := range c.Sections {
			if len(s.Blocks) == 0 {
				t.Errorf("chapter %d section %d %q has no blocks", ci, si, s.Title)
			}
			if !validAnchor(s.Anchor) {
				t.Errorf("chapter %d section %d anchor %q", ci, si, s.Anchor)
			}
			for bi, b := range s.Blocks {
				if strings.TrimSpace(b.Text) == "" {
					t.Errorf("chapter %d section %d block %d is empty", ci, si, bi)
				}
				if b.Line < lastLine || b.Line < 1 {
					t.Errorf("block at line %d after line %d", b.Line, lastLine)
				}
				lastLine = b.Line
			}
		}
	}
}

func validAnchor(a string) bool {
	var n int
	_, err := fmt.Sscanf(a, "L%d", &n)
	return err == nil && n >= 1 && a == fmt.Sprintf("L%d", n)
}

func chapterTitles(d *doc.Document) []string {
	var ts []string
	for _, c := range d.Chapters {
		ts = append(ts, c.Title)
	}
	return ts
}

// outline renders the document's structure for golden files and failure
// messages: chapters and sections with their anchors and block counts.
func outline(d *doc.Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %q\nauthors: %q\nlanguage: %q\n", d.Title, d.Authors, d.Language)
	for _, c := range d.Chapters {
		fmt.Fprintf(&b, "%s %q\n", c.Anchor, c.Title)
		for _, s := range c.Sections {
			fmt.Fprintf(&b, "  %s %q blocks=%d\n", s.Anchor, s.Title, len(s.Blocks))
		}
	}
	return b.String()
}
