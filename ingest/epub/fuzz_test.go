package epub

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
)

// seedBooks are small EPUBs that reach every part of the parser. They are
// stored without checksums, so that the fuzzer's changes to their bytes get
// past archive/zip and into the XML and XHTML readers.
func seedBooks(tb testing.TB) [][]byte {
	books := []testBook{
		{
			version:  "2.0",
			metadata: `<dc:title>T</dc:title><dc:creator opf:role="aut">A</dc:creator><dc:language>en</dc:language>`,
			docs: []testDoc{
				{href: "a.xhtml", body: `<h2 id="c1">One</h2><p>x<br/>y</p><h3 id="s">S</h3><ul><li>i</li></ul>`},
				{href: "b%20c.xhtml", file: "b c.xhtml", body: `<table><tr><td>a</td><td>b</td></tr></table><pre> p </pre>`},
			},
			ncx: `<navPoint><navLabel><text>One</text></navLabel><content src="a.xhtml#c1"/>
<navPoint><navLabel><text>S</text></navLabel><content src="a.xhtml#s"/></navPoint></navPoint>
<navPoint><navLabel><text>B</text></navLabel><content src="b%20c.xhtml"/></navPoint>`,
		},
		{
			metadata: `<dc:title id="t">M</dc:title><meta refines="#t" property="title-type">main</meta><dc:creator id="c">C</dc:creator><meta refines="#c" property="role">aut</meta>`,
			docs: []testDoc{
				{href: "x.xhtml", body: `<a id="p"/><h1>P</h1><blockquote><p>q</p></blockquote><p><math><msup><mi>x</mi><mn>2</mn></msup></math></p>`},
				{href: "y.xhtml", body: `<section><h2 id="y1">Y</h2><p>y</p></section>`, linear: "no"},
			},
			nav:        `<nav epub:type="toc"><ol><li><a href="x.xhtml#p">P</a><ol><li><a href="y.xhtml#y1">Y</a></li></ol></li><li><span>H</span><ol><li><a href="y.xhtml">Y2</a></li></ol></li></ol></nav>`,
			navInSpine: true,
		},
		{docs: []testDoc{{href: "only.xhtml", body: `<h1>Only</h1><p>text</p><h2>Sub</h2><p>more</p>`}}},
	}
	var out [][]byte
	for _, b := range books {
		b.noCRC = true
		out = append(out, b.bytes(tb))
	}
	return out
}

// FuzzParse checks that no archive makes Parse panic or hang, and that what
// it returns always keeps the invariants of a document. Inputs that once
// found a bug live in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, b := range seedBooks(f) {
		f.Add(b)
	}
	dirs, _ := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			f.Add(zipDir(f, dir))
		}
	}
	lim := limits{maxEntries: 200, maxEntry: 1 << 20, maxTotal: 4 << 20, maxTOCEntries: 1000}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parse(context.Background(), data, lim)
		if err != nil {
			if d != nil {
				t.Fatal("a document and an error")
			}
			if !utf8.ValidString(err.Error()) {
				t.Errorf("error not UTF-8: %q", err)
			}
			return
		}
		checkInvariants(t, d)
	})
}

// FuzzXHTML feeds one document to the XHTML converter, the navigation
// parser and the NCX parser, which together read everything a book's
// author wrote.
func FuzzXHTML(f *testing.F) {
	for _, s := range []string{
		page("T", `<h1 id="a">A</h1><p>x&amp;y<br/>z</p><ul><li>1<ol><li>2</li></ol></li></ul>`),
		page("T", `<table><tr><td>a<table><tr><td>b</td></tr></table></td></tr></table><pre>
 x</pre><blockquote><p>q</p></blockquote>`),
		page("T", `<a id="t"/><h2>H<a id="u"/></h2><p>m<math><mfrac><mi>a</mi><mi>b</mi></mfrac></math></p>`),
		page("N", `<nav epub:type="toc"><ol><li><a href="a.xhtml#t">A</a><ol><li><span>S</span></li></ol></li></ol></nav>`),
		`<?xml version="1.0" encoding="ISO-8859-1"?><html><head><title/><script/></head><body><p>caf` + "\xe9" + `</p></body></html>`,
		`<ncx><navMap><navPoint><navLabel><text>A</text></navLabel><content src="a.xhtml#t"/></navPoint></navMap></ncx>`,
		"<p>a<p>b<li>c<td>d</td></span><![CDATA[e]]><plaintext>f",
		`<?xml version="1.0"?><!DOCTYPE html [ <!ENTITY e "x>]"> ]><html><body><p>t</p></body></html>`,
		"\xff\xfe<\x00p\x00>\x00x\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		targets := map[string]bool{"t": true, "u": true, "a": true}
		r, err := xhtml.Convert(ctx, data, xhtml.Options{Path: "x.xhtml", Targets: targets})
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(r.Title) {
			t.Errorf("title not UTF-8: %q", r.Title)
		}
		for _, p := range r.Pieces {
			switch p.Kind {
			case xhtml.Mark:
				if !targets[p.ID] {
					t.Errorf("mark for %q, not a target", p.ID)
				}
			case xhtml.Block, xhtml.Heading:
				if strings.TrimSpace(p.Text) == "" {
					t.Errorf("empty piece %+v", p)
				}
				if !utf8.ValidString(p.Text) || strings.ContainsRune(p.Text, 0) {
					t.Errorf("invalid text %q", p.Text)
				}
				if p.Anchor != "x.xhtml" && !strings.HasPrefix(p.Anchor, "x.xhtml#") {
					t.Errorf("anchor %q", p.Anchor)
				}
				if p.Kind == xhtml.Heading && (p.Level < 1 || p.Level > 6) {
					t.Errorf("heading level %d", p.Level)
				}
			}
		}
		checkTOC(t, parseNav(ctx, data, 500), 0)
		checkTOC(t, parseNCX(data, 500), 0)
	})
}

func checkTOC(t *testing.T, es []tocEntry, depth int) {
	t.Helper()
	if depth > maxTOCDepth {
		t.Fatalf("TOC deeper than %d", maxTOCDepth)
	}
	for _, e := range es {
		if !utf8.ValidString(e.title) || !utf8.ValidString(e.href) {
			t.Errorf("entry not UTF-8: %q -> %q", e.title, e.href)
		}
		checkTOC(t, e.kids, depth+1)
	}
}

// TestSeedBooks makes sure the fuzz seeds are whole books, so that the
// fuzzer starts from inputs that reach the end of the parser.
func TestSeedBooks(t *testing.T) {
	for i, b := range seedBooks(t) {
		d := mustParse(t, b)
		if len(d.Chapters) == 0 {
			t.Errorf("seed %d has no chapters", i)
		}
	}
}
