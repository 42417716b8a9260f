package html

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// corpusPages are the corpus's HTML files with what they must yield. Their
// table of contents is their headings: Pride and Prejudice has an h1 and
// 64 h2, so 66 chapters with the Project Gutenberg header before them; the
// Patriot Act is one <pre> without headings.
var corpusPages = []struct {
	file     string
	parse    func(context.Context, []byte) (*doc.Document, error)
	typ      string
	title    string
	authors  string
	chapters int
	// some are chapter titles that must appear.
	some []string
}{
	{"pg1342.html", Parse, doc.HTML, "Pride and Prejudice", "", 66, []string{"PRIDE AND PREJUDICE", "Chapter 1", "Chapter 61"}},
	{"pg1342.htmlz", ParseHTMLZ, doc.HTMLZ, "Pride and Prejudice", "Jane Austen", 66, []string{"Chapter 1", "Chapter 61"}},
	{"usa-patriot-act.htm", Parse, doc.HTML, "", "", 1, nil},
}

func readCorpus(tb testing.TB, elem ...string) []byte {
	tb.Helper()
	data, err := os.ReadFile(testcorpus.Path(tb, elem...))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// TestCorpus parses each page and compares its words with the reference
// text: word F1 of at least 0.95.
func TestCorpus(t *testing.T) {
	for _, tc := range corpusPages {
		t.Run(tc.file, func(t *testing.T) {
			data := readCorpus(t, "books", "html", tc.file)
			ref := readCorpus(t, "reference", "books", "html", tc.file+".txt")
			d, err := tc.parse(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			doctest.Check(t, d, tc.typ)
			f1, p, r := doctest.WordF1(doctest.Words(doctest.Text(d)), doctest.Words(string(ref)))
			t.Logf("word F1 %.4f (precision %.4f, recall %.4f), %d chapters", f1, p, r, len(d.Chapters))
			if f1 < 0.95 {
				t.Errorf("word F1 %.4f < 0.95", f1)
			}
			if d.Title != tc.title || strings.Join(d.Authors, "|") != tc.authors {
				t.Errorf("metadata %q %q", d.Title, d.Authors)
			}
			if len(d.Chapters) != tc.chapters {
				t.Errorf("%d chapters, want %d:\n%s", len(d.Chapters), tc.chapters, doctest.Outline(d))
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
	for _, tc := range corpusPages {
		b.Run(tc.file, func(b *testing.B) {
			data := readCorpus(b, "books", "html", tc.file)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := tc.parse(context.Background(), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
