package odt

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

// zipDir zips the files under dir, named by their paths below it,
// mimetype first as OpenDocument wants it.
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
	slices.SortStableFunc(files, func(a, b [2]string) int {
		if a[0] == "mimetype" {
			return -1
		}
		if b[0] == "mimetype" {
			return 1
		}
		return 0
	})
	return zipOf(t, files...)
}

const nsText = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"`

// odt returns a document whose office:text holds body, with the automatic
// styles given.
func odt(t testing.TB, styles, body string) []byte {
	t.Helper()
	return zipOf(t,
		[2]string{"mimetype", textMimetype},
		[2]string{"content.xml", `<office:document-content ` + nsText + `><office:automatic-styles>` + styles +
			`</office:automatic-styles><office:body><office:text>` + body + `</office:text></office:body></office:document-content>`})
}

func mustParse(t *testing.T, data []byte) *doc.Document {
	t.Helper()
	d, err := Parse(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	doctest.Check(t, d, doc.ODT)
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

func TestGuide(t *testing.T) {
	d := mustParse(t, zipDir(t, filepath.Join("testdata", "golden", "guide")))
	if d.Title != "Pilot's Guide" || !slices.Equal(d.Authors, []string{"Ann Keeper"}) || d.Language != "en-GB" {
		t.Errorf("metadata %q %q %q", d.Title, d.Authors, d.Language)
	}
	if got, want := doctest.Outline(d), "Pilot's Guide\nApproach\n  In fog\nBerths\n"; got != want {
		t.Errorf("outline\n%s\nwant\n%s", got, want)
	}
	text := d.Text()
	for _, gone := range []string{"Running head", "Reviewer comment", "Deleted words", "Frame title", "みなと", "Contents"} {
		if strings.Contains(text, gone) {
			t.Errorf("%q left in the text", gone)
		}
	}
	for _, kept := range []string{
		"Keep the red buoy to port[1].", "[1] Lit at night.",
		"Sound the horn every two minutes;\nlisten for the bell.",
		"1. Slow down.\n  a) Below four knots.\n  b) Below two near the piers.\n2. Post a lookout.\n  At the bow.",
		"- Radio\n- Flares", "if fog:\n    sound_horn()",
		"Berth | Depth | Note\nAll berths |  | dredged in May",
		"Red over white, fishing at night.", "Boxed warning.", "Text beside the box.",
		"港 (harbour), מרינה, ميناء.",
	} {
		if !strings.Contains(text, kept) {
			t.Errorf("%q missing from the text:\n%s", kept, text)
		}
	}
	if a := d.Chapters[1].Anchor; a != "#approach" {
		t.Errorf("anchor %q", a)
	}
}

// TestHeadings checks heading levels from text:h, from a paragraph style's
// outline level or name, and the title when meta.xml gives none.
func TestHeadings(t *testing.T) {
	styles := `<style:style style:name="P1" style:family="paragraph" style:default-outline-level="2"/>
<style:style style:name="P2" style:family="paragraph" style:parent-style-name="Heading_20_1"/>`
	body := `<text:p text:style-name="Title">Name</text:p>
<text:h>No level</text:h><text:p>a</text:p>
<text:p text:style-name="P1">Level two</text:p><text:p>b</text:p>
<text:p text:style-name="P2">Undefined parent says heading 1</text:p><text:p>c</text:p>
<text:h text:outline-level="1"> </text:h>`
	d := mustParse(t, odt(t, styles, body))
	if got, want := doctest.Outline(d), "Name\nNo level\n  Level two\nUndefined parent says heading 1\n"; got != want {
		t.Errorf("outline\n%s\nwant\n%s", got, want)
	}
	if d.Title != "Name" {
		t.Errorf("title %q", d.Title)
	}
}

func TestBroken(t *testing.T) {
	deep := odt(t, "", strings.Repeat("<text:section>", 1100)+"<text:p>x</text:p>")
	encrypted := zipOf(t, [2]string{"mimetype", textMimetype}, [2]string{"content.xml", "\x8a\x13binary"},
		[2]string{"META-INF/manifest.xml", `<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/></manifest:file-entry></manifest:manifest>`})
	for _, tc := range []struct {
		name string
		data []byte
		kind error
		says string
	}{
		{"not a zip", []byte("plain text"), ErrNotODT, "not a zip archive"},
		{"spreadsheet", zipOf(t, [2]string{"mimetype", "application/vnd.oasis.opendocument.spreadsheet"}, [2]string{"content.xml", "<x/>"}), ErrNotODT, "not an OpenDocument text"},
		{"no content", zipOf(t, [2]string{"mimetype", textMimetype}), ErrNotODT, "no content.xml"},
		{"encrypted", encrypted, ErrNotODT, "encrypted with a password"},
		{"cut off", zipOf(t, [2]string{"content.xml", `<office:document-content ` + nsText + `><office:body><office:text><text:p>The end`}),
			ErrDamaged, "content.xml: the XML breaks off or is broken"},
		{"nested too deep", deep, ErrDamaged, "nested too deep"},
		{"bomb", odt(t, "", "<text:p>"+strings.Repeat(" ", 2<<20)+"</text:p>"), ErrTooLarge, "decompresses to more than 1 MB"},
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
	if _, err := Parse(ctx, odt(t, "", "<text:p>x</text:p>")); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}
