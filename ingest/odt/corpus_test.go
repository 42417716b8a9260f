package odt

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// corpusDocs are the corpus's OpenDocument texts with what they must
// yield. Their tables of contents are their headings: the guide has a
// Title over 5 level-1 headings with 19 level-2 sections; odfdo's sample
// has one level-1 heading over three level-2 ones, so the lone top heading
// names the document and the three are its chapters.
var corpusDocs = []struct {
	file     string
	title    string
	authors  string
	chapters int
	sections int // titled ones
	some     []string
}{
	{"mostly-adequate-guide.odt", "Professor Frisby's Mostly Adequate Guide to Functional Programming", "Brian Lonsdorf (DrBoolean)", 6, 19,
		[]string{"Chapter 01: What Ever Are We Doing?", "Chapter 05: Coding by Composing"}},
	{"odfdo-doc-with-toc.odt", "Lorem 1", "", 4, 0, []string{"Lorem 1A", "Lorem 1B", "Lorem 1C"}},
}

func readCorpus(tb testing.TB, elem ...string) []byte {
	tb.Helper()
	data, err := os.ReadFile(testcorpus.Path(tb, elem...))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// TestCorpus parses each document and compares its words with the
// reference text: word F1 of at least 0.95.
func TestCorpus(t *testing.T) {
	for _, tc := range corpusDocs {
		t.Run(tc.file, func(t *testing.T) {
			data := readCorpus(t, "books", "odt", tc.file)
			ref := readCorpus(t, "reference", "books", "odt", tc.file+".txt")
			d, err := Parse(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			f1, p, r := doctest.WordF1(doctest.Words(doctest.Text(d)), doctest.Words(string(ref)))
			sections := 0
			for _, ch := range d.Chapters {
				for _, s := range ch.Sections {
					if s.Title != "" {
						sections++
					}
				}
			}
			t.Logf("word F1 %.4f (precision %.4f, recall %.4f), %d chapters, %d sections", f1, p, r, len(d.Chapters), sections)
			if f1 < 0.95 {
				t.Errorf("word F1 %.4f < 0.95", f1)
			}
			if d.Title != tc.title || strings.Join(d.Authors, "|") != tc.authors {
				t.Errorf("metadata %q %q", d.Title, d.Authors)
			}
			if len(d.Chapters) != tc.chapters || sections != tc.sections {
				t.Errorf("%d chapters and %d sections, want %d and %d:\n%s", len(d.Chapters), sections, tc.chapters, tc.sections, doctest.Outline(d))
			}
			out := doctest.Outline(d)
			for _, s := range tc.some {
				if !strings.Contains(out, s+"\n") {
					t.Errorf("no chapter %q", s)
				}
			}
		})
	}
}

func BenchmarkCorpus(b *testing.B) {
	for _, tc := range corpusDocs {
		b.Run(tc.file, func(b *testing.B) {
			data := readCorpus(b, "books", "odt", tc.file)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(context.Background(), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
