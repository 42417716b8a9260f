package pdf

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

func TestScannedPages(t *testing.T) {
	ctx := context.Background()
	text := newPage().lines("F1", 11, 72, 700, 14, prose("text", 8)...)
	scan := &fxPage{w: 612, h: 792, image: true}
	sideways := &fxPage{w: 612, h: 792, image: true, rotate: 90}
	t.Run("mixed: only the pages without text are scans", func(t *testing.T) {
		data := fixture{pages: []*fxPage{text, scan, sideways}}.build(t)
		d, err := testExtractor.ParseScanned(ctx, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.Scanned, []int{2, 3}) {
			t.Errorf("scanned %v, want [2 3]", d.Scanned)
		}
		d, err = testExtractor.ParseScanned(ctx, data, map[int]string{
			2: "Recognised heading\n\nThe first line of a para-\ngraph and its second line.\n\n17",
			3: "iv",
		})
		if err != nil {
			t.Fatal(err)
		}
		checkTree(t, d)
		pages := pageTexts(d)
		if want := "Recognised heading\n\nThe first line of a paragraph and its second line.\n\n"; pages[1] != want {
			t.Errorf("page 2 reads %q, want %q", pages[1], want)
		}
		if pages[2] != "" || !strings.Contains(pages[0], "text") {
			t.Errorf("pages read %q", pages)
		}
	})
	t.Run("all scans", func(t *testing.T) {
		data := fixture{pages: []*fxPage{scan, scan}}.build(t)
		if _, err := testExtractor.Parse(ctx, data); !errors.Is(err, doc.ErrNoText) {
			t.Errorf("Parse: %v, want ErrNoText", err)
		}
		d, err := testExtractor.ParseScanned(ctx, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.Scanned, []int{1, 2}) || len(d.Chapters) != 0 {
			t.Errorf("scanned %v with %d chapters, want [1 2] and none", d.Scanned, len(d.Chapters))
		}
		d, err = testExtractor.ParseScanned(ctx, data, map[int]string{1: "One page.", 2: "Another page."})
		if err != nil {
			t.Fatal(err)
		}
		checkTree(t, d)
		if got := pageTexts(d); got[0] != "One page.\n\n" || got[1] != "Another page.\n\n" {
			t.Errorf("pages read %q", got)
		}
	})
	t.Run("render turns a page as its /Rotate says", func(t *testing.T) {
		data := fixture{pages: []*fxPage{scan, sideways}}.build(t)
		var got []doc.PageImage
		err := testExtractor.RenderPages(ctx, data, []int{1, 2}, 150, func(r doc.PageImage) error {
			got = append(got, r)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("%d pages drawn, want 2", len(got))
		}
		for i, want := range [][2]int{{1275, 1650}, {1650, 1275}} {
			r := got[i]
			if r.Page != i+1 || r.DPI != 150 || r.Image.Rect.Dx() != want[0] || r.Image.Rect.Dy() != want[1] {
				t.Errorf("page %d drawn %v at %g dpi, want page %d %dx%d at 150", r.Page, r.Image.Rect.Size(), r.DPI, i+1, want[0], want[1])
			}
			dark := 0
			for _, v := range r.Image.Pix {
				if v < 250 {
					dark++
				}
			}
			if dark == 0 {
				t.Errorf("page %d drawn blank", r.Page)
			}
		}
	})
	t.Run("render stops at the caller's error", func(t *testing.T) {
		data := fixture{pages: []*fxPage{scan, scan, scan}}.build(t)
		stop := errors.New("stop")
		n := 0
		err := testExtractor.RenderPages(ctx, data, []int{1, 2, 3}, 72, func(doc.PageImage) error {
			n++
			return stop
		})
		if !errors.Is(err, stop) || n != 1 {
			t.Errorf("error %v after %d pages, want stop after 1", err, n)
		}
	})
}

// TestScanFurniture drops the running heads and footers OCR reads on
// scanned pages, as a text layer's are dropped, and keeps what only looks
// like them once or twice.
func TestScanFurniture(t *testing.T) {
	page := func(i int, paras ...string) []block {
		return recognisedBlocks(i, strings.Join(paras, "\n\n"))
	}
	body := func(i int) string {
		return fmt.Sprintf("Body text of page %d runs on\nover two lines of the scan.", i+1)
	}
	tests := []struct {
		name  string
		pages [][]block
		want  []string // each page's paragraphs, joined by "|"
	}{
		{"a running head and a numbered footer on every page",
			[][]block{
				page(0, "ZERO TRUST ARCHITECTURE", body(0), "Page 12 of 40"),
				page(1, "ZERO TRUST ARCHITECTURE", body(1), "Page 13 of 40"),
				page(2, "ZERO TRUST ARCHITECTURE", body(2), "Page 14 of 40"),
			},
			[]string{body(0), body(1), body(2)}},
		{"a head with the page number in it",
			[][]block{
				page(0, "2 FREE CULTURE", body(0)),
				page(1, "4 FREE CULTURE", body(1)),
				page(2, "6 FREE CULTURE", body(2)),
			},
			[]string{body(0), body(1), body(2)}},
		{"a heading on two pages of four stays",
			[][]block{
				page(0, "Exercises", body(0)),
				page(1, body(1)),
				page(2, "Exercises", body(2)),
				page(3, body(3)),
			},
			[]string{"Exercises|" + body(0), body(1), "Exercises|" + body(2), body(3)}},
		{"a repeated paragraph of several lines stays",
			[][]block{
				page(0, "Warning: keep clear\nof the harbour wall.", body(0)),
				page(1, "Warning: keep clear\nof the harbour wall.", body(1)),
				page(2, "Warning: keep clear\nof the harbour wall.", body(2)),
			},
			[]string{"Warning: keep clear of the harbour wall.|" + body(0), "Warning: keep clear of the harbour wall.|" + body(1), "Warning: keep clear of the harbour wall.|" + body(2)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dropScanFurniture(tc.pages)
			for i, bs := range tc.pages {
				var got []string
				for _, b := range bs {
					got = append(got, b.text)
				}
				want := strings.ReplaceAll(tc.want[i], "\n", " ")
				if g := strings.Join(got, "|"); g != want {
					t.Errorf("page %d: %q\nwant %q", i+1, g, want)
				}
			}
		})
	}
}

// FuzzRecognisedPages lays out what tesseract might print for three pages:
// never a panic, never an empty paragraph, never a paragraph moved off its
// page.
func FuzzRecognisedPages(f *testing.F) {
	f.Add("HEAD 1\n\nBody one.\n\n1", "HEAD 2\n\nBody two.\n\n2", "HEAD 3\n\nBody three.")
	f.Add("", "\n\n\n", "x")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		pages := [][]block{recognisedBlocks(0, a), recognisedBlocks(1, b), recognisedBlocks(2, c)}
		dropScanFurniture(pages)
		for i, bs := range pages {
			for _, bl := range bs {
				if strings.TrimSpace(bl.text) == "" || bl.page != i {
					t.Fatalf("page %d: block %+v", i, bl)
				}
			}
		}
	})
}
