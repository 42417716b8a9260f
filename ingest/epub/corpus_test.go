package epub

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// corpusBook is what a corpus EPUB must yield, checked by hand against its
// OPF and table of contents.
type corpusBook struct {
	file     string
	title    string
	authors  []string
	language string
	chapters int
	// some are chapter titles that must appear, in this order.
	some []string
	// sections maps a chapter title to its section titles.
	sections map[string][]string
}

var corpusBooks = []corpusBook{
	{
		file: "pg11.epub", title: "Alice's Adventures in Wonderland", authors: []string{"Lewis Carroll"}, language: "en",
		chapters: 17,
		some: []string{"Alice’s Adventures in Wonderland", "Contents", "CHAPTER I. Down the Rabbit-Hole",
			"CHAPTER XII. Alice’s Evidence", "THE FULL PROJECT GUTENBERG LICENSE"},
	},
	{
		file: "pg1342.epub", title: "Pride and Prejudice", authors: []string{"Jane Austen"}, language: "en",
		chapters: 64,
		some:     []string{"PRIDE AND PREJUDICE", "Chapter 1", "Chapter 2", "Chapter 6", "Chapter 7", "Chapter 61"},
	},
	{
		file: "pg1661.epub", title: "The Adventures of Sherlock Holmes", authors: []string{"Arthur Conan Doyle"}, language: "en",
		chapters: 15,
		some:     []string{"Contents", "I. A SCANDAL IN BOHEMIA", "XII. THE ADVENTURE OF THE COPPER BEECHES"},
		sections: map[string][]string{"I. A SCANDAL IN BOHEMIA": {"I.", "II.", "III."}},
	},
	{
		file: "epubjs-alice.epub", title: "Alice's Adventures in Wonderland", authors: []string{"Lewis Carroll"}, language: "en-US",
		chapters: 13,
		some:     []string{"Title Page", "Down The Rabbit-Hole", "Alice's Evidence"},
	},
	{
		file: "moby-dick.epub", title: "Moby-Dick", authors: []string{"Herman Melville"}, language: "en-US",
		chapters: 144,
		some: []string{"Original Transcriber’s Notes:", "ETYMOLOGY.", "EXTRACTS (Supplied by a Sub-Sub-Librarian).",
			"Chapter 1. Loomings.", "Chapter 135. The Chase.—Third Day.", "Epilogue", "Copyright Page"},
	},
	{
		file: "linear-algebra.epub", title: "A First Course in Linear Algebra", authors: []string{"Robert A. Beezer"}, language: "en",
		chapters: 37,
		some: []string{"A First Course in Linear Algebra", "Preface", "Part I. Part C Core",
			"Chapter 1. Chapter SLE Systems of Linear Equations", "Part II. Part T Topics", "Chapter 19. Section CF Curve Fitting"},
		sections: map[string][]string{
			"Chapter 1. Chapter SLE Systems of Linear Equations": {"", "Section WILA What is Linear Algebra?",
				"Section SSLE Solving Systems of Linear Equations", "Section RREF Reduced Row-Echelon Form",
				"Section HSE Homogeneous Systems of Equations", "Section NM Nonsingular Matrices"},
		},
	},
	{
		file: "israelsailing.epub", title: "מפליגים בישראל", authors: []string{"אורי עידן"}, language: "he",
		chapters: 12,
		some:     []string{"דף פתיחה", "זכויות יוצרים", "הפלגת קצרה עם רונית", "חוזרים להרצליה"},
	},
	{
		file: "childrens-literature.epub", title: "Children's Literature",
		authors: []string{"Charles Madison Curry", "Erle Elsworth Clippinger"}, language: "en",
		chapters: 14,
		some: []string{"SECTION IV FAIRY STORIES—MODERN FANTASTIC TALES", "BIBLIOGRAPHY", "INTRODUCTORY",
			"Hans Christian Andersen", "John Ruskin"},
		sections: map[string][]string{
			"INTRODUCTORY": {"", "SUGGESTIONS FOR READING"},
			"Hans Christian Andersen": {"192 THE REAL PRINCESS", "193 THE EMPEROR'S NEW CLOTHES", "194 THE NIGHTINGALE",
				"195 THE FIR TREE", "196 THE TINDER-BOX", "197 THE HARDY TIN SOLDIER", "198 THE UGLY DUCKLING"},
		},
	},
	{
		file: "wasteland.epub", title: "The Waste Land", authors: []string{"T.S. Eliot"}, language: "en-US",
		chapters: 7,
		some: []string{"The Waste Land", "I. THE BURIAL OF THE DEAD", "II. A GAME OF CHESS", "III. THE FIRE SERMON",
			"IV. DEATH BY WATER", "V. WHAT THE THUNDER SAID", `NOTES ON "THE WASTE LAND"`},
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

func TestCorpusBooks(t *testing.T) {
	for _, tc := range corpusBooks {
		t.Run(tc.file, func(t *testing.T) {
			d := mustParse(t, readCorpus(t, "books", "epub", tc.file))
			if d.Title != tc.title || !slices.Equal(d.Authors, tc.authors) || d.Language != tc.language {
				t.Errorf("metadata = %q %q %q, want %q %q %q", d.Title, d.Authors, d.Language, tc.title, tc.authors, tc.language)
			}
			titles := chapterTitles(d)
			if len(titles) != tc.chapters {
				t.Errorf("%d chapters, want %d:\n%s", len(titles), tc.chapters, strings.Join(titles, "\n"))
			}
			at := 0
			for _, want := range tc.some {
				i := slices.Index(titles[at:], want)
				if i < 0 {
					t.Errorf("chapter %q missing or out of order", want)
					continue
				}
				at += i + 1
			}
			for ch, want := range tc.sections {
				i := slices.Index(titles, ch)
				if i < 0 {
					continue
				}
				var got []string
				for _, s := range d.Chapters[i].Sections {
					got = append(got, s.Title)
				}
				if !slices.Equal(got, want) {
					t.Errorf("sections of %q = %q, want %q", ch, got, want)
				}
			}
		})
	}
}

// TestCorpusTOCResolved checks that every fragment the TOC points to was
// found in its document, so no chapter starts at a guessed place.
func TestCorpusTOCResolved(t *testing.T) {
	for _, tc := range corpusBooks {
		t.Run(tc.file, func(t *testing.T) {
			b, err := readBook(context.Background(), readCorpus(t, "books", "epub", tc.file), defaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range b.cuts {
				if c.frag != "" && !c.found {
					t.Errorf("TOC entry %q: #%s not found in %s", c.title, c.frag, b.docs[c.doc].path)
				}
			}
		})
	}
}

func TestCorpusMobyDick(t *testing.T) {
	d := mustParse(t, readCorpus(t, "books", "epub", "moby-dick.epub"))
	first := -1
	for i, ch := range d.Chapters {
		if strings.HasPrefix(ch.Title, "Chapter ") {
			first = i
			break
		}
	}
	if first < 0 || d.Chapters[first].Title != "Chapter 1. Loomings." {
		t.Fatalf("first real chapter is %d, want Loomings; chapters:\n%s", first, strings.Join(chapterTitles(d), "\n"))
	}
	loomings := d.Chapters[first]
	b := loomings.Sections[0].Blocks[0]
	if !strings.HasPrefix(b.Text, "Call me Ishmael. Some years ago—never mind how long precisely") {
		t.Errorf("Loomings opens with %.80q", b.Text)
	}
	if b.Anchor != "OPS/chapter_001.xhtml#c001s0000" && b.Anchor != "OPS/chapter_001.xhtml#c001s0001" {
		t.Errorf("Ishmael's anchor = %q", b.Anchor)
	}
	if loomings.Anchor != "OPS/chapter_001.xhtml" {
		t.Errorf("Loomings anchor = %q", loomings.Anchor)
	}
	for _, ch := range d.Chapters {
		if ch.Title != loomings.Title && strings.Contains(doctest.Text(&doc.Document{Chapters: []doc.Chapter{ch}}), "Call me Ishmael") {
			t.Errorf("%q also holds the Ishmael paragraph", ch.Title)
		}
	}
}

func TestCorpusRightToLeft(t *testing.T) {
	d := mustParse(t, readCorpus(t, "books", "epub", "israelsailing.epub"))
	txt := d.Text()
	if !strings.Contains(txt, "אבישי נכנס לבניין מנהלת המרינה.") {
		t.Errorf("Hebrew text lost: %.200q", txt)
	}
	if strings.ContainsRune(txt, '\uFFFD') {
		t.Error("replacement character in text")
	}
}

func TestCorpusBadFiles(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"no-opf.epub", "not an EPUB: container points to OEBPS/content.opf, which is missing"},
		{"zip-without-container.epub", "not an EPUB: no META-INF/container.xml"},
		{"not-a-zip.epub", "not an EPUB: not a zip archive (zip: not a valid zip file)"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			_, err := Parse(context.Background(), readCorpus(t, "bad", tc.file))
			if !errors.Is(err, ErrNotEPUB) || err.Error() != tc.want {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// texControl matches what pandoc leaves of a formula it could not convert:
// it writes the TeX source, whose control words and environment names are
// not text of the book.
var texControl = regexp.MustCompile(`\\(begin|end)\{[^}]*\}(\{[a-z|]*\})?|\\[A-Za-z]+`)

// TestCorpusPandocF1 compares the words of every corpus book with what
// `pandoc -t plain` makes of it; the bar is an average word F1 of
// at least 0.95. Words are NFKC-normalized and lower-cased, and the parsed
// text includes chapter and section titles, which the index searches too.
// pandoc's output is cached in the user cache directory, because it needs
// minutes for the mathematics book.
func TestCorpusPandocF1(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs pandoc over the whole corpus")
	}
	pandoc, err := exec.LookPath("pandoc")
	if err != nil {
		t.Skip("pandoc not installed")
	}
	testcorpus.Dir(t)
	type result struct {
		file                  string
		f1, precision, recall float64
		words                 int
	}
	results := make([]result, len(corpusBooks))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, tc := range corpusBooks {
		data := readCorpus(t, "books", "epub", tc.file)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ref, err := pandocText(pandoc, testcorpus.Path(t, "books", "epub", tc.file), data)
			if err != nil {
				t.Errorf("%s: pandoc: %v", tc.file, err)
				return
			}
			d, err := Parse(context.Background(), data)
			if err != nil {
				t.Errorf("%s: %v", tc.file, err)
				return
			}
			want := doctest.Words(texControl.ReplaceAllString(ref, " "))
			f1, p, r := doctest.WordF1(doctest.Words(doctest.Text(d)), want)
			n := 0
			for _, c := range want {
				n += c
			}
			results[i] = result{tc.file, f1, p, r, n}
		}()
	}
	wg.Wait()
	var sum float64
	var table strings.Builder
	fmt.Fprintf(&table, "%-26s %8s %6s %9s %6s\n", "book", "words", "F1", "precision", "recall")
	for _, r := range results {
		fmt.Fprintf(&table, "%-26s %8d %6.4f %9.4f %6.4f\n", r.file, r.words, r.f1, r.precision, r.recall)
		sum += r.f1
		if r.f1 < 0.9 {
			t.Errorf("%s: F1 %.4f below 0.9", r.file, r.f1)
		}
	}
	avg := sum / float64(len(results))
	fmt.Fprintf(&table, "%-26s %8s %6.4f\n", "average", "", avg)
	t.Logf("word F1 against pandoc -t plain:\n%s", table.String())
	if avg < 0.95 {
		t.Errorf("average F1 %.4f below 0.95", avg)
	}
}

// pandocText returns pandoc's plain text of the EPUB at path, from the cache
// when it has it.
func pandocText(pandoc, path string, data []byte) (string, error) {
	sum := sha256.Sum256(data)
	var cache string
	if dir, err := os.UserCacheDir(); err == nil {
		cache = filepath.Join(dir, "grimoire-test", "pandoc", hex.EncodeToString(sum[:16])+".txt")
		if b, err := os.ReadFile(cache); err == nil {
			return string(b), nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, pandoc, "-f", "epub", "-t", "plain", "--wrap=none", path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%w: %.300s", err, stderr.String())
	}
	if cache != "" {
		if err := os.MkdirAll(filepath.Dir(cache), 0o755); err == nil {
			_ = os.WriteFile(cache, out, 0o644)
		}
	}
	return string(out), nil
}

// xhtmlBytes is the decompressed size of a book's content documents, the
// figure that parsing speed is best measured against.
func xhtmlBytes(tb testing.TB, data []byte) int64 {
	tb.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		tb.Fatal(err)
	}
	var n int64
	for _, f := range zr.File {
		if ext := strings.ToLower(filepath.Ext(f.Name)); ext == ".xhtml" || ext == ".html" || ext == ".htm" {
			n += int64(f.UncompressedSize64)
		}
	}
	return n
}

func benchmarkCorpus(b *testing.B, file string) {
	root, ok := testcorpus.Find()
	if !ok {
		b.Skip("shared corpus not found")
	}
	data, err := os.ReadFile(filepath.Join(root, "books", "epub", file))
	if err != nil {
		b.Skip(err)
	}
	xhtml := xhtmlBytes(b, data)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		if _, err := Parse(ctx, data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(xhtml)*float64(b.N)/time.Since(start).Seconds()/1e6, "xhtml-MB/s")
}

func BenchmarkParseMobyDick(b *testing.B)      { benchmarkCorpus(b, "moby-dick.epub") }
func BenchmarkParseLinearAlgebra(b *testing.B) { benchmarkCorpus(b, "linear-algebra.epub") }
