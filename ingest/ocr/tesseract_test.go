package ocr_test

import (
	"context"
	"image"
	"image/draw"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/grimoire-search/grimoire/ingest/ocr"
)

// page draws lines of text in Go Regular at 12 points, as a 300 dpi scan
// of a printed page would show them.
func page(t *testing.T, lines ...string) *image.Gray {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 12, DPI: 300, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	defer face.Close()
	img := image.NewGray(image.Rect(0, 0, 2400, 300+len(lines)*80))
	draw.Draw(img, img.Rect, image.White, image.Point{}, draw.Src)
	d := &font.Drawer{Dst: img, Src: image.Black, Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(150, 200+i*80)
		d.DrawString(l)
	}
	return img
}

// turned is img turned half a turn, as a page fed upside down.
func turned(img *image.Gray) *image.Gray {
	out := image.NewGray(img.Rect)
	n := len(img.Pix)
	for i, v := range img.Pix {
		out.Pix[n-1-i] = v
	}
	return out
}

func TestRecognize(t *testing.T) {
	eng, err := ocr.Find(context.Background(), "")
	if err != nil {
		t.Skipf("tesseract not found (%v); skipping", err)
	}
	if !eng.Has("eng") {
		t.Skip("tesseract has no English data; skipping")
	}
	lines := []string{
		"Zero trust is a cybersecurity paradigm focused on resource",
		"protection and the premise that trust is never granted.",
	}
	img := page(t, lines...)
	cases := []struct {
		name string
		img  *image.Gray
	}{{"upright", img}}
	if eng.Has("osd") {
		cases = append(cases, struct {
			name string
			img  *image.Gray
		}{"upside down", turned(img)})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := eng.Recognize(context.Background(), tc.img, 300, "eng")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Join(lines, "\n")
			if p.Text != want {
				t.Errorf("text %q, want %q", p.Text, want)
			}
			if p.Words != 18 || p.Confidence < 80 {
				t.Errorf("%d words at confidence %.1f, want 18 above 80", p.Words, p.Confidence)
			}
		})
	}
}

func TestRecognizeMissingLanguage(t *testing.T) {
	eng, err := ocr.Find(context.Background(), "")
	if err != nil {
		t.Skipf("tesseract not found (%v); skipping", err)
	}
	_, err = eng.Recognize(context.Background(), image.NewGray(image.Rect(0, 0, 10, 10)), 300, "xxx")
	if err == nil || !strings.Contains(err.Error(), "tesseract-ocr-xxx") {
		t.Errorf("error %v, want one naming the package tesseract-ocr-xxx", err)
	}
}

func TestFindConfiguredMissing(t *testing.T) {
	_, err := ocr.Find(context.Background(), "/nonexistent/tesseract")
	if err == nil || !strings.Contains(err.Error(), "[ocr] tesseract") {
		t.Errorf("error %v, want one naming the setting", err)
	}
}
