package mobi

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

// corpusBook is what a corpus Kindle book must yield, checked by hand
// against its NCX (as calibre's ebook-meta and ebook-convert show it).
type corpusBook struct {
	path     string // under books/
	title    string
	authors  []string
	language string
	typ      string
	// chapters is the count of chapters: the NCX's entries of the
	// chapter level, and one for the text before the first of them.
	chapters int
	// some are chapter titles that must appear, in this order.
	some []string
	// minF1 is the bar for a book whose reference is known to differ.
	minF1 float64
}

var corpusBooks = []corpusBook{
	{
		// MOBI6 only, as calibre writes it: a flat NCX of 17 entries.
		path: "mobi/pg1661.mobi", title: "The Adventures of Sherlock Holmes", authors: []string{"Arthur Conan Doyle"},
		language: "en", typ: doc.MOBI, chapters: 18,
		some: []string{"The Adventures of Sherlock Holmes", "Contents", "I. A SCANDAL IN BOHEMIA", "I.", "II.", "III.",
			"II. THE RED-HEADED LEAGUE", "XII. THE ADVENTURE OF THE COPPER BEECHES"},
	},
	{
		// Combined, read through KF8; the title is the header's full name.
		path: "mobi/pg2852-hound-of-the-baskervilles.mobi", title: "The Hound of the Baskervilles", authors: []string{"Arthur Conan Doyle"},
		language: "en", typ: doc.MOBI, chapters: 18,
		some: []string{"THE HOUND OF THE BASKERVILLES", "Contents", "Chapter 1. Mr. Sherlock Holmes", "Chapter 15. A Retrospection"},
	},
	{
		// One top entry whose entries have entries: the second level makes
		// the chapters.
		path: "mobi/childrens-literature.mobi", title: "Children's Literature", authors: []string{"Charles Madison Curry", "Erle Elsworth Clippinger"},
		language: "en", typ: doc.MOBI, chapters: 19,
		some: []string{"THE CONTENTS", "SECTION IV FAIRY STORIES—MODERN FANTASTIC TALES", "BIBLIOGRAPHY", "INTRODUCTORY",
			"190 A FOUR-LEAVED CLOVER", "204 THE KING OF THE GOLDEN RIVER OR THE BLACK BROTHERS"},
	},
	{
		// HUFF/CDIC compression.
		path: "mobi/libmobi-sample-unicode-huffdic.mobi", title: "Libmobi", authors: []string{"Bartek Fabiszewski"},
		language: "en-US", typ: doc.MOBI, chapters: 2,
		some: []string{`"Main page"`, `"Libmobi public header"`},
	},
	{
		path: "azw3/pg11.azw3", title: "Alice's Adventures in Wonderland", authors: []string{"Lewis Carroll"},
		language: "en", typ: doc.AZW3, chapters: 17,
		some: []string{"Alice’s Adventures in Wonderland", "Contents", "CHAPTER I. Down the Rabbit-Hole",
			"CHAPTER XII. Alice’s Evidence", "THE FULL PROJECT GUTENBERG LICENSE"},
	},
	{
		// 51 words, two of which calibre's text glues together where the
		// inline TOC's entries meet ("titleTest", "h1A"); the book's own
		// text, word for word, scores 0.94 against that.
		path: "azw3/opds-testbook.azw3", title: "Test Book", authors: []string{"Test Author"},
		language: "en", typ: doc.AZW3, chapters: 4, minF1: 0.90,
		some: []string{"Sample FB2 book", "This is a title", "Test Header h1", "Another Test Header h1"},
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

// TestCorpusF1 compares the words of every corpus Kindle book with the
// reference text calibre's ebook-convert made of it, and reports each
// book's word F1, chapters and parse speed.
func TestCorpusF1(t *testing.T) {
	testcorpus.Dir(t)
	var table strings.Builder
	fmt.Fprintf(&table, "%-45s %7s %6s %6s %6s %8s %4s %s\n", "book", "words", "F1", "prec", "recall", "chapters", "TOC", "speed")
	for _, tc := range corpusBooks {
		data := readCorpus(t, "books", filepath.FromSlash(tc.path))
		ref := readCorpus(t, "reference", "books", filepath.FromSlash(tc.path)+".txt")
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
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		want := doctest.Words(string(ref))
		f1, p, r := doctest.WordF1(doctest.Words(doctest.Text(d)), want)
		n := 0
		for _, c := range want {
			n += c
		}
		fmt.Fprintf(&table, "%-45s %7d %6.4f %6.4f %6.4f %8d %4d %.1f MB/s\n", tc.path, n, f1, p, r, len(d.Chapters),
			tocEntries(t, data), float64(len(data))/took.Seconds()/1e6)
		bar := 0.95
		if tc.minF1 > 0 {
			bar = tc.minF1
		}
		if f1 < bar {
			t.Errorf("%s: F1 %.4f below %.2f", tc.path, f1, bar)
		}
		titles := chapterTitles(d)
		if len(titles) != tc.chapters {
			t.Errorf("%s: %d chapters, want %d:\n%s", tc.path, len(titles), tc.chapters, strings.Join(titles, "\n"))
		}
		at := 0
		for _, want := range tc.some {
			i := slices.Index(titles[at:], want)
			if i < 0 {
				t.Errorf("%s: chapter %q missing or out of order in %q", tc.path, want, titles)
				break
			}
			at += i + 1
		}
		if d.Title != tc.title || !slices.Equal(d.Authors, tc.authors) || d.Language != tc.language || d.SourceType != tc.typ {
			t.Errorf("%s: metadata %q %q %q %s, want %q %q %q %s", tc.path, d.Title, d.Authors, d.Language, d.SourceType,
				tc.title, tc.authors, tc.language, tc.typ)
		}
		if os.Getenv("MOBI_DUMP") != "" {
			os.WriteFile(filepath.Join(os.Getenv("MOBI_DUMP"), filepath.Base(tc.path)+".txt"), []byte(outline(d)), 0o644)
		}
	}
	t.Logf("word F1 against calibre's text:\n%s", table.String())
}

// TestCorpusMOBI6Parts reads the MOBI6 part of each combined file, which
// Parse falls back to when the KF8 part is broken: it must be as complete.
func TestCorpusMOBI6Parts(t *testing.T) {
	for _, tc := range corpusBooks {
		if !strings.HasPrefix(tc.path, "mobi/") {
			continue
		}
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			data := readCorpus(t, "books", filepath.FromSlash(tc.path))
			ref := readCorpus(t, "reference", "books", filepath.FromSlash(tc.path)+".txt")
			db, err := readPalmDB(data, defaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			b, err := readBook(context.Background(), db, defaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			b.kf8 = nil
			d, err := b.document(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if f1, _, _ := doctest.WordF1(doctest.Words(doctest.Text(d)), doctest.Words(string(ref))); f1 < 0.95 {
				t.Errorf("MOBI6 part: F1 %.4f below 0.95", f1)
			}
			if len(d.Chapters) != tc.chapters {
				t.Errorf("MOBI6 part: %d chapters, want %d", len(d.Chapters), tc.chapters)
			}
		})
	}
}

// tocEntries counts the entries of the NCX of the part Parse reads.
func tocEntries(tb testing.TB, data []byte) int {
	tb.Helper()
	db, err := readPalmDB(data, defaultLimits())
	if err != nil {
		tb.Fatal(err)
	}
	b, err := readBook(context.Background(), db, defaultLimits())
	if err != nil {
		tb.Fatal(err)
	}
	h := b.first
	if b.kf8 != nil {
		h = b.kf8
	}
	ix, err := readIndex(db, h.ncx, defaultLimits().maxIndexEntries)
	if err != nil {
		return 0
	}
	return len(ix.entries)
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
				fmt.Fprintf(&sb, "%d|%s\n", b.Kind, b.Text)
			}
		}
	}
	return sb.String()
}

// BenchmarkParse measures parsing speed over each corpus Kindle book, in
// MB/s of the file.
func BenchmarkParse(b *testing.B) {
	root, ok := testcorpus.Find()
	if !ok {
		b.Skip("shared corpus not found")
	}
	for _, tc := range corpusBooks {
		data, err := os.ReadFile(filepath.Join(root, "books", filepath.FromSlash(tc.path)))
		if err != nil {
			b.Skip(err)
		}
		b.Run(filepath.Base(tc.path), func(b *testing.B) {
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
