package mobi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// prose repeats a sentence into a paragraph long enough to span records.
func prose(word string, n int) string {
	return strings.Repeat("The "+word+" walked along the quay while the ferry waited. ", n)
}

// mobi6Book is a MOBI6 book with an NCX of two chapters, the second with a
// section, and a few kinds of markup.
func mobi6Book() testBook {
	var sb strings.Builder
	sb.WriteString(`<html><head><guide><reference type="toc" filepos=0000000000 /></guide></head><body>`)
	sb.WriteString(`<p>Title page — café</p><mbp:pagebreak/>`)
	ch1 := sb.Len()
	sb.WriteString(`<p><font size="4"><b>Chapter One</b></font></p><p>` + prose("harbourmaster", 120) + `</p>`)
	sb.WriteString(`<blockquote>A quoted line.</blockquote><ul><li>first item</li><li>second item</li></ul>`)
	sb.WriteString(`<table><tr><td>left</td><td>right</td></tr></table><mbp:pagebreak/>`)
	ch2 := sb.Len()
	sb.WriteString(`<h2>Chapter Two</h2><p>` + prose("lighthouse keeper", 40) + `</p>`)
	sec := sb.Len()
	sb.WriteString(`<h3>A Storm</h3><p>Waves broke &amp; the lamp<br/>went dark.</p></body></html>`)
	return testBook{
		title: "The Harbour", author: "Ann Author & Bo Writer", language: "en-gb",
		html: sb.String(),
		toc: []testTOC{
			{title: "Chapter One", pos: ch1},
			{title: "Chapter Two", pos: ch2},
			{title: "A Storm", level: 1, pos: sec},
		},
	}
}

// kf8Book is a KF8 book of two files, each a skeleton with two fragments.
func kf8Book() testBook {
	head := `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>skip me</title></head><body aid="0">`
	tail := `</body></html>`
	return testBook{
		title: "Kindle Harbour", author: "Ann Author", language: "en",
		files: []testFile{
			{head: head, tail: tail, frags: []string{
				`<h1 aid="1">Part One</h1>`,
				`<p aid="2">` + prose("pilot", 150) + `</p>`,
			}},
			{head: head, tail: tail, frags: []string{
				`<h1 aid="3">Part Two</h1><p>Der Hafen liegt still, naïve Möwen.</p>`,
				`<h2 aid="4">Night</h2><p aid="5">` + prose("night watchman", 10) + `</p>`,
			}},
		},
		toc: []testTOC{
			{title: "Part One", fid: 0},
			{title: "Part Two", fid: 2},
			{title: "Night", level: 1, fid: 3},
		},
	}
}

func mustParse(t *testing.T, data []byte) *doc.Document {
	t.Helper()
	d, err := Parse(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, d)
	return d
}

// checkTree checks the invariants of a parsed document.
func checkTree(t *testing.T, d *doc.Document) {
	t.Helper()
	for _, c := range d.Chapters {
		if len(c.Sections) == 0 {
			t.Fatalf("chapter %q without sections", c.Title)
		}
		for _, s := range c.Sections {
			if len(s.Blocks) == 0 {
				t.Fatalf("section %q of %q without blocks", s.Title, c.Title)
			}
			for _, b := range s.Blocks {
				if strings.TrimSpace(b.Text) == "" {
					t.Fatalf("empty block in %q", c.Title)
				}
			}
		}
	}
}

// shape lists chapters and their sections as "Chapter/Section".
func shape(d *doc.Document) []string {
	var out []string
	for _, c := range d.Chapters {
		for _, s := range c.Sections {
			out = append(out, c.Title+"/"+s.Title)
		}
	}
	return out
}

func TestMOBI6(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*testBook)
	}{
		{"PalmDOC", func(*testBook) {}},
		{"uncompressed", func(b *testBook) { b.compression = compressNone }},
		{"HUFF/CDIC", func(b *testBook) { b.compression = compressHuff }},
		{"no trailing entries", func(b *testBook) { b.noTrailing = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mobi6Book()
			tc.mod(&b)
			d := mustParse(t, b.bytes())
			if d.Title != "The Harbour" || !slices.Equal(d.Authors, []string{"Ann Author", "Bo Writer"}) ||
				d.Language != "en-GB" || d.SourceType != doc.MOBI {
				t.Errorf("metadata %q %q %q %q", d.Title, d.Authors, d.Language, d.SourceType)
			}
			want := []string{"The Harbour/", "Chapter One/", "Chapter Two/", "Chapter Two/A Storm"}
			if got := shape(d); !slices.Equal(got, want) {
				t.Errorf("shape %q, want %q", got, want)
			}
			text := d.Text()
			for _, s := range []string{"Title page — café", prose("harbourmaster", 120)[:200], "A quoted line.",
				"- first item", "left | right", "Waves broke & the lamp\nwent dark."} {
				if !strings.Contains(text, s) {
					t.Errorf("text lacks %q", s)
				}
			}
			if strings.Contains(text, "Chapter One") || strings.Contains(text, "<") {
				t.Errorf("heading repeated or markup left:\n%s", text)
			}
			ch1 := d.Chapters[1]
			if !strings.HasPrefix(ch1.Anchor, "filepos=") || ch1.Sections[0].Blocks[0].Anchor == "" {
				t.Errorf("anchors %q %q", ch1.Anchor, ch1.Sections[0].Blocks[0].Anchor)
			}
			kinds := map[string]doc.BlockKind{}
			for _, bl := range d.Blocks() {
				if len(bl.Text) < 40 {
					kinds[bl.Text] = bl.Kind
				}
			}
			if kinds["A quoted line."] != doc.Quote || kinds["- first item\n- second item"] != doc.List || kinds["left | right"] != doc.Table {
				t.Errorf("block kinds %v", kinds)
			}
		})
	}
}

func TestFileposAnchorsPointAtTheirText(t *testing.T) {
	b := mobi6Book()
	d := mustParse(t, b.bytes())
	for _, bl := range d.Blocks() {
		var at int
		if _, err := fmt.Sscanf(bl.Anchor, "filepos=%d", &at); err != nil {
			t.Fatalf("anchor %q", bl.Anchor)
		}
		word := strings.Fields(bl.Text)[0]
		if word == "-" {
			word = strings.Fields(bl.Text)[1]
		}
		if !strings.HasPrefix(b.html[at:], word) {
			t.Errorf("block %.30q cites filepos %d, which holds %.30q", bl.Text, at, b.html[at:])
		}
	}
}

func TestCP1252(t *testing.T) {
	b := testBook{title: "Caf\xe9", encoding: encodingCP1252,
		html: "<html><body><p>Caf\xe9 \x93quoted\x94 &eacute;t\xe9</p></body></html>"}
	d := mustParse(t, b.bytes())
	if d.Title != "Café" || d.Text() != "Café “quoted” été" {
		t.Errorf("title %q, text %q", d.Title, d.Text())
	}
}

func TestKF8(t *testing.T) {
	d := mustParse(t, kf8Book().bytes())
	if d.Title != "Kindle Harbour" || d.SourceType != doc.AZW3 || d.Language != "en" {
		t.Errorf("metadata %q %q %q", d.Title, d.SourceType, d.Language)
	}
	want := []string{"Part One/", "Part Two/", "Part Two/Night"}
	if got := shape(d); !slices.Equal(got, want) {
		t.Errorf("shape %q, want %q", got, want)
	}
	text := d.Text()
	if strings.Contains(text, "skip me") || !strings.Contains(text, "Der Hafen liegt still, naïve Möwen.") ||
		!strings.Contains(text, prose("pilot", 150)[:300]) {
		t.Errorf("text:\n%.500s", text)
	}
	if a := d.Chapters[1].Anchor; a != "kindle:pos:fid:0002:off:0000000000" {
		t.Errorf("Part Two anchor %q", a)
	}
	if a := d.Chapters[1].Sections[1].Anchor; a != "kindle:pos:fid:0003:off:0000000000" {
		t.Errorf("Night anchor %q", a)
	}
}

// TestCombined reads the KF8 part of a combined file, and the MOBI6 part
// when the KF8 part is broken.
func TestCombined(t *testing.T) {
	m, k := mobi6Book(), kf8Book()
	d := mustParse(t, combined(m, k))
	if d.SourceType != doc.MOBI || !strings.Contains(d.Text(), "naïve Möwen") || d.Title != "Kindle Harbour" {
		t.Errorf("combined file not read through its KF8 part: %q %q", d.SourceType, d.Title)
	}

	data := combined(m, k)
	// Break the KF8 skeleton index: its INDX signature.
	i := strings.Index(string(data), "SKEL0000000000")
	if i < 0 {
		t.Fatal("no skeleton index in the test book")
	}
	j := strings.LastIndex(string(data[:i]), "INDX")
	k2 := strings.LastIndex(string(data[:j]), "INDX")
	copy(data[k2:], "XXXX")
	d = mustParse(t, data)
	if !strings.Contains(d.Text(), "harbourmaster") || strings.Contains(d.Text(), "Möwen") {
		t.Errorf("broken KF8 part: MOBI6 part not read:\n%.300s", d.Text())
	}

	// A download cut short in the KF8 part, which comes last.
	data = combined(m, k)
	boundary := strings.Index(string(data), "BOUNDARY")
	d = mustParse(t, data[:boundary+3000])
	if !strings.Contains(d.Text(), "harbourmaster") {
		t.Errorf("truncated KF8 part: MOBI6 part not read:\n%.300s", d.Text())
	}
}

func TestNoTOCUsesHeadings(t *testing.T) {
	b := testBook{html: "<html><body><p>Front matter.</p><h2>One</h2><p>first</p><h3>Detail</h3><p>deep</p><h2>Two</h2><p>second</p></body></html>"}
	d := mustParse(t, b.bytes())
	want := []string{"Full Name/", "One/", "One/Detail", "Two/"}
	if got := shape(d); !slices.Equal(got, want) {
		t.Errorf("shape %q, want %q", got, want)
	}
	if d.Title != "Full Name" {
		t.Errorf("title without EXTH 503: %q", d.Title)
	}
}

func TestRefused(t *testing.T) {
	drm := mobi6Book()
	drm.encryption = 2
	badCompression := mobi6Book().bytes()
	// Record 0 starts after the header and the record list.
	r0 := int(uint32(badCompression[78])<<24 | uint32(badCompression[79])<<16 | uint32(badCompression[80])<<8 | uint32(badCompression[81]))
	badCompression[r0], badCompression[r0+1] = 0, 9
	truncated := mobi6Book().bytes()
	truncated = truncated[:100]
	for _, tc := range []struct {
		name string
		data []byte
		kind error
		want string
	}{
		{"DRM", drm.bytes(), ErrDRM, "DRM-protected: the Kindle book's text is encrypted"},
		{"empty", nil, ErrNotMOBI, "not a MOBI file: 0 bytes"},
		{"text", []byte(strings.Repeat("plain text ", 20)), ErrNotMOBI, "no BOOKMOBI signature (it looks like text)"},
		{"zip", append([]byte("PK\x03\x04"), make([]byte, 100)...), ErrNotMOBI, "it is a zip archive"},
		{"Topaz", []byte("TPZ0" + strings.Repeat("x", 100)), ErrNotMOBI, "a Topaz book"},
		{"unknown compression", badCompression, ErrDamaged, "unknown text compression 9"},
		{"truncated record list", truncated, ErrDamaged, "runs past the end of the file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(context.Background(), tc.data)
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) || d != nil {
				t.Errorf("err = %v, want %v containing %q", err, tc.kind, tc.want)
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, mobi6Book().bytes()); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

// TestEXTHCatalog reads what EXTH says beyond title and author: publisher,
// subjects, date, ISBN, a source that is an ISBN, an ASIN; calibre's own
// ids, which it writes as source and ASIN, name no book.
func TestEXTHCatalog(t *testing.T) {
	for _, tc := range []struct {
		name string
		exth []exthRecord
		want doc.Catalog
	}{
		{"kindlegen", []exthRecord{{101, "Harbour Press"}, {101, "Second Press"}, {105, "Sea stories"}, {105, "Lighthouses; sea stories"},
			{106, "2011-05-04T00:00:00+00:00"}, {104, "978-0-00-000000-1"}, {113, "B000FC1PJI"}},
			doc.Catalog{Publisher: "Harbour Press", Tags: []string{"Sea stories", "Lighthouses"}, Published: "2011-05-04",
				Identifiers: map[string]string{"isbn": "978-0-00-000000-1", "asin": "B000FC1PJI"}}},
		{"calibre", []exthRecord{{112, "calibre:3e4b48d8-ecdc-4eef-a88e-9b305b6b73f3"}, {113, "3e4b48d8-ecdc-4eef-a88e-9b305b6b73f3"},
			{504, "3e4b48d8-ecdc-4eef-a88e-9b305b6b73f3"}}, doc.Catalog{}},
		{"source", []exthRecord{{112, "urn:isbn:9780000000002"}}, doc.Catalog{Identifiers: map[string]string{"isbn": "9780000000002"}}},
		{"hostile", []exthRecord{{105, strings.Repeat("x", 5000)}, {106, "\x00\x01"}, {104, ""}}, doc.Catalog{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testBook{title: "Log", html: "<html><body><p>The lamp was lit at dusk.</p></body></html>", exth: tc.exth}
			got := mustParse(t, b.bytes()).Catalog
			if got.Publisher != tc.want.Publisher || !slices.Equal(got.Tags, tc.want.Tags) || got.Published != tc.want.Published ||
				!maps.Equal(got.Identifiers, tc.want.Identifiers) {
				t.Errorf("catalog %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
