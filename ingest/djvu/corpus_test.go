package djvu

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// corpusBooks are the corpus's DjVu files with what they must yield. The
// specification's outline has 152 entries, 13 at the top, after the
// title page's untitled text; the test book's outline is one entry with
// three under it, all on page 3, after the title page; the dictionary page
// has no outline and no metadata.
var corpusBooks = []struct {
	file     string
	title    string
	authors  string
	pages    int
	chapters int
	some     []string
}{
	{"djvu3spec.djvu", "", "", 71, 14, []string{"1 Introduction", "  3.2.1 Bundled multi-page documents", "13 Appendix 4: BZZ coding", "  13.2 Decoding"}},
	{"opds-testbook.djvu", "Test Book", "Test Author", 3, 2, []string{"This is a title", "  Another Test Header h1", "  A Test Header h2"}},
	{"century-dictionary-p6683.djvu", "", "", 1, 1, nil},
}

func readCorpus(tb testing.TB, elem ...string) []byte {
	tb.Helper()
	data, err := os.ReadFile(testcorpus.Path(tb, elem...))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// TestCorpus parses each file and compares its words with djvutxt's:
// word F1 of at least 0.95; the outline's entries become chapters and
// sections.
func TestCorpus(t *testing.T) {
	for _, tc := range corpusBooks {
		t.Run(tc.file, func(t *testing.T) {
			data := readCorpus(t, "books", "djvu", tc.file)
			ref := readCorpus(t, "reference", "books", "djvu", tc.file+".txt")
			d, err := Parse(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			check(t, d)
			// The pages' text against djvutxt's; the titles come from the
			// outline, and the text keeps the headings' lines as the pages
			// show them.
			f1, p, r := doctest.WordF1(doctest.Words(d.Text()), doctest.Words(string(ref)))
			withTitles, _, _ := doctest.WordF1(doctest.Words(doctest.Text(d)), doctest.Words(string(ref)))
			out := doctest.Outline(d)
			t.Logf("word F1 %.4f (precision %.4f, recall %.4f; %.4f with the titles), %d chapters, %d outline lines", f1, p, r, withTitles, len(d.Chapters), strings.Count(out, "\n"))
			if f1 < 0.95 {
				t.Errorf("word F1 %.4f < 0.95", f1)
			}
			if d.Title != tc.title || strings.Join(d.Authors, "|") != tc.authors || d.PageCount != tc.pages {
				t.Errorf("metadata %q %q, %d pages", d.Title, d.Authors, d.PageCount)
			}
			if tc.chapters > 0 && len(d.Chapters) != tc.chapters {
				t.Errorf("%d chapters, want %d:\n%s", len(d.Chapters), tc.chapters, out)
			}
			for _, s := range tc.some {
				if !strings.Contains(out, s+"\n") {
					t.Errorf("no entry %q in\n%s", s, out)
				}
			}
		})
	}
}

func BenchmarkCorpus(b *testing.B) {
	for _, tc := range corpusBooks {
		b.Run(tc.file, func(b *testing.B) {
			data := readCorpus(b, "books", "djvu", tc.file)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(context.Background(), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
