package xhtml

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// renderPieces shows converted pieces one per line: "p: text" for
// paragraphs, "h2: text" for headings, "list:", "table:", "quote:",
// "code:" followed by the block's lines indented, and "mark #id".
func renderPieces(ps []Piece) string {
	var sb strings.Builder
	for _, p := range ps {
		switch p.Kind {
		case Mark:
			fmt.Fprintf(&sb, "mark #%s\n", p.ID)
		case Heading:
			fmt.Fprintf(&sb, "h%d: %s\n", p.Level, p.Text)
		case Block:
			if p.Block == doc.Paragraph {
				fmt.Fprintf(&sb, "p: %s\n", strings.ReplaceAll(p.Text, "\n", "⏎"))
				continue
			}
			fmt.Fprintf(&sb, "%s:\n", p.Block)
			for _, l := range strings.Split(p.Text, "\n") {
				fmt.Fprintf(&sb, "  |%s\n", l)
			}
		}
	}
	return sb.String()
}

func convert(t *testing.T, src string, targets ...string) []Piece {
	t.Helper()
	set := make(map[string]bool)
	for _, id := range targets {
		set[id] = true
	}
	r, err := Convert(context.Background(), []byte(src), Options{Path: "t.xhtml", Targets: set})
	if err != nil {
		t.Fatal(err)
	}
	return r.Pieces
}

func TestConvertXHTML(t *testing.T) {
	tests := []struct {
		name    string
		body    string // inside <body>, unless it starts with "<?" or "<html"
		targets []string
		want    string
	}{
		{
			name: "paragraphs, white space, entities",
			body: "<p>  Caf&eacute;\n  &amp; &lt;tag&gt; &#x263A;&nbsp;ok  </p>\n<div>Second   <em>block</em>.</div>",
			want: "p: Café & <tag> ☺ ok\np: Second block.\n",
		},
		{
			name: "br is a line break, runs give at most a blank line",
			body: "<p>one<br/>two<br />\n   three<br/><br/><br/><br/>four<br/></p>",
			want: "p: one⏎two⏎three⏎⏎four\n",
		},
		{
			name: "head, script, style, template, hidden and page numbers dropped",
			body: `<script>var x = "<p>no</p>";</script><style>p{}</style>
<p>Keep<span epub:type="pagebreak" id="p12" title="12">12</span> this.</p>
<p hidden="">Hidden.</p><template><p>t</p></template><p>End<span role="doc-pagebreak">13</span>.</p>`,
			want: "p: Keep this.\np: End.\n",
		},
		{
			name: "self-closing title and script do not swallow the document",
			body: `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title/><script src="a.js"/></head>
<body><p>Still here.</p></body></html>`,
			want: "p: Still here.\n",
		},
		{
			name:    "self-closing anchors are empty, ids are marks where they stand",
			body:    `<p>Before.</p><a id="x"/><p>After.</p><p>In <a id="y"/>the middle.</p>`,
			targets: []string{"x", "y"},
			want:    "p: Before.\nmark #x\np: After.\np: In\nmark #y\np: the middle.\n",
		},
		{
			name:    "a mark inside a heading moves to its start",
			body:    `<h2><span>Chapter 1.</span> <a id="c1"/>Loomings</h2><p>Call me Ishmael.</p>`,
			targets: []string{"c1"},
			want:    "mark #c1\nh2: Chapter 1. Loomings\np: Call me Ishmael.\n",
		},
		{
			name: "headings: inline markup flattened, br a space",
			body: `<h1>CHAPTER I.<br/>Down the <em>Rabbit</em>-Hole</h1><h6>Small</h6>`,
			want: "h1: CHAPTER I. Down the Rabbit-Hole\nh6: Small\n",
		},
		{
			name: "nested lists with markers and continuations",
			body: `<ul><li>One</li><li><p>Two</p><p>still two</p>
<ol start="3"><li>three</li><li value="9">nine</li></ol></li><li>Four</li></ul>`,
			want: "list:\n  |- One\n  |- Two\n  |  still two\n  |  3. three\n  |  9. nine\n  |- Four\n",
		},
		{
			name: "definition list",
			body: `<dl><dt>Term</dt><dd>Meaning</dd><dt>Other</dt><dd>Its <b>meaning</b></dd></dl>`,
			want: "list:\n  |Term\n  |  Meaning\n  |Other\n  |  Its meaning\n",
		},
		{
			name: "table rows become lines, cells flattened",
			body: `<table><caption>Prices</caption><thead><tr><th>Item</th><th>Cost</th></tr></thead>
<tbody><tr><td><p>Tea</p><p>(green)</p></td><td>1<br/>2</td></tr><tr><td></td><td></td></tr>
<tr><td>x</td><td><table><tr><td>in</td><td>ner</td></tr></table></td></tr></tbody></table>`,
			want: "table:\n  |Prices\n  |Item | Cost\n  |Tea (green) | 1 2\n  |x | in ner\n",
		},
		{
			name: "preformatted text keeps its white space",
			body: "<pre>\n  func main() {\n\t  println(\"&lt;hi&gt;\")\n  }\n</pre><p>after</p>",
			want: "code:\n  |  func main() {\n  |\t  println(\"<hi>\")\n  |  }\np: after\n",
		},
		{
			name: "block quote paragraphs separated by a blank line",
			body: `<blockquote><p>First para.</p><p>Second para.</p></blockquote>`,
			want: "quote:\n  |First para.\n  |\n  |Second para.\n",
		},
		{
			name: "a list in a quote stays in the quote",
			body: `<blockquote><p>Said:</p><ul><li>a</li><li>b</li></ul></blockquote>`,
			want: "quote:\n  |Said:\n  |\n  |- a\n  |- b\n",
		},
		{
			name:    "a mark inside a list splits the block",
			body:    `<ol><li>one</li><li id="two">two</li><li>three</li></ol>`,
			targets: []string{"two"},
			want:    "list:\n  |1. one\nmark #two\nlist:\n  |2. two\n  |3. three\n",
		},
		{
			name:    "a mark inside a table moves to its row",
			body:    `<table><tr><td>a</td></tr><tr><td>b <a id="r"/>c</td><td>d</td></tr></table>`,
			targets: []string{"r"},
			want:    "table:\n  |a\nmark #r\ntable:\n  |b c | d\n",
		},
		{
			name: "images give their alt text, footnote markers stay",
			body: `<p><img src="t.png" alt="T"/>he whale<a epub:type="noteref" href="#n1"><sup>1</sup></a>.</p><div><img src="x.png" alt=""/></div>`,
			want: "p: The whale1.\n",
		},
		{
			name: "right-to-left and non-Latin text intact",
			body: `<p dir="rtl">שלום, עולם! <span lang="ar">مرحبا</span></p><p>日本語の文章。</p>`,
			want: "p: שלום, עולם! مرحبا\np: 日本語の文章。\n",
		},
		{
			name: "ruby annotations and soft hyphens dropped",
			body: "<p><ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp>字</ruby> hy\u00adphen\u00adated</p>",
			want: "p: 漢字 hyphenated\n",
		},
		{
			name: "a DOCTYPE's internal subset is not text",
			body: `<?xml version="1.0"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "x.dtd" [
  <!ENTITY ent "a > b ]"> <!-- a ]> comment -->
  <!ATTLIST p class CDATA 'x>'>
]>
<html><body><p>Text.</p></body></html>`,
			want: "p: Text.\n",
		},
		{
			name: "CDATA is text",
			body: `<p><![CDATA[a < b & c]]></p>`,
			want: "p: a < b & c\n",
		},
		{
			name: "MathML as linear text",
			body: `<p>Solve <math><mrow><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><msub><mi>a</mi><mrow><mi>i</mi><mi>j</mi></mrow></msub><mo>=</mo><mfrac><mn>1</mn><mrow><mi>n</mi><mo>+</mo><mn>1</mn></mrow></mfrac></mrow></math> now.</p>`,
			want: "p: Solve x^2 + a_ij = 1/(n + 1) now.\n",
		},
		{
			name: "MathML alttext wins, annotations are not read twice",
			body: `<p><math alttext="\sqrt{2}"><msqrt><mn>2</mn></msqrt></math> and <math><semantics><mrow><mo>−</mo><mn>1</mn></mrow><annotation encoding="text/plain">minus one</annotation></semantics></math></p>`,
			want: "p: \\sqrt{2} and −1\n",
		},
		{
			name: "MathML fences, roots, signs and empty scripts",
			body: `<p><math><mfenced separators="；"><mi>a</mi><mi>b</mi></mfenced><mroot><mi>x</mi><mn>3</mn></mroot><mo>=</mo><mo>−</mo><msup><mi>y</mi><mrow></mrow></msup></math></p>`,
			want: "p: (a； b)3√(x) = −y\n",
		},
		{
			name: "sloppy HTML: unclosed p and li, stray end tags",
			body: `<p>one<p>two</span></b><ul><li>a<li>b</ul>`,
			want: "p: one\np: two\nlist:\n  |- a\n  |- b\n",
		},
		{
			name: "svg and its text dropped",
			body: `<svg xmlns="http://www.w3.org/2000/svg"><text>label</text><image href="c.jpg"/></svg><p>text</p>`,
			want: "p: text\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.body
			if !strings.HasPrefix(src, "<?") && !strings.HasPrefix(src, "<html") {
				src = page("T", src)
			}
			got := renderPieces(convert(t, src, tc.targets...))
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestConvertAnchors(t *testing.T) {
	src := page("T", `<section id="s"><p>one</p><p id="p2">two</p><p><span id="in"/>three</p></section>`)
	ps := convert(t, src)
	var got []string
	for _, p := range ps {
		got = append(got, p.Anchor)
	}
	want := []string{"t.xhtml#s", "t.xhtml#p2", "t.xhtml#in"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("anchors = %q, want %q", got, want)
	}
}

func TestConvertTitle(t *testing.T) {
	r, err := Convert(context.Background(), []byte(page(`"Cover"`, "<p>x</p>")), Options{Path: "t.xhtml"})
	if err != nil || r.Title != "Cover" {
		t.Errorf("title = %q, %v", r.Title, err)
	}
}

// TestConvertDeepNesting checks that hostile nesting costs linear time and
// loses no text.
func TestConvertDeepNesting(t *testing.T) {
	const n = 200000
	src := strings.Repeat("<div><span>", n) + "deep" + strings.Repeat("</x>", n) + strings.Repeat("</span></div>", n)
	ps := convert(t, src)
	if len(ps) != 1 || ps[0].Text != "deep" {
		t.Errorf("pieces = %s", renderPieces(ps))
	}
	// Nested fractions each hold a long operand: rendering them must not
	// copy the formula once per level.
	var frac strings.Builder
	frac.WriteString("<p><math>")
	for range 120 {
		frac.WriteString("<mfrac><mrow>" + strings.Repeat("<mi>a</mi><mo>+</mo>", 500) + "<mi>b</mi></mrow>")
	}
	frac.WriteString("<mn>1</mn>" + strings.Repeat("<mn>2</mn></mfrac>", 120) + "</math></p>")
	start := time.Now()
	ps = convert(t, frac.String())
	if len(ps) != 1 || time.Since(start) > 2*time.Second {
		t.Errorf("%d pieces in %v", len(ps), time.Since(start))
	}
	deepMath := "<p><math>" + strings.Repeat("<mrow>", n) + "<mi>x</mi>" + strings.Repeat("</mrow>", n) + "</math> y</p>"
	ps = convert(t, deepMath)
	if len(ps) != 1 || !strings.HasSuffix(ps[0].Text, "y") {
		t.Errorf("pieces = %.200s", renderPieces(ps))
	}
}

// page is an XHTML document with title and body, as EPUBs hold them.
func page(title, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>` + title + `</title><link rel="stylesheet" href="s.css"/></head>
<body>` + body + `</body>
</html>`
}

// TestConvertPage checks what a saved web page keeps: its main content
// when it marks one, else all but its furniture; notes even in an aside;
// its language and meta tags.
func TestConvertPage(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{
			name: "main only",
			src:  `<body><header><p>Site</p></header><div><p>Before main</p><div role="main"><h1>T</h1><p>Body</p></div></div><p>After</p></body>`,
			want: "h1: T\np: Body\n",
		},
		{
			name: "furniture left out",
			src: `<body><nav><p>Menu</p></nav><header><p>Banner</p></header><div role="navigation">Crumbs</div><div aria-hidden="true">Icon</div>
<article><header><h2>Post</h2></header><p>Text</p><footer>Tags</footer></article><aside><p>Ads</p></aside>
<aside class="footnotes"><p>1. A note.</p></aside><div role="contentinfo">Legal</div><footer>Copyright</footer></body>`,
			want: "h2: Post\np: Text\np: Tags\np: 1. A note.\n",
		},
		{
			name: "an empty main does not hide the page",
			src:  `<body><main><script>fill()</script></main><article><p>Rendered text</p></article></body>`,
			want: "p: Rendered text\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Convert(context.Background(), []byte(tc.src), Options{Page: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := renderPieces(r.Pieces); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	// A book's chapter keeps its asides and headers.
	r, err := Convert(context.Background(), []byte(`<body><header><p>Kept</p></header><aside><p>Also kept</p></aside></body>`), Options{})
	if err != nil || renderPieces(r.Pieces) != "p: Kept\np: Also kept\n" {
		t.Errorf("not a page: %q, %v", renderPieces(r.Pieces), err)
	}
	r, _ = Convert(context.Background(), []byte(`<html lang="fr"><head><meta name="Author" content=" Jean  Roe "><meta property="og:title" content="Titre"><meta charset="utf-8"></head><body><p>x</p></body></html>`), Options{Page: true})
	if r.Lang != "fr" || len(r.Meta) != 2 || r.Meta[0] != (Meta{Name: "author", Content: "Jean Roe"}) || r.Meta[1].Name != "og:title" {
		t.Errorf("lang %q, meta %+v", r.Lang, r.Meta)
	}
}

func TestOffsetsCiteBytesOfTheDocumentAsItIs(t *testing.T) {
	// Windows-1252 text ("caf\xe9"), a MOBI6 page break and a mark at a
	// byte position inside the second paragraph's token run.
	src := []byte("<html><body><p>Caf\xe9 &amp; tea</p><mbp:pagebreak><h2>Two</h2><p>Second</p></body></html>")
	at := bytes.Index(src, []byte("<h2>"))
	res, err := Convert(context.Background(), src, Options{Offsets: true, Positions: []int{at},
		Decode: func(b []byte) string {
			r := make([]rune, len(b))
			for i, c := range b {
				r[i] = rune(c) // Latin-1 is enough here
			}
			return string(r)
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Piece{
		{Kind: Block, Block: doc.Paragraph, Text: "Café & tea", Offset: bytes.Index(src, []byte("Caf"))},
		{Kind: Mark, Offset: at, Entry: 0},
		{Kind: Heading, Level: 2, Text: "Two", Offset: bytes.Index(src, []byte("Two"))},
		{Kind: Block, Block: doc.Paragraph, Text: "Second", Offset: bytes.Index(src, []byte("Second"))},
	}
	if !reflect.DeepEqual(res.Pieces, want) {
		t.Errorf("pieces:\n got %+v\nwant %+v", res.Pieces, want)
	}
}

// FuzzBlankInternalSubset checks that blanking a DOCTYPE's subset moves
// no byte: only bytes turned to spaces differ.
func FuzzBlankInternalSubset(f *testing.F) {
	for _, s := range []string{
		`<!DOCTYPE html [ <!ENTITY x "y"> ]><p>t</p>`,
		`<?xml version="1.0"?><!-- c --><!doctype html SYSTEM 'a[' [<!-- ] -->]>`,
		`<!DOCTYPE html [ <!ENTITY x "never closed`,
		`<p>[not a doctype]</p>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in := bytes.Clone(data)
		out := blankInternalSubset(data)
		if !bytes.Equal(data, in) {
			t.Fatal("input changed")
		}
		if len(out) != len(in) {
			t.Fatalf("length %d, want %d", len(out), len(in))
		}
		for i := range out {
			if out[i] != in[i] && out[i] != ' ' {
				t.Fatalf("byte %d is %q, was %q", i, out[i], in[i])
			}
		}
	})
}
