package html

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
	"github.com/grimoire-search/grimoire/ingest/internal/safezip"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

func mustParse(t *testing.T, data []byte) *doc.Document {
	t.Helper()
	d, err := Parse(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	doctest.Check(t, d, doc.HTML)
	return d
}

// savedPage is a web page as a browser saves it: the site's banner,
// navigation, a sidebar and footer around one article, scripts and
// styles, and a cookie notice hidden from screen readers.
const savedPage = `<!DOCTYPE html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<title>Tides of the Severn | Coastal Notes</title>
<meta property="og:title" content="Tides of the Severn">
<meta name="author" content="Ada Marsh">
<style>body { font-family: serif }</style>
<script>var tracking = "do not index me";</script>
</head>
<body>
<header class="site"><a href="/">Coastal Notes</a> <nav><a href="/a">Archive</a> <a href="/b">About</a></nav></header>
<div aria-hidden="true">Accept cookies</div>
<main>
<article>
<header><h1>Tides of the Severn</h1><p class="byline">By Ada Marsh</p></header>
<p>The Severn has the second highest tidal range in the world.<sup><a href="#fn1">1</a></sup></p>
<h2>The bore</h2>
<p>Twice a day the bore runs up the estuary.</p>
<table><tr><th>Place</th><th>Range</th></tr><tr><td>Avonmouth</td><td>14 m</td></tr></table>
<h2>Hazards</h2>
<p>Sandbanks shift with every storm.</p>
<aside role="doc-endnotes"><ol><li id="fn1">After the Bay of Fundy.</li></ol></aside>
</article>
<aside class="related"><h3>Related</h3><p>Ten walks by the sea</p></aside>
</main>
<footer><p>© Coastal Notes</p><script>alert(1)</script></footer>
<noscript>Enable JavaScript</noscript>
</body>
</html>`

func TestSavedPage(t *testing.T) {
	d := mustParse(t, []byte(savedPage))
	if d.Title != "Tides of the Severn" || !slices.Equal(d.Authors, []string{"Ada Marsh"}) || d.Language != "en-GB" {
		t.Errorf("metadata %q %q %q", d.Title, d.Authors, d.Language)
	}
	text := d.Text()
	for _, gone := range []string{"Coastal Notes", "Archive", "cookies", "tracking", "font-family", "Related", "Ten walks", "alert", "JavaScript"} {
		if strings.Contains(text, gone) {
			t.Errorf("%q left in the text:\n%s", gone, text)
		}
	}
	for _, kept := range []string{"By Ada Marsh", "second highest tidal range", "Place | Range\nAvonmouth | 14 m", "After the Bay of Fundy."} {
		if !strings.Contains(text, kept) {
			t.Errorf("%q missing from the text:\n%s", kept, text)
		}
	}
	if got, want := doctest.Outline(d), "Tides of the Severn\nThe bore\nHazards\n"; got != want {
		t.Errorf("outline\n%s\nwant\n%s", got, want)
	}
}

func TestPageWithoutMain(t *testing.T) {
	page := `<html><head><title>Notes</title></head><body>
<header><h1>My Site</h1></header><nav><ul><li>Home</li></ul></nav>
<article><header><h2>First post</h2></header><p>Hello there.</p><footer>Posted in May</footer></article>
<section><header><h2>Second post</h2></header><p>More words.</p></section>
<footer>Contact me</footer></body></html>`
	d := mustParse(t, []byte(page))
	text := d.Text()
	for _, gone := range []string{"My Site", "Home", "Contact me"} {
		if strings.Contains(text, gone) {
			t.Errorf("%q left in the text:\n%s", gone, text)
		}
	}
	if got, want := doctest.Outline(d), "First post\nSecond post\n"; got != want {
		t.Errorf("outline\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(text, "Posted in May") {
		t.Errorf("an article's own footer is its text:\n%s", text)
	}
}

// TestRightToLeft checks that Hebrew and Arabic come through as written,
// with the page's language.
func TestRightToLeft(t *testing.T) {
	page := `<html lang="he" dir="rtl"><head><title>מפליגים</title></head><body>
<h1>הפלגה קצרה</h1><p>יצאנו מהמרינה בהרצליה עם שחר.</p><h1>عودة</h1><p>عدنا إلى الميناء مساءً.</p></body></html>`
	d := mustParse(t, []byte(page))
	if d.Language != "he" || d.Title != "מפליגים" {
		t.Errorf("metadata %q %q", d.Title, d.Language)
	}
	for _, s := range []string{"יצאנו מהמרינה בהרצליה עם שחר.", "عدنا إلى الميناء مساءً."} {
		if !strings.Contains(d.Text(), s) {
			t.Errorf("%q missing from %q", s, d.Text())
		}
	}
	if got := doctest.Outline(d); got != "הפלגה קצרה\nعودة\n" {
		t.Errorf("outline %q", got)
	}
}

// TestLongPre checks that a law published as one <pre> keeps every line.
func TestLongPre(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("<html><body><pre>")
	for i := range 3000 {
		fmt.Fprintf(&sb, "SEC. %d. &lt;&lt;NOTE: 18 USC %d&gt;&gt; The Secretary shall report.\n", i, i)
	}
	sb.WriteString("</pre></body></html>")
	d := mustParse(t, []byte(sb.String()))
	blocks := d.Blocks()
	if len(blocks) != 1 || blocks[0].Kind != doc.Code {
		t.Fatalf("%d blocks", len(blocks))
	}
	lines := strings.Split(blocks[0].Text, "\n")
	if len(lines) != 3000 || lines[2999] != "SEC. 2999. <<NOTE: 18 USC 2999>> The Secretary shall report." {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

func TestEncodings(t *testing.T) {
	cyrillic := "Война и мир"
	win1251, err := charmap.Windows1251.NewEncoder().String(cyrillic)
	if err != nil {
		t.Fatal(err)
	}
	latin1, _ := charmap.ISO8859_1.NewEncoder().String("Café")
	for _, tc := range []struct {
		name, page, want string
	}{
		{"meta charset", `<html><head><meta charset="windows-1251"></head><body><p>` + win1251 + `</p></body></html>`, cyrillic},
		{"http-equiv", `<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head><body><p>` + latin1 + `</p></body></html>`, "Café"},
		{"XML declaration", `<?xml version="1.0" encoding="windows-1251"?><html><body><p>` + win1251 + `</p></body></html>`, cyrillic},
		{"UTF-8 without a declaration", `<p>` + cyrillic + `</p>`, cyrillic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustParse(t, []byte(tc.page)).Text(); got != tc.want {
				t.Errorf("text %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMetadata(t *testing.T) {
	for _, tc := range []struct {
		name, head         string
		title, author, lng string
	}{
		{"title element", `<title> Plain  Title </title>`, "Plain Title", "", ""},
		{"Dublin Core", `<title>x</title><meta name="DC.title" content="DC Title"><meta name="DC.creator" content="Smith, Jane; Doe, John"><meta name="DC.language" content="fr">`,
			"DC Title", "Smith, Jane|Doe, John", "fr"},
		{"Open Graph authors are links", `<meta property="article:author" content="https://example.com/jane"><meta name="author" content="Jane Roe">`, "", "Jane Roe", ""},
		{"locale", `<meta property="og:locale" content="pt_BR">`, "", "", "pt-BR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, []byte("<html><head>"+tc.head+"</head><body><p>Text.</p></body></html>"))
			if d.Title != tc.title || strings.Join(d.Authors, "|") != tc.author || d.Language != tc.lng {
				t.Errorf("got %q %q %q", d.Title, d.Authors, d.Language)
			}
		})
	}
}

func TestNotHTML(t *testing.T) {
	_, err := Parse(context.Background(), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	if !errors.Is(err, ErrNotHTML) || !strings.Contains(err.Error(), "binary") {
		t.Errorf("err = %v", err)
	}
	d, err := Parse(context.Background(), []byte("<html><head><script>x()</script></head><body></body></html>"))
	if err != nil || len(d.Chapters) != 0 {
		t.Errorf("a page of script: %v, %d chapters", err, len(d.Chapters))
	}
}

// zipOf writes files into a zip archive, in order.
func zipOf(t testing.TB, files ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(f[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const calibreOPF = `<?xml version='1.0' encoding='utf-8'?>
<package xmlns="http://www.idpf.org/2007/opf" unique-identifier="uuid_id" version="2.0">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
<dc:identifier opf:scheme="uuid" id="uuid_id">4e1f</dc:identifier>
<dc:title>The Lighthouse Log</dc:title>
<dc:creator opf:file-as="Keeper, Ann" opf:role="aut">Ann Keeper</dc:creator>
<dc:contributor opf:role="bkp">calibre (6.13.0)</dc:contributor>
<dc:language>en</dc:language>
<dc:subject>Lighthouses</dc:subject><dc:publisher>Harbour Press</dc:publisher>
<meta name="calibre:series" content="Coast"/><meta name="calibre:series_index" content="2"/>
</metadata></package>`

func TestHTMLZ(t *testing.T) {
	page := `<html><head><title>index</title><link href="style.css" rel="stylesheet"/></head><body>
<nav><p>A calibre book keeps every word, even in a nav.</p></nav>
<h1 id="c1">Winter</h1><p>The lamp was lit at dusk.</p><h1 id="c2">Spring</h1><p>Gulls returned.</p></body></html>`
	data := zipOf(t, [2]string{"index.html", page}, [2]string{"style.css", "p {}"}, [2]string{"metadata.opf", calibreOPF})
	d, err := ParseHTMLZ(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	doctest.Check(t, d, doc.HTMLZ)
	if d.Title != "The Lighthouse Log" || !slices.Equal(d.Authors, []string{"Ann Keeper"}) || d.Language != "en" {
		t.Errorf("metadata %q %q %q", d.Title, d.Authors, d.Language)
	}
	if c := d.Catalog; !slices.Equal(c.Tags, []string{"Lighthouses"}) || c.Publisher != "Harbour Press" || c.Series != "Coast" || c.SeriesIndex != 2 {
		t.Errorf("catalog %+v", c)
	}
	if got := doctest.Outline(d); got != "The Lighthouse Log\nWinter\nSpring\n" {
		t.Errorf("outline %q", got)
	}
	if a := d.Chapters[1].Anchor; a != "index.html#c1" {
		t.Errorf("anchor %q", a)
	}

	// Without metadata.opf, the page speaks for itself.
	d, err = ParseHTMLZ(context.Background(), zipOf(t, [2]string{"book/page.xhtml", page}))
	if err != nil || d.Title != "index" {
		t.Errorf("without metadata: %v, title %q", err, d.Title)
	}
}

func TestHTMLZBroken(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		kind error
		says string
	}{
		{"not a zip", []byte("<html><body>plain</body></html>"), ErrNotHTML, "not a zip archive"},
		{"no page", zipOf(t, [2]string{"metadata.opf", calibreOPF}, [2]string{"cover.jpg", "\xff\xd8"}), ErrNotHTML, "holds no .html page"},
		{"binary page", zipOf(t, [2]string{"index.html", "\x00\x01\x02"}), ErrNotHTML, "binary data"},
		{"bomb", zipOf(t, [2]string{"index.html", "<p>" + strings.Repeat(" ", 3<<20) + "</p>"}), ErrTooLarge, "decompresses to more than 1 MB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseHTMLZ(context.Background(), tc.data, safezip.Limits{MaxEntries: 10, MaxEntry: 1 << 20, MaxTotal: 4 << 20})
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("err = %v, want %v saying %q", err, tc.kind, tc.says)
			}
		})
	}
}

// TestGolden compares the parse of each page in testdata/golden with its
// dump; run with -update to rewrite them.
func TestGolden(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.html"))
	if len(pages) == 0 {
		t.Fatal("no golden pages")
	}
	for _, p := range pages {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data := readFile(t, p)
			d := mustParse(t, data)
			doctest.Golden(t, strings.TrimSuffix(p, ".html")+".txt", doctest.Dump(d), *update)
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
