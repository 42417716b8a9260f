package djvu

import (
	"bytes"
	"context"
	"image"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/testbook"
)

// scanPage is a one-page DjVu whose page has an image (a JB2 mask, not a
// valid one: the parser never decodes it) and no text layer.
var scanPage = []byte("AT&TFORM\x00\x00\x00\x22DJVUINFO\x00\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00Sjbz\x00\x00\x00\x04\x01\x02\x03\x04")

// TestScannedPages: pages with an image and no text layer are listed as
// scans, blank pages are not, and text read on a scan by OCR is laid out
// on its page.
func TestScannedPages(t *testing.T) {
	blank := []byte("AT&TFORM\x00\x00\x00\x16DJVUINFO\x00\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	for _, tc := range []struct {
		name       string
		data       []byte
		recognised map[int]string
		scanned    []int
		blocks     []string
	}{
		{"blank page", blank, nil, nil, nil},
		{"scan unread", scanPage, nil, []int{1}, nil},
		{"scan read", scanPage, map[int]string{1: "The tide turns\nat noon.\n\nGulls wait."}, []int{1}, []string{"The tide turns\nat noon. @1", "Gulls wait. @1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseScanned(context.Background(), tc.data, tc.recognised)
			if err != nil {
				t.Fatal(err)
			}
			check(t, d)
			if !slices.Equal(d.Scanned, tc.scanned) {
				t.Errorf("scanned %v, want %v", d.Scanned, tc.scanned)
			}
			var got []string
			for _, b := range d.Blocks() {
				got = append(got, b.Text+" @"+string(rune('0'+b.Page)))
			}
			if !slices.Equal(got, tc.blocks) {
				t.Errorf("blocks %q, want %q", got, tc.blocks)
			}
		})
	}
}

// TestMixedDocument: in a document of a scan and a page with a text
// layer, only the scan is listed, and the text page is read.
func TestMixedDocument(t *testing.T) {
	data := testbook.ScannedDjVu(t, "Harbour Charts",
		testbook.ScannedPage{Scan: testbook.ScanPage(t, "The tide turns at noon.")},
		testbook.ScannedPage{Text: []string{"Page two speaks of gulls."}})
	d, err := Parse(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	check(t, d)
	if !slices.Equal(d.Scanned, []int{1}) || d.PageCount != 2 || d.Title != "Harbour Charts" {
		t.Errorf("scanned %v of %d pages, title %q; want page 1 of 2", d.Scanned, d.PageCount, d.Title)
	}
	if bs := d.Blocks(); len(bs) != 1 || bs[0].Text != "Page two speaks of gulls." || bs[0].Page != 2 {
		t.Errorf("blocks %+v, want the text page's", bs)
	}
}

// TestDraw has ddjvu draw a scanned page at the resolution asked for.
func TestDraw(t *testing.T) {
	data := testbook.ScannedDjVu(t, "T",
		testbook.ScannedPage{Text: []string{"A text page."}},
		testbook.ScannedPage{Scan: testbook.ScanPage(t, "The tide turns at noon.")})
	d, err := FindDrawer()
	if err != nil {
		t.Skipf("%v; skipping", err)
	}
	for _, dpi := range []float64{300, 150} {
		var got []doc.PageImage
		err := d.Draw(context.Background(), data, []int{2}, dpi, time.Minute, func(p doc.PageImage) error {
			got = append(got, p)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		w, h := int(8.5*dpi), int(11*dpi)
		if len(got) != 1 || got[0].Page != 2 || got[0].DPI != dpi || got[0].Image.Rect != image.Rect(0, 0, w, h) {
			t.Fatalf("at %v dpi drew %+v, want page 2 of %dx%d", dpi, got, w, h)
		}
		dark := 0
		for _, v := range got[0].Image.Pix {
			if v < 128 {
				dark++
			}
		}
		if dark == 0 {
			t.Errorf("at %v dpi the page drawn is blank", dpi)
		}
	}
	err = d.Draw(context.Background(), data, []int{3}, 300, time.Minute, func(doc.PageImage) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "2 pages") {
		t.Errorf("drawing page 3 of 2: %v", err)
	}
}

func TestFindDrawerMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := FindDrawer()
	if err == nil || !strings.Contains(err.Error(), "djvulibre") {
		t.Errorf("error %v, want one naming the package", err)
	}
	if _, err := exec.LookPath("ddjvu"); err == nil {
		t.Fatal("PATH still finds ddjvu")
	}
}

func TestReadPGM(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		ok         bool
	}{
		{"plain", "P5\n2 1\n255\n\x00\xff", true},
		{"comment", "P5\n# made by hand\n2 1 255\n\x00\xff", true},
		{"short", "P5\n2 1\n255\n\x00", false},
		{"ascii", "P2\n2 1\n255\n0 255", false},
		{"16-bit", "P5\n2 1\n65535\n\x00\x00\xff\xff", false},
		{"huge", "P5\n99999999 99999999\n255\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, err := readPGM(bytes.NewReader([]byte(tc.data)))
			if (err == nil) != tc.ok {
				t.Fatalf("error %v, want ok %v", err, tc.ok)
			}
			if tc.ok && (img.Rect.Dx() != 2 || img.Pix[0] != 0 || img.Pix[1] != 255) {
				t.Errorf("image %v %v", img.Rect, img.Pix)
			}
		})
	}
}
