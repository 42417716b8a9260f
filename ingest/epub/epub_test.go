package epub

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

func TestEPUB2WithNCX(t *testing.T) {
	data := testBook{
		version: "2.0",
		metadata: `<dc:title>Two Cities</dc:title>
    <dc:creator opf:role="aut" opf:file-as="Dickens, Charles">Charles Dickens</dc:creator>
    <dc:language>en</dc:language>`,
		docs: []testDoc{
			{href: "ch1.xhtml", body: `<h2 id="c1">Chapter 1</h2><p>It was the best of times.</p>
<h3 id="c1a">The Period</h3><p>It was the worst of times.</p>`},
			{href: "ch2.xhtml", body: `<h2>Chapter 2</h2><p>The Mail.</p>`},
		},
		ncx: `
  <navPoint id="n1" playOrder="1"><navLabel><text>Chapter 1</text></navLabel><content src="ch1.xhtml#c1"/>
    <navPoint id="n2" playOrder="2"><navLabel><text>The Period</text></navLabel><content src="ch1.xhtml#c1a"/></navPoint>
  </navPoint>
  <navPoint id="n3" playOrder="3"><navLabel><text>  Chapter
     2 </text></navLabel><content src="ch2.xhtml"/></navPoint>`,
	}.bytes(t)
	d := mustParse(t, data)
	if d.Title != "Two Cities" || !slices.Equal(d.Authors, []string{"Charles Dickens"}) || d.Language != "en" {
		t.Errorf("metadata = %q %q %q", d.Title, d.Authors, d.Language)
	}
	want := `Chapter 1 OEBPS/ch1.xhtml#c1
  "" OEBPS/ch1.xhtml#c1 x1
  The Period OEBPS/ch1.xhtml#c1a x1
Chapter 2 OEBPS/ch2.xhtml
  "" OEBPS/ch2.xhtml x1
`
	if got := outline(d); got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
	b := d.Chapters[0].Sections[1].Blocks[0]
	if b.Text != "It was the worst of times." || b.Anchor != "OEBPS/ch1.xhtml#c1a" {
		t.Errorf("block = %+v", b)
	}
}

func TestEPUB3Nav(t *testing.T) {
	data := testBook{
		docs: []testDoc{
			{href: "text/one.xhtml", body: `<section><h1>One</h1><p>First.</p></section>`},
			{href: "text/two.xhtml", body: `<h1 id="t">Two</h1><p>Second.</p><h2 id="t1">Two A</h2><p>More.</p>`},
			{href: "text/three.xhtml", body: `<p>Third.</p>`},
		},
		// The TOC nav is not the first nav, sits in a section, labels
		// carry markup, and one entry is a heading without a link.
		nav: `<nav epub:type="landmarks"><ol><li><a href="text/two.xhtml">Start</a></li></ol></nav>
<section><nav epub:type="toc" id="contents"><h2>Contents</h2>
<ol>
  <li><a href="text/one.xhtml"><span>Chapter</span> <em>One</em></a></li>
  <li><a href="text/two.xhtml#t">Two</a>
    <ol><li><a href="text/two.xhtml#t1">Two <b>A</b></a></li></ol></li>
  <li><span>Three</span><ol><li><a href="text/three.xhtml">Three, really</a></li></ol></li>
</ol></nav></section>`,
		// An NCX that disagrees: the nav wins.
		ncx: `<navPoint id="x"><navLabel><text>Wrong</text></navLabel><content src="text/one.xhtml"/></navPoint>`,
	}.bytes(t)
	d := mustParse(t, data)
	want := `Chapter One OEBPS/text/one.xhtml
  "" OEBPS/text/one.xhtml x2
Two OEBPS/text/two.xhtml#t
  "" OEBPS/text/two.xhtml#t x1
  Two A OEBPS/text/two.xhtml#t1 x1
Three OEBPS/text/three.xhtml
  Three, really OEBPS/text/three.xhtml x1
`
	if got := outline(d); got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
	// The heading "One" is not the entry's label "Chapter One", so it
	// stays as text; "Two" is, so it goes.
	if got := d.Chapters[0].Sections[0].Blocks[0].Text; got != "One" {
		t.Errorf("first block = %q", got)
	}
	if got := d.Chapters[1].Sections[0].Blocks[0].Text; got != "Second." {
		t.Errorf("first block of Two = %q", got)
	}
}

func TestAnchorsCutDocuments(t *testing.T) {
	// Three entries share one document; ids sit on headings, on an XHTML
	// self-closing anchor (which the HTML5 parser would leave open), inside
	// a heading after other markup, and in the middle of a paragraph.
	body := `<p>Prologue text.</p>
<a id="loomings"/>
<h2>Loomings</h2>
<p>Call me Ishmael.</p>
<h2><span class="x">Chapter 2.</span> <a id="carpet"/>The Carpet-Bag</h2>
<p>I stuffed a shirt or two. Then <a id="mid"></a>a second thought.</p>`
	data := testBook{
		docs: []testDoc{{href: "moby.xhtml", body: body}},
		nav: `<nav epub:type="toc"><ol>
<li><a href="moby.xhtml#loomings">Loomings</a></li>
<li><a href="moby.xhtml#carpet">The Carpet-Bag</a></li>
<li><a href="moby.xhtml#mid">Second thought</a></li>
</ol></nav>`,
	}.bytes(t)
	d := mustParse(t, data)
	if got := chapterTitles(d); !slices.Equal(got, []string{"Doc 1", "Loomings", "The Carpet-Bag", "Second thought"}) {
		t.Fatalf("chapters = %q\n%s", got, outline(d))
	}
	texts := func(ch doc.Chapter) []string {
		var out []string
		for _, s := range ch.Sections {
			for _, b := range s.Blocks {
				out = append(out, b.Text)
			}
		}
		return out
	}
	wants := [][]string{
		{"Prologue text."},
		{"Call me Ishmael."},
		{"Chapter 2. The Carpet-Bag", "I stuffed a shirt or two. Then"},
		{"a second thought."},
	}
	for i, w := range wants {
		if got := texts(d.Chapters[i]); !slices.Equal(got, w) {
			t.Errorf("chapter %d text = %q, want %q", i, got, w)
		}
	}
	if a := d.Chapters[1].Sections[0].Blocks[0].Anchor; a != "OEBPS/moby.xhtml#loomings" {
		t.Errorf("Ishmael anchor = %q", a)
	}
	if a := d.Chapters[3].Anchor; a != "OEBPS/moby.xhtml#mid" {
		t.Errorf("chapter anchor = %q", a)
	}
}

// Without a TOC each spine document is a chapter named by its first
// heading, divided at its shallowest later headings. An element without an
// id is cited by the nearest id before it.
func TestSpineWithoutTOC(t *testing.T) {
	data := testBook{
		docs: []testDoc{
			{href: "a.xhtml", body: `<h1>Alpha</h1><p>a</p><h2 id="s1">One</h2><p>a1</p><h3>Deeper</h3><p>a2</p><h2>Two</h2><p>a3</p>`},
			{href: "b.xhtml", body: `<p>No heading here.</p>`},
			{href: "c.xhtml", body: `<div><h3>Gamma</h3></div><p>c</p>`},
		},
	}.bytes(t)
	d := mustParse(t, data)
	want := `Alpha OEBPS/a.xhtml
  "" OEBPS/a.xhtml x1
  One OEBPS/a.xhtml#s1 x3
  Two OEBPS/a.xhtml#s1 x1
Doc 2 OEBPS/b.xhtml
  "" OEBPS/b.xhtml x1
Gamma OEBPS/c.xhtml
  "" OEBPS/c.xhtml x1
`
	if got := outline(d); got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
}

func TestUncoveredDocumentsAreKept(t *testing.T) {
	data := testBook{
		docs: []testDoc{
			{href: "cover.xhtml", body: `<div><img src="c.jpg" alt="Cover of the book"/></div>`},
			{href: "title.xhtml", body: `<h1>The Title</h1><p>by Someone</p>`},
			{href: "ch1.xhtml", body: `<h1>One</h1><p>one</p>`},
			{href: "plate.xhtml", body: `<p><img src="p.jpg" alt="A whale"/></p>`},
			{href: "ch2.xhtml", body: `<h1>Two</h1><p>two</p>`},
			{href: "colophon.xhtml", body: `<h2>Colophon</h2><p>Set in Garamond.</p>`},
		},
		nav: `<nav epub:type="toc"><ol><li><a href="ch1.xhtml">One</a></li><li><a href="ch2.xhtml">Two</a></li></ol></nav>`,
	}.bytes(t)
	d := mustParse(t, data)
	want := `Doc 1 OEBPS/cover.xhtml
  "" OEBPS/cover.xhtml x1
The Title OEBPS/title.xhtml
  "" OEBPS/title.xhtml x1
One OEBPS/ch1.xhtml
  "" OEBPS/ch1.xhtml x2
Two OEBPS/ch2.xhtml
  "" OEBPS/ch2.xhtml x1
Colophon OEBPS/colophon.xhtml
  "" OEBPS/colophon.xhtml x1
`
	if got := outline(d); got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(d.Text(), "A whale") {
		t.Error("the plate between chapters was lost")
	}
}

func TestPartsGiveWayToChapters(t *testing.T) {
	data := testBook{
		docs: []testDoc{
			{href: "front.xhtml", body: `<p>Preface.</p>`},
			{href: "part1.xhtml", body: `<h1>Part I</h1><p>About part one.</p>`},
			{href: "c1.xhtml", body: `<h2>Ch 1</h2><p>x</p><h3 id="s">S</h3><p>y</p>`},
			{href: "c2.xhtml", body: `<h2>Ch 2</h2><p>z</p>`},
		},
		nav: `<nav epub:type="toc"><ol>
<li><a href="front.xhtml">Preface</a></li>
<li><a href="part1.xhtml">Part I</a><ol>
  <li><a href="c1.xhtml">Ch 1</a><ol><li><a href="c1.xhtml#s">S</a></li></ol></li>
  <li><a href="c2.xhtml">Ch 2</a></li></ol></li>
</ol></nav>`,
	}.bytes(t)
	d := mustParse(t, data)
	want := `Preface OEBPS/front.xhtml
  "" OEBPS/front.xhtml x1
Part I OEBPS/part1.xhtml
  "" OEBPS/part1.xhtml x1
Ch 1 OEBPS/c1.xhtml
  "" OEBPS/c1.xhtml x1
  S OEBPS/c1.xhtml#s x1
Ch 2 OEBPS/c2.xhtml
  "" OEBPS/c2.xhtml x1
`
	if got := outline(d); got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
}

func TestPercentEncodedHrefs(t *testing.T) {
	data := testBook{
		docs: []testDoc{
			{href: "Chapter%201.xhtml", file: "Chapter 1.xhtml", body: `<h1 id="é">Un</h1><p>Premier.</p>`},
			{href: "Chapter%202.xhtml", file: "Chapter%202.xhtml", body: `<p>Stored encoded.</p>`},
			{href: "chapter3.XHTML", file: "Chapter3.xhtml", body: `<p>Case differs.</p>`},
		},
		nav: `<nav epub:type="toc"><ol>
<li><a href="Chapter%201.xhtml#%C3%A9">Un</a></li>
<li><a href="Chapter%202.xhtml">Deux</a></li>
<li><a href="chapter3.XHTML">Trois</a></li></ol></nav>`,
	}.bytes(t)
	d := mustParse(t, data)
	want := `Un OEBPS/Chapter 1.xhtml#é
  "" OEBPS/Chapter 1.xhtml#é x1
Deux OEBPS/Chapter%202.xhtml
  "" OEBPS/Chapter%202.xhtml x1
Trois OEBPS/Chapter3.xhtml
  "" OEBPS/Chapter3.xhtml x1
`
	if got := outline(d); got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
}

func TestMetadata(t *testing.T) {
	tests := []struct {
		name     string
		version  string
		meta     string
		title    string
		authors  []string
		language string
	}{
		{
			name: "EPUB 3 main title refined, subtitle first",
			meta: `<dc:title id="sub">A Subtitle</dc:title>
<dc:title id="main">The Main Title</dc:title>
<meta refines="#main" property="title-type">main</meta>
<meta refines="#sub" property="title-type">subtitle</meta>`,
			title: "The Main Title",
		},
		{
			name:  "without refinements the first title",
			meta:  `<dc:title>First</dc:title><dc:title>Second</dc:title>`,
			title: "First",
		},
		{
			name: "creators in order, authors first, producers dropped",
			meta: `<dc:title>T</dc:title>
<dc:creator id="c1">Ann Illustrator</dc:creator><meta refines="#c1" property="role" scheme="marc:relators">ill</meta>
<dc:creator id="c2">Bea Author</dc:creator><meta refines="#c2" property="role" scheme="marc:relators">aut</meta>
<dc:creator id="c3">Cy Editor</dc:creator><meta refines="#c3" property="role">edt</meta>
<dc:creator id="c4">Dee Author</dc:creator><meta refines="#c4" property="role">ill</meta><meta refines="#c4" property="role">AUT</meta>
<dc:creator id="c5">Ebook Factory</dc:creator><meta refines="#c5" property="role">bkp</meta>
<dc:creator>Bea Author</dc:creator>
<dc:contributor>Not A Creator</dc:contributor>`,
			title:   "T",
			authors: []string{"Bea Author", "Dee Author", "Cy Editor"},
		},
		{
			name:    "two creators without roles both kept",
			meta:    `<dc:title>T</dc:title><dc:creator>One</dc:creator><dc:creator>Two</dc:creator>`,
			title:   "T",
			authors: []string{"One", "Two"},
		},
		{
			name:    "EPUB 2 opf:role",
			version: "2.0",
			meta: `<dc:title>T</dc:title><dc:creator opf:role="trl">Translator</dc:creator>
<dc:creator opf:role="aut">Writer</dc:creator>`,
			title:   "T",
			authors: []string{"Writer", "Translator"},
		},
		{
			name:     "white space collapsed, entities decoded, language canonical",
			meta:     "<dc:title>\n   Caf&eacute; &amp;\n  Co.  </dc:title><dc:language> EN-us </dc:language>",
			title:    "Café & Co.",
			language: "en-US",
		},
		{
			name:     "not a language tag",
			meta:     `<dc:title>T</dc:title><dc:language>English, mostly</dc:language>`,
			title:    "T",
			language: "",
		},
		{
			name:     "Hebrew",
			meta:     `<dc:title>מפליגים בישראל</dc:title><dc:creator>אורי עידן</dc:creator><dc:language>he</dc:language>`,
			title:    "מפליגים בישראל",
			authors:  []string{"אורי עידן"},
			language: "he",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := testBook{version: tc.version, metadata: tc.meta, docs: []testDoc{{href: "a.xhtml", body: "<p>x</p>"}}}.bytes(t)
			d := mustParse(t, data)
			if d.Title != tc.title {
				t.Errorf("title = %q, want %q", d.Title, tc.title)
			}
			if !slices.Equal(d.Authors, tc.authors) {
				t.Errorf("authors = %q, want %q", d.Authors, tc.authors)
			}
			if d.Language != tc.language {
				t.Errorf("language = %q, want %q", d.Language, tc.language)
			}
		})
	}
}

func TestIdentifierAndDate(t *testing.T) {
	data := testBook{
		version: "2.0",
		metadata: `<dc:title>T</dc:title><dc:identifier opf:scheme="ISBN">978-0-00-000000-0</dc:identifier>
<dc:date opf:event="conversion">2020-01-01</dc:date><dc:date opf:event="publication">1851</dc:date>`,
		docs: []testDoc{{href: "a.xhtml", body: "<p>x</p>"}},
	}.bytes(t)
	b, err := readBook(context.Background(), data, defaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if m := b.pkg.meta; m.Identifier != "urn:uuid:test" || m.Date != "1851" {
		t.Errorf("identifier %q, date %q", m.Identifier, m.Date)
	}
}

func TestSpineOddities(t *testing.T) {
	data := testBook{
		docs: []testDoc{
			{href: "a.xhtml", body: "<p>in order</p>"},
			{href: "notes.xhtml", body: "<p>non-linear notes</p>"},
		},
		// A dangling idref, a second mention of a document, an image in
		// the spine, a manifest item whose file is missing, and ones that
		// leave the book: all skipped, none fatal. Non-linear documents
		// stay in spine order.
		manifest: `    <item id="img" href="p.png" media-type="image/png"/>
    <item id="gone" href="gone.xhtml" media-type="application/xhtml+xml"/>
    <item id="out" href="../../etc/passwd" media-type="application/xhtml+xml"/>
    <item id="web" href="http://example.com/x.xhtml" media-type="application/xhtml+xml"/>
`,
		spine: `<itemref idref="nothing"/><itemref idref="d1"/><itemref idref="img"/><itemref idref="gone"/>
<itemref idref="out"/><itemref idref="web"/><itemref idref="d1"/><itemref idref="d2" linear="no"/>`,
		extra: []entry{{name: "OEBPS/p.png", body: "\x89PNG\r\n\x1a\n\x00\x00"}},
	}.bytes(t)
	d := mustParse(t, data)
	if got := d.Text(); got != "in order\n\nnon-linear notes" {
		t.Errorf("text = %q", got)
	}
}

func TestContextCancelled(t *testing.T) {
	data := testBook{docs: []testDoc{{href: "a.xhtml", body: strings.Repeat("<p>word</p>", 50000)}}}.bytes(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, data); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	time.Sleep(time.Millisecond)
	if _, err := Parse(ctx, data); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want context.DeadlineExceeded", err)
	}
}

func TestEncodings(t *testing.T) {
	latin1 := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>t</title></head><body><p>Caf\xe9 cr\xe8me</p></body></html>"
	utf16 := utf16LE("\ufeff<?xml version=\"1.0\" encoding=\"UTF-16\"?><html><body><p>Ελληνικά κείμενα</p></body></html>")
	data := testBook{docs: []testDoc{{href: "a.xhtml", raw: latin1}, {href: "b.xhtml", raw: utf16}}}.bytes(t)
	d := mustParse(t, data)
	if got := d.Text(); got != "Café crème\n\nΕλληνικά κείμενα" {
		t.Errorf("text = %q", got)
	}
}

func utf16LE(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			hi, lo := 0xd800+(r>>10), 0xdc00+(r&0x3ff)
			b.WriteByte(byte(hi))
			b.WriteByte(byte(hi >> 8))
			b.WriteByte(byte(lo))
			b.WriteByte(byte(lo >> 8))
			continue
		}
		b.WriteByte(byte(r))
		b.WriteByte(byte(r >> 8))
	}
	return b.String()
}

func TestEmptyBook(t *testing.T) {
	data := testBook{docs: []testDoc{{href: "a.xhtml", body: `<div><img src="x.jpg"/></div>`}}}.bytes(t)
	d := mustParse(t, data)
	if len(d.Chapters) != 0 || !d.Empty() {
		t.Errorf("an image-only book gave %d chapters", len(d.Chapters))
	}
}
