package fb2

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// corpusBooks are the corpus's FB2 books with what they must yield. The
// table of contents of an FB2 is its sections: Tom Sawyer has 36 titled
// ones, a notes body and an annotation, and a title over the sections
// that keeps its epigraph; calibre's Pride and Prejudice has 15 untitled
// sections, one per file of the EPUB it was made from, which hold its 61
// chapters under bold headings; the test book has two and an annotation.
var corpusBooks = []struct {
	file     string
	title    string
	authors  string
	language string
	chapters int
	some     []string
}{
	{"tom-sawyer.fb2", "The Adventures of Tom Sawyer", "Mark Twain", "en", 39, []string{"Annotation", "PREFACE", "CHAPTER I", "CHAPTER XXXV", "Примечания"}},
	{"pg1342.fb2", "Pride and Prejudice", "Jane Austen", "en", 63, []string{"Chapter 1", "Chapter 7", "Chapter 39", "Chapter 61"}},
	{"opds-testbook.fb2.zip", "Test Book", "Test Author", "en", 3, []string{"Annotation", "Sample FB2 book", "This is a title"}},
}

func readCorpus(tb testing.TB, elem ...string) []byte {
	tb.Helper()
	data, err := os.ReadFile(testcorpus.Path(tb, elem...))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// TestCorpus parses each book and compares its words with the reference
// text: word F1 of at least 0.95.
func TestCorpus(t *testing.T) {
	for _, tc := range corpusBooks {
		t.Run(tc.file, func(t *testing.T) {
			data := readCorpus(t, "books", "fb2", tc.file)
			ref := readCorpus(t, "reference", "books", "fb2", tc.file+".txt")
			d, err := Parse(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			f1, p, r := doctest.WordF1(doctest.Words(doctest.Text(d)), doctest.Words(string(ref)))
			t.Logf("word F1 %.4f (precision %.4f, recall %.4f), %d chapters", f1, p, r, len(d.Chapters))
			if f1 < 0.95 {
				t.Errorf("word F1 %.4f < 0.95", f1)
			}
			if d.Title != tc.title || strings.Join(d.Authors, "|") != tc.authors || d.Language != tc.language {
				t.Errorf("metadata %q %q %q", d.Title, d.Authors, d.Language)
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
	for _, tc := range corpusBooks {
		b.Run(tc.file, func(b *testing.B) {
			data := readCorpus(b, "books", "fb2", tc.file)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(context.Background(), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
