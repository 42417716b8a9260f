package docx

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
	"github.com/grimoire-search/grimoire/ingest/internal/safezip"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// zipOf writes files into a zip archive, in order. They are stored
// without compression and with a zero checksum, which archive/zip does not
// verify, so that a fuzzer's changes to their bytes reach the XML.
func zipOf(t testing.TB, files ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.CreateRaw(&zip.FileHeader{
			Name: f[0], Method: zip.Store,
			CompressedSize64: uint64(len(f[1])), UncompressedSize64: uint64(len(f[1])),
		})
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

// zipDir zips the files under dir, named by their paths below it.
func zipDir(t testing.TB, dir string) []byte {
	t.Helper()
	var files [][2]string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, [2]string{filepath.ToSlash(rel), string(data)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return zipOf(t, files...)
}

const ns = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

// docx returns a document whose body is body, with styles when not empty.
func docx(t testing.TB, body, styles string) []byte {
	t.Helper()
	files := [][2]string{{"word/document.xml", `<w:document ` + ns + `><w:body>` + body + `</w:body></w:document>`}}
	if styles != "" {
		files = append(files, [2]string{"word/styles.xml", `<w:styles ` + ns + `>` + styles + `</w:styles>`})
	}
	return zipOf(t, files...)
}

// wpara is a paragraph of style (none when empty) holding text.
func wpara(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

func mustParse(t *testing.T, data []byte) *doc.Document {
	t.Helper()
	d, err := Parse(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	doctest.Check(t, d, doc.DOCX)
	return d
}

func TestGolden(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	n := 0
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			d := mustParse(t, zipDir(t, dir))
			doctest.Golden(t, dir+".txt", doctest.Dump(d), *update)
		})
	}
	if n == 0 {
		t.Fatal("no golden documents")
	}
}

func TestReport(t *testing.T) {
	d := mustParse(t, zipDir(t, filepath.Join("testdata", "golden", "report")))
	if d.Title != "Harbour Report" || !slices.Equal(d.Authors, []string{"Ann Keeper", "Ben Pilot"}) || d.Language != "en-GB" {
		t.Errorf("metadata %q %q %q", d.Title, d.Authors, d.Language)
	}
	want := "Harbour Report\nTides\n  Spring tides\n  Neap tides\nSignals\nLexicon\nAnnex I: Tables of depth\n"
	if got := doctest.Outline(d); got != want {
		t.Errorf("outline\n%s\nwant\n%s", got, want)
	}
	text := d.Text()
	for _, gone := range []string{"HIDDEN", "or so", "TOC", "1-3"} {
		if strings.Contains(text, gone) {
			t.Errorf("%q left in the text", gone)
		}
	}
	for _, kept := range []string{
		"The range is 14 m[1] at springs, the second highest.",
		"Ships wait for high water at the lock[2].",
		"[1] Measured at Avonmouth in 2019.", "[2] See the harbour by-laws.",
		"Day | High | Low\nMon | 06:12 (approx.)",
		"1. Check the gauge.\n  a) At the inner lock.\n  b) At the outer lock.\n2. Log the reading.",
		"- Bow line\n- Stern line",
		"if fog:\n    sound_horn()",
		"Flagstaff and no-entry zone; see overleaf.",
		"Speed: v=d/t", "مرفأ: ميناء صغير.", "7. Seventh item first.",
	} {
		if !strings.Contains(text, kept) {
			t.Errorf("%q missing from the text:\n%s", kept, text)
		}
	}
	if strings.Count(text, "Boxed warning.") != 1 {
		t.Errorf("a text box's text %d times", strings.Count(text, "Boxed warning."))
	}
}

// TestHeadingStyles checks each way a paragraph becomes a heading: a
// built-in style, a localized name, a style based on a heading, an outline
// level on the style or on the paragraph; and the ways it does not.
func TestHeadingStyles(t *testing.T) {
	styles := `<w:style w:type="paragraph" w:default="1" w:styleId="Standard"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="a1"><w:name w:val="Заголовок 2"/></w:style>
<w:style w:type="paragraph" w:styleId="Kapitel"><w:name w:val="Kapitel"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="MySection"><w:name w:val="My Section"/><w:basedOn w:val="a1"/></w:style>
<w:style w:type="paragraph" w:styleId="Loop1"><w:name w:val="Loop 1"/><w:basedOn w:val="Loop2"/></w:style>
<w:style w:type="paragraph" w:styleId="Loop2"><w:name w:val="Loop 2"/><w:basedOn w:val="Loop1"/></w:style>`
	body := wpara("Heading1", "One") + wpara("", "a") + wpara("a1", "One.1") + wpara("", "b") +
		wpara("Kapitel", "Two") + wpara("", "c") + wpara("MySection", "Two.1") + wpara("", "d") +
		wpara("Loop1", "Not a heading") + wpara("Missing", "Nor this") +
		`<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Three</w:t></w:r></w:p>` + wpara("", "e") +
		`<w:p><w:pPr><w:pStyle w:val="Heading1"/><w:outlineLvl w:val="9"/></w:pPr><w:r><w:t>Body after all</w:t></w:r></w:p>` +
		wpara("Heading1", "  ")
	d := mustParse(t, docx(t, body, styles))
	if got, want := doctest.Outline(d), "One\n  One.1\nTwo\n  Two.1\nThree\n"; got != want {
		t.Errorf("outline\n%s\nwant\n%s", got, want)
	}
	for _, s := range []string{"Not a heading", "Nor this", "Body after all"} {
		if !strings.Contains(d.Text(), s) {
			t.Errorf("%q missing", s)
		}
	}
}

// TestNoStyles reads a document that has no styles part, as some tools
// write them: Heading style ids still make headings.
func TestNoStyles(t *testing.T) {
	d := mustParse(t, docx(t, wpara("Heading1", "A")+wpara("", "a")+wpara("Heading1", "B")+wpara("", "b"), ""))
	if got := doctest.Outline(d); got != "A\nB\n" {
		t.Errorf("outline %q", got)
	}
}

func TestBroken(t *testing.T) {
	deep := docx(t, strings.Repeat("<w:sdt><w:sdtContent>", 600)+wpara("", "x"), "")
	ole := append([]byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), make([]byte, 512)...)
	for _, tc := range []struct {
		name string
		data []byte
		kind error
		says string
	}{
		{"Word 97", ole, ErrNotDOCX, "Word 97-2003 .doc or a document encrypted with a password"},
		{"not a zip", []byte("plain text"), ErrNotDOCX, "not a zip archive"},
		{"no document", zipOf(t, [2]string{"word/styles.xml", "<w:styles/>"}), ErrNotDOCX, "no word/document.xml"},
		{"cut off", docx(t, wpara("", "The end is")[:30], ""), ErrDamaged, "word/document.xml: the XML breaks off or is broken"},
		{"nested too deep", deep, ErrDamaged, "nested too deep"},
		{"broken styles", zipOf(t, [2]string{"word/document.xml", "<w:document/>"}, [2]string{"word/styles.xml", "<w:styles><"}), ErrDamaged, "word/styles.xml is not valid XML"},
		{"bomb", docx(t, wpara("", strings.Repeat(" ", 2<<20)), ""), ErrTooLarge, "decompresses to more than 1 MB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(context.Background(), tc.data, safezip.Limits{MaxEntries: 10, MaxEntry: 1 << 20, MaxTotal: 4 << 20})
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("err = %v, want %v saying %q", err, tc.kind, tc.says)
			}
		})
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, docx(t, wpara("", "x"), "")); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}
