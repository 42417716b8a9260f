package fb2

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"flag"
	"maps"
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

// book returns a FictionBook with a title-info holding info and one body.
func book(info, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0" xmlns:l="http://www.w3.org/1999/xlink">
<description><title-info>` + info + `</title-info></description>
<body>` + body + `</body>
</FictionBook>`
}

func mustParse(t *testing.T, data []byte) *doc.Document {
	t.Helper()
	d, err := Parse(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	doctest.Check(t, d, doc.FB2)
	return d
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
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

func TestGolden(t *testing.T) {
	books, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.fb2"))
	if len(books) == 0 {
		t.Fatal("no golden books")
	}
	for _, p := range books {
		t.Run(filepath.Base(p), func(t *testing.T) {
			d := mustParse(t, readFile(t, p))
			doctest.Golden(t, strings.TrimSuffix(p, ".fb2")+".txt", doctest.Dump(d), *update)
		})
	}
}

func TestMetadata(t *testing.T) {
	d := mustParse(t, readFile(t, filepath.Join("testdata", "golden", "lighthouse.fb2")))
	if d.Title != "The Lighthouse Log" || !slices.Equal(d.Authors, []string{"Ann M. Keeper", "gull"}) || d.Language != "en" {
		t.Errorf("metadata %q %q %q", d.Title, d.Authors, d.Language)
	}
	if strings.Contains(d.Text(), "/9j/") || strings.Contains(d.Text(), "maker") {
		t.Error("a picture or the document-info is in the text")
	}
}

func TestSections(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{
			name: "sections are chapters, their sections sections, deeper ones text",
			body: `<section><title><p>One</p></title><p>a</p><section><title><p>One.1</p></title><p>b</p>
<section><title><p>Deep</p></title><p>c</p></section></section></section>
<section><title><p>Two</p></title><p>d</p></section>`,
			want: "One\n  One.1\nTwo\n",
		},
		{
			name: "a book's title over its sections gives way",
			body: `<title><p>Book</p></title><section><title><p>I</p></title><p>a</p></section><section><title><p>II</p></title><p>b</p></section>`,
			want: "Book\nI\nII\n",
		},
		{
			name: "sections without titles take a short first line",
			body: `<section><p><strong>Chapter 7</strong></p><p>Text.</p></section><section><p>` + strings.Repeat("long ", 40) + `</p></section>`,
			want: "Chapter 7\n\n",
		},
		{
			name: "bold chapter headings in an untitled section are chapters",
			body: `<section><p><strong>Chapter 7</strong></p><p>a</p><p><strong>Chapter 8</strong></p><p>b</p>
<p><strong>XIV. The Trial</strong></p><p>c</p></section><section><p><strong>Chapter 15</strong></p><p>d</p></section>`,
			want: "Chapter 7\nChapter 8\nXIV. The Trial\nChapter 15\n",
		},
		{
			name: "but not bold lines that name no division, nor a bold start of a line",
			body: `<section><p><strong>Chapter 7</strong></p><p>a</p><p><strong>Stop!</strong></p>
<p><strong>Chapter 8</strong> began at dawn.</p><p>b</p></section>`,
			want: "Chapter 7\n",
		},
		{
			name: "nor in a section with a title",
			body: `<section><title><p>Part One</p></title><p>a</p><p><strong>Chapter 8</strong></p><p>b</p></section>`,
			want: "Part One\n",
		},
		{
			name: "text before the first section is a division of its own",
			body: `<p>Front matter.</p><section><title><p>I</p></title><p>a</p></section>`,
			want: "Front matter.\nI\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, []byte(book(`<book-title>T</book-title>`, tc.body)))
			if got := doctest.Outline(d); got != tc.want {
				t.Errorf("outline\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestEncodings reads a Windows-1251 book, as many Russian libraries hold
// them, and right-to-left text.
func TestEncodings(t *testing.T) {
	src := strings.Replace(book(`<book-title>Война и мир</book-title><lang>ru</lang>`, `<section><p>Ну, что, князь.</p></section>`),
		`encoding="UTF-8"`, `encoding="windows-1251"`, 1)
	win, err := charmap.Windows1251.NewEncoder().String(src)
	if err != nil {
		t.Fatal(err)
	}
	d := mustParse(t, []byte(win))
	if d.Title != "Война и мир" || d.Text() != "Ну, что, князь." || d.Language != "ru" {
		t.Errorf("got %q %q %q", d.Title, d.Text(), d.Language)
	}
	d = mustParse(t, []byte(book(`<lang>he</lang>`, `<section><title><p>פרק א</p></title><p>יצאנו עם שחר.</p></section>`)))
	if d.Chapters[0].Title != "פרק א" || d.Text() != "יצאנו עם שחר." {
		t.Errorf("got %q %q", d.Chapters[0].Title, d.Text())
	}
}

func TestZipped(t *testing.T) {
	inner := book(`<book-title>Zipped</book-title>`, `<section><p>Inside the zip.</p></section>`)
	for _, name := range []string{"Book - Author.fb2", "book.FB2"} {
		d := mustParse(t, zipOf(t, [2]string{"cover.jpg", "\xff\xd8"}, [2]string{name, inner}))
		if d.Title != "Zipped" || d.Text() != "Inside the zip." {
			t.Errorf("%s: %q %q", name, d.Title, d.Text())
		}
	}
	// A zip of one file with another name is read as the book it holds.
	if d := mustParse(t, zipOf(t, [2]string{"book.xml", inner})); d.Title != "Zipped" {
		t.Errorf("lone entry: %q", d.Title)
	}
}

func TestBroken(t *testing.T) {
	deep := book("", strings.Repeat("<section>", 2000)+"x"+strings.Repeat("</section>", 2000))
	for _, tc := range []struct {
		name string
		data []byte
		kind error
		says string
	}{
		{"plain text", []byte("Chapter One\n\nThe ferry leaves at dawn."), ErrNotFB2, "no <FictionBook> element"},
		{"another XML", []byte(`<?xml version="1.0"?><html><body><p>x</p></body></html>`), ErrNotFB2, "the root element is <html>"},
		{"binary", []byte("\x00\x01\x02\x03<<>>"), ErrNotFB2, "not XML"},
		{"cut off", []byte(book("<book-title>T</book-title>", "<section><p>The end is miss")[:200]), ErrDamaged, "breaks off or is broken at line"},
		{"nested too deep", []byte(deep), ErrDamaged, "nested too deep"},
		{"zip without a book", zipOf(t, [2]string{"a.jpg", "x"}, [2]string{"b.jpg", "y"}), ErrNotFB2, "holds no .fb2 file"},
		{"zip bomb", zipOf(t, [2]string{"b.fb2", book("", "<p>"+strings.Repeat(" ", 2<<20)+"</p>")}), ErrTooLarge, "decompresses to more than 1 MB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(context.Background(), tc.data, safezip.Limits{MaxEntries: 10, MaxEntry: 1 << 20, MaxTotal: 2 << 20})
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("err = %v, want %v saying %q", err, tc.kind, tc.says)
			}
		})
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, []byte(book("", "<p>x</p>"))); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

// TestCatalog reads the description's catalogue: genres and keywords as
// tags, the title-info's sequence as the series (else the publish-info's),
// the publish-info's year (else the date the work was written, by its
// value), publisher and ISBN. The src-title-info of a translation's
// original says nothing of this book.
func TestCatalog(t *testing.T) {
	const body = `<section><p>The lamp was lit at dusk.</p></section>`
	pub := func(info, publish string) []byte {
		return []byte(strings.Replace(book(info, body), "</title-info>", "</title-info>"+publish, 1))
	}
	for _, tc := range []struct {
		name string
		data []byte
		want doc.Catalog
	}{
		{"title-info and publish-info", pub(`<genre>sf_fantasy</genre><genre match="100">adventure</genre><book-title>Log</book-title>
<keywords>lamps, keepers; Sf_Fantasy</keywords><date value="1850-03-01">spring 1850</date><sequence name=" Coast " number="3"/>`,
			`<publish-info><publisher>Harbour Press</publisher><year>1901</year><isbn>978-0-00-000000-1</isbn><sequence name="Classics" number="40"/></publish-info>`),
			doc.Catalog{Tags: []string{"sf_fantasy", "adventure", "lamps", "keepers"}, Publisher: "Harbour Press", Published: "1901",
				Series: "Coast", SeriesIndex: 3, Identifiers: map[string]string{"isbn": "978-0-00-000000-1"}}},
		{"the written date and the publisher's series stand in", pub(`<book-title>Log</book-title><date>1850</date>`,
			`<publish-info><sequence name="Classics" number="x"/></publish-info>`),
			doc.Catalog{Published: "1850", Series: "Classics"}},
		{"a translation's original", []byte(strings.Replace(book(`<book-title>Log</book-title>`, body), "</title-info>",
			`</title-info><src-title-info><genre>prose</genre><sequence name="Orig"/><date>1700</date></src-title-info>`, 1)),
			doc.Catalog{}},
		{"none", []byte(book(`<book-title>Log</book-title>`, body)), doc.Catalog{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mustParse(t, tc.data).Catalog
			if got.Publisher != tc.want.Publisher || !slices.Equal(got.Tags, tc.want.Tags) || got.Published != tc.want.Published ||
				got.Series != tc.want.Series || got.SeriesIndex != tc.want.SeriesIndex || !maps.Equal(got.Identifiers, tc.want.Identifiers) {
				t.Errorf("catalog %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
