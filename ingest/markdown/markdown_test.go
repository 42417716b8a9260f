package markdown

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

func TestHeadingsAndLevels(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		title string
		want  string // outlineOf
	}{
		{
			name:  "no headings is one chapter",
			src:   "Just a paragraph.\n\nAnd another.\n",
			title: "",
			want:  "Introduction L1\n  \"\" L1 x2\n",
		},
		{
			name:  "single leading H1 is the title, H2 chapters, H3 sections",
			src:   "# Book\n\n## One\n\ntext\n\n### One.A\n\nmore\n\n## Two\n\nend\n",
			title: "Book",
			want:  "One L3\n  \"\" L3 x1\n  One.A L7 x1\nTwo L11\n  \"\" L11 x1\n",
		},
		{
			name:  "two H1s are chapters and H2s sections",
			src:   "# A\n\na\n\n## A1\n\na1\n\n# B\n\nb\n",
			title: "A",
			want:  "A L1\n  \"\" L1 x1\n  A1 L5 x1\nB L9\n  \"\" L9 x1\n",
		},
		{
			name:  "without H1 the top level present gives chapters",
			src:   "## X\n\nx\n\n### X1\n\nx1\n\n## Y\n\ny\n",
			title: "X",
			want:  "X L1\n  \"\" L1 x1\n  X1 L5 x1\nY L9\n  \"\" L9 x1\n",
		},
		{
			name:  "only H3s are chapters",
			src:   "### P\n\np\n\n### Q\n\nq\n",
			title: "P",
			want:  "P L1\n  \"\" L1 x1\nQ L5\n  \"\" L5 x1\n",
		},
		{
			name:  "levels that skip use the next level present",
			src:   "# Book\n\n## C\n\nc\n\n#### S\n\ns\n",
			title: "Book",
			want:  "C L3\n  \"\" L3 x1\n  S L7 x1\n",
		},
		{
			name:  "a single H1 that is not first is a chapter but still the title",
			src:   "## Pre\n\np\n\n# Main\n\nm\n\n## Sub\n\ns\n",
			title: "Main",
			want:  "Introduction L1\n  Pre L1 x1\nMain L5\n  \"\" L5 x1\n  Sub L9 x1\n",
		},
		{
			name:  "a lone H1 is title and chapter",
			src:   "# Only\n\nbody\n",
			title: "Only",
			want:  "Only L1\n  \"\" L1 x1\n",
		},
		{
			name:  "deeper headings stay as text in their section",
			src:   "## C\n\n### S\n\n#### Deep\n\nd\n\n##### Deeper\n",
			title: "C",
			want:  "C L1\n  S L3 x3\n",
		},
		{
			name:  "setext headings have levels and the line of their text",
			src:   "Title\n=====\n\nintro\n\nPart\n----\n\nbody\n",
			title: "Title",
			want:  "Title L1\n  \"\" L1 x1\nPart L6\n  \"\" L6 x1\n",
		},
		{
			name:  "ATX closing hashes and indentation",
			src:   "   ## Indented ##\n\nx\n\n##   Spaced   #####\n\ny\n",
			title: "Indented",
			want:  "Indented L1\n  \"\" L1 x1\nSpaced L5\n  \"\" L5 x1\n",
		},
		{
			name:  "# inside a fence is code, not a heading",
			src:   "## Real\n\n```sh\n# not a heading\n## nor this\n```\n\n~~~\n# tilde fence\n~~~\n",
			title: "Real",
			want:  "Real L1\n  \"\" L1 x2\n",
		},
		{
			name:  "headings in quotes and lists are not structure",
			src:   "## A\n\n> ## Quoted\n> text\n\n- ## Listed\n",
			title: "A",
			want:  "A L1\n  \"\" L1 x2\n",
		},
		{
			name:  "empty headings are ignored",
			src:   "#\n\n## \n\ntext\n",
			title: "",
			want:  "Introduction L5\n  \"\" L5 x1\n",
		},
		{
			name:  "heading text is flattened",
			src:   "# The *`String`* [Type](x) &amp; more\n\nbody\n",
			title: "The String Type & more",
			want:  "The String Type & more L1\n  \"\" L1 x1\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.src)
			if d.Title != tc.title {
				t.Errorf("title = %q, want %q", d.Title, tc.title)
			}
			if got := outlineOf(d); got != tc.want {
				t.Errorf("outline:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestPreambleAndEmpty(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{
			name: "text before the first chapter is its own chapter",
			src:  "Opening words.\n\n## First\n\nf\n",
			want: "Introduction L1\n  \"\" L1 x1\nFirst L3\n  \"\" L3 x1\n",
		},
		{
			name: "preamble takes the front matter title",
			src:  "---\ntitle: Doc\n---\n\nOpening.\n\n## First\n\nf\n",
			want: "Doc L5\n  \"\" L5 x1\nFirst L7\n  \"\" L7 x1\n",
		},
		{
			name: "text under the title H1 is the preamble, named after it",
			src:  "# Book\n\nWelcome.\n\n## First\n\nf\n",
			want: "Book L1\n  \"\" L1 x1\nFirst L5\n  \"\" L5 x1\n",
		},
		{
			name: "text above and under the title H1 is one preamble",
			src:  "Badges\n\n# Book\n\nWelcome.\n\n## First\n\nf\n",
			want: "Book L1\n  \"\" L1 x2\nFirst L7\n  \"\" L7 x1\n",
		},
		{
			name: "preamble may hold sections",
			src:  "## Pre\n\np\n\n# A\n\na\n\n# B\n\nb\n",
			want: "Introduction L1\n  Pre L1 x1\nA L5\n  \"\" L5 x1\nB L9\n  \"\" L9 x1\n",
		},
		{
			name: "empty headings leave no empty chapters or sections",
			src:  "## A\n\n## B\n\n### B1\n\n### B2\n\nb2\n\n## C\n",
			want: "B L3\n  B2 L7 x1\n",
		},
		{
			name: "a chapter with only sub-sections keeps them",
			src:  "## A\n### A1\none\n### A2\ntwo\n",
			want: "A L1\n  A1 L2 x1\n  A2 L4 x1\n",
		},
		{
			name: "empty input",
			src:  "",
			want: "",
		},
		{
			name: "blank input",
			src:  "\n  \n\t\n",
			want: "",
		},
		{
			name: "front matter only",
			src:  "---\ntitle: Stub\nsort_rank: 1\n---\n",
			want: "",
		},
		{
			name: "headings only",
			src:  "# T\n## A\n## B\n",
			want: "",
		},
		{
			name: "thematic breaks and link definitions hold no text",
			src:  "---\n\n***\n\n[x]: http://example.com\n",
			want: "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.src)
			if got := outlineOf(d); got != tc.want {
				t.Errorf("outline:\n%s\nwant:\n%s", got, tc.want)
			}
			if tc.want == "" && d.Chapters != nil {
				t.Errorf("Chapters = %#v, want nil", d.Chapters)
			}
		})
	}
}

func TestFrontMatter(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		title    string
		authors  []string
		lang     string
		text     string // all block text
		firstRow int    // line of the first block, 0 to skip
	}{
		{
			name:     "yaml title author lang",
			src:      "---\ntitle: My Book\nauthor: Ann Smith\nlang: en\n---\nBody.\n",
			title:    "My Book",
			authors:  []string{"Ann Smith"},
			lang:     "en",
			text:     "Body.",
			firstRow: 6,
		},
		{
			name:    "yaml authors list and language key",
			src:     "---\ntitle: \"Quoted: title\"\nauthors:\n  - Ann\n  - Bob\nlanguage: pt_BR\n---\n\nBody.\n",
			title:   "Quoted: title",
			authors: []string{"Ann", "Bob"},
			lang:    "pt-BR",
			text:    "Body.",
		},
		{
			name:    "author and authors merged without duplicates, entries with names",
			src:     "---\nAuthor: Ann\nauthors:\n  - name: Bob\n  - Ann\n---\nx\n",
			authors: []string{"Ann", "Bob"},
			text:    "x",
		},
		{
			name:  "numeric title and closing dots",
			src:   "---\ntitle: 1984\n...\nx\n",
			title: "1984",
			text:  "x",
		},
		{
			name: "language that is not a tag is dropped",
			src:  "---\nlang: English language\n---\nx\n",
			text: "x",
		},
		{
			name:     "toml",
			src:      "+++\ntitle = \"TOML Book\"\nauthors = [\"Cy\", \"Di\"]\nlanguage = \"fr\"\n+++\n\nCorps.\n",
			title:    "TOML Book",
			authors:  []string{"Cy", "Di"},
			lang:     "fr",
			text:     "Corps.",
			firstRow: 7,
		},
		{
			name:     "malformed yaml that looks like metadata is dropped",
			src:      "---\ntitle: [unclosed\nauthor: x: y\n---\nBody.\n",
			text:     "Body.",
			firstRow: 5,
		},
		{
			name: "malformed toml that looks like metadata is dropped",
			src:  "+++\ntitle = \n+++\nBody.\n",
			text: "Body.",
		},
		{
			name: "a thematic break and setext heading are not front matter",
			src:  "---\nSome intro here.\n---\n\nBody.\n",
			// "Some intro here." is a setext H2 over the body.
			title: "Some intro here.",
			text:  "Body.",
		},
		{
			name: "unclosed front matter is text",
			src:  "---\ntitle: x\n\nBody.\n",
			text: "title: x\n\nBody.",
		},
		{
			name: "front matter must start the file",
			src:  "\n---\ntitle: x\n---\nBody.\n",
			// A thematic break, then "title: x" as a setext heading.
			title: "title: x",
			text:  "Body.",
		},
		{
			name:     "empty front matter",
			src:      "---\n---\nBody.\n",
			text:     "Body.",
			firstRow: 3,
		},
		{
			name:  "front matter title wins over the H1",
			src:   "---\ntitle: Meta\n---\n# Heading\n\nx\n",
			title: "Meta",
			text:  "x",
		},
		{
			name:     "BOM and CRLF front matter",
			src:      "\ufeff---\r\ntitle: Win\r\n---\r\n\r\nBody.\r\n",
			title:    "Win",
			text:     "Body.",
			firstRow: 5,
		},
		{
			name: "yaml that is a list is not front matter",
			src:  "---\n- a\n- b\n---\n",
			text: "- a\n- b",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.src)
			if d.Title != tc.title {
				t.Errorf("title = %q, want %q", d.Title, tc.title)
			}
			if !slices.Equal(d.Authors, tc.authors) {
				t.Errorf("authors = %q, want %q", d.Authors, tc.authors)
			}
			if d.Language != tc.lang {
				t.Errorf("language = %q, want %q", d.Language, tc.lang)
			}
			if got := d.Text(); got != tc.text {
				t.Errorf("text = %q, want %q", got, tc.text)
			}
			if tc.firstRow > 0 {
				if bs := d.Blocks(); len(bs) == 0 || bs[0].Line != tc.firstRow {
					t.Errorf("first block = %+v, want line %d", bs, tc.firstRow)
				}
			}
		})
	}
}

func TestBlocks(t *testing.T) {
	type blk struct {
		kind doc.BlockKind
		line int
		text string
	}
	tests := []struct {
		name string
		src  string
		want []blk
	}{
		{
			name: "nested and ordered lists",
			src:  "- one\n- two\n  - two.a\n    1. deep\n    2. deeper\n- three\n\n7. seven\n8. eight\n",
			want: []blk{
				{doc.List, 1, "- one\n- two\n  - two.a\n    1. deep\n    2. deeper\n- three"},
				{doc.List, 8, "7. seven\n8. eight"},
			},
		},
		{
			name: "loose list with paragraphs and code stays one item per line",
			src:  "- first\n\n  more of first\n\n- second\n\n  ```\n  code\n  ```\n",
			want: []blk{{doc.List, 1, "- first\n  more of first\n- second\n  code"}},
		},
		{
			name: "list item starting with a list",
			src:  "- - a\n  - b\n",
			want: []blk{{doc.List, 1, "- - a\n  - b"}},
		},
		{
			name: "task list items keep their box",
			src:  "- [ ] todo\n- [x] done\n",
			want: []blk{{doc.List, 1, "- [ ] todo\n- [x] done"}},
		},
		{
			name: "table",
			src:  "| Name | Value |\n|------|------:|\n| *a*  | `1|` |\n| b    |       |\n| \\| | x |\n",
			want: []blk{{doc.Table, 1, "Name | Value\na | `1\nb |\n| | x"}},
		},
		{
			name: "quote with paragraphs list and code",
			src:  "> Para one\n> continues.\n>\n> - item\n>   still item\n>\n> ```\n> code\n> ```\n>\n> > nested\n",
			want: []blk{{doc.Quote, 1, "Para one continues.\n\n- item still item\n\ncode\n\nnested"}},
		},
		{
			name: "fenced code kept verbatim",
			src:  "text\n\n```go\nfunc f() {\n\treturn\n}\n\n// end\n```\n",
			want: []blk{
				{doc.Paragraph, 1, "text"},
				{doc.Code, 3, "func f() {\n\treturn\n}\n\n// end"},
			},
		},
		{
			name: "indented code keeps inner indentation",
			src:  "para\n\n    if x:\n        y()\n",
			want: []blk{
				{doc.Paragraph, 1, "para"},
				{doc.Code, 3, "if x:\n    y()"},
			},
		},
		{
			name: "unclosed fence runs to the end",
			src:  "```\n# a\nb\n",
			want: []blk{{doc.Code, 1, "# a\nb"}},
		},
		{
			name: "empty code blocks give no block",
			src:  "```\n```\n\n```\n   \n```\n\nafter\n",
			want: []blk{{doc.Paragraph, 8, "after"}},
		},
		{
			name: "html block text without tags",
			src:  "<div align=\"center\">\n  <img alt=\"Logo\" src=\"x.png\">\n  <p>Hello &amp; <b>welcome</b></p>\n</div>\n\n<!-- a comment -->\n\n<a id=\"x\"></a>\n\nafter\n",
			want: []blk{
				{doc.Paragraph, 1, "Logo\nHello & welcome"},
				{doc.Paragraph, 10, "after"},
			},
		},
		{
			name: "html table and script",
			src:  "<table><tr><th>In</th><th>Out</th></tr><tr><td>1</td><td>2</td></tr></table>\n\n<script>\nvar x = 1;\n</script>\n",
			want: []blk{{doc.Paragraph, 1, "In | Out\n1 | 2"}},
		},
		{
			name: "mdBook directive in a paragraph and a fence",
			src:  "{{#include ../a.rs}}\n\n```rust\n{{#rustdoc_include ../b.rs:here}}\n```\n",
			want: []blk{
				{doc.Paragraph, 1, "{{#include ../a.rs}}"},
				{doc.Code, 3, "{{#rustdoc_include ../b.rs:here}}"},
			},
		},
		{
			name: "footnote definitions stay where they are written",
			src:  "A claim.[^1]\n\n[^1]: The source.\n",
			want: []blk{
				{doc.Paragraph, 1, "A claim.[^1]"},
				{doc.Paragraph, 3, "[^1]: The source."},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.src)
			var got []blk
			for _, b := range d.Blocks() {
				got = append(got, blk{b.Kind, b.Line, b.Text})
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("blocks:\n%+v\nwant:\n%+v", got, tc.want)
			}
		})
	}
}

func TestInlineFlattening(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"emphasis", "Some *em*, **strong**, _under_ and ~~gone~~ text.", "Some em, strong, under and gone text."},
		{"links and images", "See [the docs](http://x \"t\") and ![a *diagram*](d.png) or [ref][r].\n\n[r]: http://y", "See the docs and a diagram or ref."},
		{"badge link around image", "[![cover](c.png)](SUMMARY.md)", "cover"},
		{"autolinks", "Mail <me@example.com> or <https://example.com/a>.", "Mail me@example.com or https://example.com/a."},
		{"inline code kept as written", "Use `a *b* \\n &amp;` and `` `tick` ``.", "Use a *b* \\n &amp; and `tick`."},
		{"code span across lines", "A `multi\nline` span.", "A multi line span."},
		{"entities and escapes", "&copy; &#233; &#x1F600; &bogus; \\*not em\\* \\& 5 &lt; 6", "© é 😀 &bogus; *not em* & 5 < 6"},
		{"invalid numeric reference", "x &#0; y &#xD800; z", "x \uFFFD y \uFFFD z"},
		{"soft breaks are spaces", "one\ntwo\nthree", "one two three"},
		{"hard breaks are newlines", "one  \ntwo\\\nthree<br>four<br/>five", "one\ntwo\nthree\nfour\nfive"},
		{"inline html stripped", "a <span class=\"x\">b</span> <!-- ignore -->c <kbd>Ctrl</kbd>", "a b c Ctrl"},
		{"inline img alt", "Figure: <img alt=\"two\ntables\" src=\"f.svg\">.", "Figure: two tables."},
		{"cjk lines join without a space", "日本語の文章は\n改行されても続く。\nEnglish\nwords", "日本語の文章は改行されても続く。 English words"},
		{"hangul keeps spaces", "한국어\n문장", "한국어 문장"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.src)
			bs := d.Blocks()
			if len(bs) == 0 {
				t.Fatal("no blocks")
			}
			if bs[0].Kind != doc.Paragraph || bs[0].Text != tc.want {
				t.Errorf("got %v %q, want paragraph %q", bs[0].Kind, bs[0].Text, tc.want)
			}
		})
	}
}

func TestEncodings(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		title string
		want  string // outline
		text  string
	}{
		{
			name:  "CRLF",
			src:   "# T\r\n\r\nIntro\r\nline.\r\n\r\n## A\r\n\r\n```\r\ncode\r\nmore\r\n```\r\n",
			title: "T",
			want:  "T L1\n  \"\" L1 x1\nA L6\n  \"\" L6 x1\n",
			text:  "Intro line.\n\ncode\nmore",
		},
		{
			name:  "lone CR",
			src:   "## A\r\rtext\r",
			title: "A",
			want:  "A L1\n  \"\" L1 x1\n",
			text:  "text",
		},
		{
			name:  "UTF-8 BOM",
			src:   "\ufeff# Title\n\nBody.\n",
			title: "Title",
			want:  "Title L1\n  \"\" L1 x1\n",
			text:  "Body.",
		},
		{
			name:  "invalid UTF-8 and NUL",
			src:   "## Bad \xff\xfe name\n\nLatin-1 caf\xe9 and a \x00 NUL.\n",
			title: "Bad \uFFFD name",
			want:  "Bad \uFFFD name L1\n  \"\" L1 x1\n",
			text:  "Latin-1 caf\uFFFD and a \uFFFD NUL.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.src)
			if d.Title != tc.title {
				t.Errorf("title = %q, want %q", d.Title, tc.title)
			}
			if got := outlineOf(d); got != tc.want {
				t.Errorf("outline:\n%s\nwant:\n%s", got, tc.want)
			}
			if got := d.Text(); got != tc.text {
				t.Errorf("text = %q, want %q", got, tc.text)
			}
		})
	}
}

func TestLinesAfterFrontMatter(t *testing.T) {
	src := "---\ntitle: T\nauthors: [A]\n---\n\n## One\n\npara\n\n- item\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> q\n\n    code\n"
	d := mustParse(t, src)
	var got []int
	for _, b := range d.Blocks() {
		got = append(got, b.Line)
	}
	if want := []int{8, 10, 12, 16, 18}; !slices.Equal(got, want) {
		t.Errorf("lines = %v, want %v", got, want)
	}
	if a := d.Chapters[0].Anchor; a != "L6" {
		t.Errorf("chapter anchor = %q, want L6", a)
	}
}

func TestContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Parse(ctx, []byte("# x\n\ny\n"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestLargeInputCancelsMidway(t *testing.T) {
	// Many top-level blocks, so the conversion loop sees the context.
	src := strings.Repeat("para\n\n", 5000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, []byte(src)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	d, err := Parse(context.Background(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(d.Blocks()); n != 5000 {
		t.Errorf("%d blocks, want 5000", n)
	}
}

func TestDeepNestingIsBounded(t *testing.T) {
	// Each level is one more nested list; indentation must stop growing so
	// the output stays proportional to the input.
	var sb strings.Builder
	for i := range 200 {
		sb.WriteString(strings.Repeat("  ", i))
		sb.WriteString("- x\n")
	}
	d := mustParse(t, sb.String())
	bs := d.Blocks()
	if len(bs) != 1 || bs[0].Kind != doc.List {
		t.Fatalf("blocks = %+v", bs)
	}
	for ln := range strings.SplitSeq(bs[0].Text, "\n") {
		if len(ln) > maxIndent+len("x") {
			t.Fatalf("line %q longer than the indent bound", ln)
		}
	}
	if len(bs[0].Text) > 10*sb.Len() {
		t.Errorf("output %d bytes for %d bytes of input", len(bs[0].Text), sb.Len())
	}
}

func TestDeepMarker(t *testing.T) {
	deep := strings.Repeat("- ", maxLineNesting)
	tests := []struct {
		name string
		line string
		want int
	}{
		{"plain text", "hello", -1},
		{"a few markers", "> - 1. x", -1},
		{"exactly the limit", deep + "x", -1},
		{"one past the limit", deep + "- x", len(deep)},
		{"quotes", strings.Repeat(">", maxLineNesting+1) + " x", maxLineNesting},
		{"ordered escapes the delimiter", deep + "12. x", len(deep) + 2},
		{"thematic break is left alone", strings.Repeat("- ", 100), -1},
		{"star thematic break", strings.Repeat("* ", 100), -1},
		{"dash without space is text", deep + "-x", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := deepMarker([]byte(tc.line)); got != tc.want {
				t.Errorf("deepMarker = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestDeepSingleLineNesting(t *testing.T) {
	src := "## T\n\n" + strings.Repeat("- ", 20000) + "end\n\nafter\n"
	d := mustParse(t, src)
	bs := d.Blocks()
	if len(bs) != 2 || bs[0].Kind != doc.List || !strings.HasSuffix(bs[0].Text, "- - end") || bs[1].Line != 5 {
		t.Fatalf("blocks = %.300v", bs)
	}
	if got := limitNesting([]byte("a\n- b\n")); string(got) != "a\n- b\n" {
		t.Errorf("limitNesting changed a shallow document: %q", got)
	}
}

func TestDeadlineDuringParse(t *testing.T) {
	// Indentation-nested lists are slow for goldmark; the deadline must win.
	var sb strings.Builder
	for i := range 400 {
		sb.WriteString(strings.Repeat(" ", 2*i))
		sb.WriteString("- x\n")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := Parse(ctx, []byte(sb.String())); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
}

// TestFrontMatterCatalog: tags, keywords and categories (a list or one
// string, a note's "#tag" as well) are tags; the date, publisher, series
// and ISBN go to the catalogue. YAML and TOML give dates as timestamps.
func TestFrontMatterCatalog(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      doc.Catalog
	}{
		{"yaml", "---\ntags: [sea, \"#lamps\", Sea]\nkeywords: tides, charts\ndate: 2023-02-01\npublisher: Harbour Press\nseries: Coast\nseries_index: 2\nisbn: 978-0\n---\nBody.\n",
			doc.Catalog{Tags: []string{"tides", "charts", "sea", "lamps"}, Published: "2023-02-01", Publisher: "Harbour Press",
				Series: "Coast", SeriesIndex: 2, Identifiers: map[string]string{"isbn": "978-0"}}},
		{"toml", "+++\ncategories = [\"notes\"]\ndate = 2021-03-04T05:06:07Z\n+++\nBody.\n",
			doc.Catalog{Tags: []string{"notes"}, Published: "2021-03-04"}},
		{"none", "---\ntitle: T\n---\nBody.\n", doc.Catalog{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mustParse(t, tc.src).Catalog
			if got.Publisher != tc.want.Publisher || !slices.Equal(got.Tags, tc.want.Tags) || got.Published != tc.want.Published ||
				got.Series != tc.want.Series || got.SeriesIndex != tc.want.SeriesIndex || !maps.Equal(got.Identifiers, tc.want.Identifiers) {
				t.Errorf("catalog %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
