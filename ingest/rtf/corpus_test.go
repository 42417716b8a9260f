package rtf

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// corpusDoc is what a corpus RTF file must yield, checked by hand against
// its headings.
type corpusDoc struct {
	file     string
	title    string
	authors  []string
	language string
	chapters int
	// some are chapter titles that must appear, in this order.
	some []string
}

var corpusDocs = []corpusDoc{
	{
		// calibre's RTF: heading styles in the stylesheet, \uN? escapes.
		file: "pg11.rtf", title: "Alice's Adventures in Wonderland", authors: []string{"Lewis Carroll"}, language: "en",
		chapters: 15,
		some: []string{"The Project Gutenberg eBook of Alice's Adventures in Wonderland", "by Lewis Carroll", "Contents",
			"CHAPTER I. Down the Rabbit-Hole", "CHAPTER XII. Alice’s Evidence"},
	},
	{
		// pandoc's: \outlinelevel in the paragraphs, lists, footnotes.
		// Its footnotes are text here and dropped by calibre.
		file: "pandoc-writer.rtf", chapters: 16,
		some: []string{"", "Headers", "Level 1", "Paragraphs", "Block Quotes", "Code Blocks", "Lists", "Definition Lists",
			"HTML Blocks", "Inline Markup", "Smart quotes, ellipses, dashes", "LaTeX", "Special Characters", "Links", "Images", "Footnotes"},
	},
}

func readCorpus(tb testing.TB, elem ...string) []byte {
	tb.Helper()
	data, err := os.ReadFile(testcorpus.Path(tb, elem...))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// TestCorpusF1 compares the words of every corpus RTF file with the
// reference text calibre's ebook-convert made of it (pandoc's reader drops
// the letter after each \uN escape), and reports each file's word F1,
// chapters and parse speed.
func TestCorpusF1(t *testing.T) {
	testcorpus.Dir(t)
	var table strings.Builder
	fmt.Fprintf(&table, "%-20s %7s %6s %6s %6s %8s %s\n", "file", "words", "F1", "prec", "recall", "chapters", "speed")
	for _, tc := range corpusDocs {
		data := readCorpus(t, "books", "rtf", tc.file)
		ref := readCorpus(t, "reference", "books", "rtf", tc.file+".txt")
		// The speed is the best of three parses: the first pays for a
		// cold cache.
		var d *doc.Document
		var err error
		took := time.Hour
		for range 3 {
			start := time.Now()
			d, err = Parse(context.Background(), data)
			took = min(took, time.Since(start))
		}
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		want := doctest.Words(string(ref))
		f1, p, r := doctest.WordF1(doctest.Words(doctest.Text(d)), want)
		n := 0
		for _, c := range want {
			n += c
		}
		fmt.Fprintf(&table, "%-20s %7d %6.4f %6.4f %6.4f %8d %.1f MB/s\n", tc.file, n, f1, p, r, len(d.Chapters),
			float64(len(data))/took.Seconds()/1e6)
		if f1 < 0.95 {
			t.Errorf("%s: F1 %.4f below 0.95", tc.file, f1)
		}
		if d.Title != tc.title || !slices.Equal(d.Authors, tc.authors) || d.Language != tc.language || d.SourceType != doc.RTF {
			t.Errorf("%s: metadata %q %q %q %s, want %q %q %q", tc.file, d.Title, d.Authors, d.Language, d.SourceType,
				tc.title, tc.authors, tc.language)
		}
		titles := chapterTitles(d)
		if len(titles) != tc.chapters {
			t.Errorf("%s: %d chapters, want %d:\n%s", tc.file, len(titles), tc.chapters, strings.Join(titles, "\n"))
		}
		at := 0
		for _, w := range tc.some {
			i := slices.Index(titles[at:], w)
			if i < 0 {
				t.Errorf("%s: chapter %q missing or out of order in %q", tc.file, w, titles)
				break
			}
			at += i + 1
		}
		if os.Getenv("RTF_DUMP") != "" {
			os.WriteFile(filepath.Join(os.Getenv("RTF_DUMP"), tc.file+".txt"), []byte(outline(d)), 0o644)
		}
	}
	t.Logf("word F1 against calibre's text:\n%s", table.String())
}

func chapterTitles(d *doc.Document) []string {
	var out []string
	for _, c := range d.Chapters {
		out = append(out, c.Title)
	}
	return out
}

func outline(d *doc.Document) string {
	var sb strings.Builder
	for _, c := range d.Chapters {
		fmt.Fprintf(&sb, "# %s [%s]\n", c.Title, c.Anchor)
		for _, s := range c.Sections {
			fmt.Fprintf(&sb, "## %s [%s]\n", s.Title, s.Anchor)
			for _, b := range s.Blocks {
				fmt.Fprintf(&sb, "%d L%d|%s\n", b.Kind, b.Line, b.Text)
			}
		}
	}
	return sb.String()
}

// BenchmarkParse measures parsing speed over each corpus RTF file, in MB/s
// of the file.
func BenchmarkParse(b *testing.B) {
	root, ok := testcorpus.Find()
	if !ok {
		b.Skip("shared corpus not found")
	}
	for _, tc := range corpusDocs {
		data, err := os.ReadFile(filepath.Join(root, "books", "rtf", tc.file))
		if err != nil {
			b.Skip(err)
		}
		b.Run(tc.file, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(context.Background(), data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
