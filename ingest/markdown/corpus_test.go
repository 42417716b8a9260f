package markdown

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// corpusBook is what a corpus file must yield, checked by hand against the
// file's headings.
type corpusBook struct {
	path     []string
	title    string
	chapters []string // chapter titles in order
	// sections maps a chapter index to its section titles ("" for the text
	// before the first sub-heading); chapters not listed are not checked.
	sections map[int][]string
}

var corpusBooks = []corpusBook{
	{
		path:     []string{"rust-book", "ch04-01-what-is-ownership.md"},
		title:    "What Is Ownership?",
		chapters: []string{"What Is Ownership?"},
		sections: map[int][]string{0: {"", "Ownership Rules", "Variable Scope", "The String Type", "Memory and Allocation", "Ownership and Functions", "Return Values and Scope"}},
	},
	{
		path:     []string{"rust-book", "ch00-00-introduction.md"},
		title:    "Introduction",
		chapters: []string{"Introduction", "Who Rust Is For", "Who This Book Is For", "How to Use This Book", "Source Code"},
		sections: map[int][]string{
			0: {""},
			1: {"", "Teams of Developers", "Students", "Companies", "Open Source Developers", "People Who Value Speed and Stability"},
		},
	},
	{
		path:     []string{"rust-book", "ch03-02-data-types.md"},
		title:    "Data Types",
		chapters: []string{"Data Types"},
		sections: map[int][]string{0: {"", "Scalar Types", "Compound Types"}},
	},
	{
		path:     []string{"rust-book", "ch03-05-control-flow.md"},
		title:    "Control Flow",
		chapters: []string{"Control Flow", "Summary"},
		sections: map[int][]string{0: {"", "if Expressions", "Repetition with Loops"}},
	},
	{
		path:     []string{"rust-book", "ch04-03-slices.md"},
		title:    "The Slice Type",
		chapters: []string{"The Slice Type", "Summary"},
		sections: map[int][]string{0: {"", "String Slices", "Other Slices"}},
	},
	{
		path:     []string{"rust-book", "ch04-00-understanding-ownership.md"},
		title:    "Understanding Ownership",
		chapters: []string{"Understanding Ownership"},
	},
	{
		path:     []string{"rust-book", "SUMMARY.md"},
		title:    "The Rust Programming Language",
		chapters: []string{"The Rust Programming Language"},
	},
	{
		path:     []string{"mostly-adequate-guide", "ch03.md"},
		title:    "Chapter 03: Pure Happiness with Pure Functions",
		chapters: []string{"Oh to Be Pure Again", "Side Effects May Include...", "8th Grade Math", "The Case for Purity", "In Summary"},
		sections: map[int][]string{3: {"Cacheable", "Portable / Self-documenting", "Testable", "Reasonable", "Parallel Code"}},
	},
	{
		// Levels 1, 2 and 4 only: the H4s are the sections of "Exercises".
		path:     []string{"mostly-adequate-guide", "ch04.md"},
		title:    "Chapter 04: Currying",
		chapters: []string{"Can't Live If Livin' Is without You", "More Than a Pun / Special Sauce", "In Summary", "Exercises"},
		sections: map[int][]string{3: {"Note about Exercises", "Running Exercises on Your Machine (optional)", "Let's Practice!"}},
	},
	{
		// Two H1s, both after five H2s: the H1s are chapters and the H2s
		// before them are sections of the preamble.
		path:     []string{"mostly-adequate-guide", "README.md"},
		title:    "About this book",
		chapters: []string{"Introduction", "Table of Contents", "Plans for the future"},
		sections: map[int][]string{0: {"", "About this book", "Read it Online", "Play Around with Code", "Download it", "Do it yourself"}},
	},
	{
		path:  []string{"the-art-of-command-line", "README.md"},
		title: "The Art of Command Line",
		chapters: []string{"The Art of Command Line", "Meta", "Basics", "Everyday use", "Processing files and data",
			"System debugging", "One-liners", "Obscure but useful", "macOS only", "Windows only", "More resources",
			"Disclaimer", "License"},
		sections: map[int][]string{9: {"", "Ways to obtain Unix tools under Windows", "Useful Windows command-line tools", "Cygwin tips and tricks"}},
	},
	{
		path:  []string{"the-art-of-command-line", "README-ja.md"},
		title: "The Art of Command Line",
		chapters: []string{"The Art of Command Line", "メタ情報", "基本", "日常的に使うもの", "ファイルとデータの処理",
			"システムのデバッグ", "ワンライナー", "目立たないが便利なもの", "OS X用のもの", "Windows専用", "さらなるリソース",
			"免責事項", "ライセンス"},
		sections: map[int][]string{9: {"", "Windows下でUnixツールを手に入れる方法", "使えるWindowsコマンドラインツール", "Cygwinの秘訣とコツ"}},
	},
	{
		path:     []string{"prometheus-docs", "concepts", "data_model.md"},
		title:    "Data model",
		chapters: []string{"Data model", "Metric names and labels", "Samples", "Notation"},
	},
	{
		path:     []string{"prometheus-docs", "concepts", "index.md"},
		title:    "Concepts",
		chapters: nil, // front matter only
	},
	{
		path:     []string{"prometheus-docs", "introduction", "index.md"},
		title:    "Introduction",
		chapters: nil,
	},
	{
		path:     []string{"prometheus-docs", "introduction", "faq.md"},
		title:    "Frequently asked questions",
		chapters: []string{"General", "Instrumentation", "Implementation"},
		sections: map[int][]string{2: {"Why are all sample values 64-bit floats?"}},
	},
	{
		path:  []string{"prometheus-docs", "introduction", "comparison.md"},
		title: "Comparison to alternatives",
		chapters: []string{"Prometheus vs. Graphite", "Prometheus vs. InfluxDB", "Prometheus vs. OpenTSDB",
			"Prometheus vs. Nagios", "Prometheus vs. Sensu"},
		sections: map[int][]string{
			0: {"Scope", "Data model", "Storage", "Summary"},
			1: {"", "Scope", "Data model / storage", "Architecture", "Summary"},
		},
	},
	{
		path:     []string{"prometheus-docs", "introduction", "overview.md"},
		title:    "Overview",
		chapters: []string{"What is Prometheus?", "When does it fit?", "When does it not fit?"},
		sections: map[int][]string{0: {"", "Features", "What are metrics?", "Components", "Architecture"}},
	},
	{
		// Only H3 headings: they are the chapters.
		path:     []string{"prometheus-docs", "introduction", "roadmap.md"},
		title:    "Roadmap",
		chapters: []string{"Roadmap", "Server-side metric metadata support", "Adopt OpenMetrics", "Retroactive rule evaluations", "TLS and authentication in HTTP serving endpoints", "Support the Ecosystem"},
	},
}

func parseCorpusFile(t *testing.T, elem ...string) (*doc.Document, []byte) {
	t.Helper()
	p := testcorpus.Path(t, append([]string{"books", "markdown"}, elem...)...)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(context.Background(), data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", filepath.Join(elem...), err)
	}
	return d, data
}

func TestCorpusOutlines(t *testing.T) {
	for _, tc := range corpusBooks {
		t.Run(strings.Join(tc.path, "/"), func(t *testing.T) {
			d, data := parseCorpusFile(t, tc.path...)
			checkInvariants(t, d, data)
			if d.Title != tc.title {
				t.Errorf("title = %q, want %q", d.Title, tc.title)
			}
			if got := chapterTitles(d); !slices.Equal(got, tc.chapters) {
				t.Errorf("chapters =\n  %q\nwant\n  %q", got, tc.chapters)
			}
			for ci, want := range tc.sections {
				if ci >= len(d.Chapters) {
					continue
				}
				if got := sectionTitles(d.Chapters[ci]); !slices.Equal(got, want) {
					t.Errorf("chapter %d %q sections =\n  %q\nwant\n  %q", ci, d.Chapters[ci].Title, got, want)
				}
			}
		})
	}
}

// TestCorpusAll parses every Markdown file in the corpus and checks the
// properties that must hold for any book.
func TestCorpusAll(t *testing.T) {
	root := testcorpus.Path(t, "books", "markdown")
	n := 0
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(p) != ".md" {
			return err
		}
		n++
		rel, _ := filepath.Rel(root, p)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Parse(context.Background(), data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			checkInvariants(t, d, data)
			if d.Title == "" {
				t.Error("no title")
			}
			if len(data) > 200 && len(d.Chapters) == 0 {
				t.Errorf("%d bytes gave no chapters", len(data))
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no Markdown files in the corpus")
	}
}

func TestCorpusDetails(t *testing.T) {
	t.Run("prometheus front matter never shows", func(t *testing.T) {
		d, _ := parseCorpusFile(t, "prometheus-docs", "introduction", "first_steps.md")
		if d.Title != "First steps with Prometheus" {
			t.Errorf("title = %q", d.Title)
		}
		if txt := d.Text(); strings.Contains(txt, "sort_rank") || strings.Contains(txt, "nav_title") {
			t.Error("front matter leaked into the text")
		}
		if got := d.Chapters[0].Sections[0].Blocks[0].Line; got != 7 {
			t.Errorf("first block line = %d, want 7 (after the front matter)", got)
		}
	})

	t.Run("prometheus table", func(t *testing.T) {
		d, _ := parseCorpusFile(t, "prometheus-docs", "introduction", "release-cycle.md")
		b, ok := findBlock(d, func(b doc.Block) bool { return b.Kind == doc.Table })
		if !ok {
			t.Fatal("no table block")
		}
		lines := strings.Split(b.Text, "\n")
		if len(lines) != 7 || !strings.Contains(lines[0], " | ") {
			t.Errorf("table = %q, want a header and 6 rows with \" | \" between cells", b.Text)
		}
	})

	t.Run("rust-book code block whole and blockquote heading kept in the quote", func(t *testing.T) {
		d, _ := parseCorpusFile(t, "rust-book", "ch04-01-what-is-ownership.md")
		b, ok := findBlock(d, func(b doc.Block) bool { return b.Line == 119 })
		if !ok || b.Kind != doc.Code || b.Text != "{{#rustdoc_include ../listings/ch04-understanding-ownership/listing-04-01/src/main.rs:here}}" {
			t.Errorf("block at line 119 = %+v, want the include directive as code", b)
		}
		q, ok := findBlock(d, func(b doc.Block) bool { return b.Line == 22 })
		if !ok || q.Kind != doc.Quote || !strings.HasPrefix(q.Text, "The Stack and the Heap\n\nMany programming languages") ||
			!strings.HasSuffix(q.Text, "can help explain why it works the way it does.") {
			t.Errorf("quote at line 22 = %.200q", q.Text)
		}
		// H4 headings stay as text in their H3 section, with their line.
		h, ok := findBlock(d, func(b doc.Block) bool { return b.Line == 240 })
		if !ok || h.Text != "Variables and Data Interacting with Move" {
			t.Errorf("block at line 240 = %+v, want the H4 heading text", h)
		}
		// Alt text of a multi-line <img> survives.
		if !strings.Contains(d.Text(), "Two tables: the first table contains the representation of s1 on the stack") {
			t.Error("image alt text lost")
		}
	})

	t.Run("art of command line code with # comments", func(t *testing.T) {
		d, data := parseCorpusFile(t, "the-art-of-command-line", "README.md")
		b, ok := findBlock(d, func(b doc.Block) bool {
			return b.Kind == doc.Code && strings.Contains(b.Text, "# do something in current dir")
		})
		if !ok {
			t.Fatal("code block with a # comment not found")
		}
		want := "      # do something in current dir\n      (cd /some/other/dir && other-command)\n      # continue in original dir"
		if b.Text != want {
			t.Errorf("code = %q, want %q", b.Text, want)
		}
		if line := strings.Split(string(data), "\n")[b.Line-1]; line != "```bash" {
			t.Errorf("code block line %d is %q, want its opening fence", b.Line, line)
		}
	})

	t.Run("japanese text intact", func(t *testing.T) {
		d, _ := parseCorpusFile(t, "the-art-of-command-line", "README-ja.md")
		txt := d.Text()
		for _, want := range []string{
			"基本的なBashを学ぼう。実際のところ、man bashは結構簡単に理解できる",
			"テキストエディタのどれか最低1つに習熟しよう。",
		} {
			if !strings.Contains(txt, want) {
				t.Errorf("text lacks %q", want)
			}
		}
		if strings.ContainsRune(txt, '\uFFFD') {
			t.Error("replacement character in text")
		}
	})

	t.Run("gitbook images become alt text", func(t *testing.T) {
		d, _ := parseCorpusFile(t, "mostly-adequate-guide", "ch05.md")
		if !strings.Contains(d.Text(), "category theory") {
			t.Error("alt text of <img> missing")
		}
	})
}

func BenchmarkParseCorpus(b *testing.B) {
	root, ok := testcorpus.Find()
	if !ok {
		b.Skip("shared corpus not found")
	}
	var files [][]byte
	total := 0
	err := filepath.WalkDir(filepath.Join(root, "books", "markdown"), func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(p) != ".md" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, data)
		total += len(data)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if len(files) == 0 {
		b.Skip("no Markdown files in the corpus")
	}
	ctx := context.Background()
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			if _, err := Parse(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkParseLargest(b *testing.B) {
	root, ok := testcorpus.Find()
	if !ok {
		b.Skip("shared corpus not found")
	}
	data, err := os.ReadFile(filepath.Join(root, "books", "markdown", "the-art-of-command-line", "README-ja.md"))
	if err != nil {
		b.Skip(err)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(ctx, data); err != nil {
			b.Fatal(err)
		}
	}
}
