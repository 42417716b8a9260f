package ocr_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
	"github.com/grimoire-search/grimoire/ingest/ocr"
	"github.com/grimoire-search/grimoire/ingest/pdf"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// TestCorpusRecall reads the corpus's scanned PDFs the way ingest does:
// pages drawn by PDFium at 300 dpi, recognised by tesseract, laid out by
// the PDF parser. Recall is against the original PDFs' text layers.
func TestCorpusRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("OCR of the corpus takes minutes; skipped in -short")
	}
	eng := findTesseract(t)
	dir := testcorpus.Path(t, "books", "scanned")
	for _, tc := range []struct {
		file       string
		wantRecall float64
	}{
		{"freeculture-p18-21.pdf", 0.95},
		{"nist-sp800-207-p13-16-noisy.pdf", 0.90},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := os.ReadFile(filepath.Join(dir, strings.TrimSuffix(tc.file, ".pdf")+".txt-reference"))
			if err != nil {
				t.Fatal(err)
			}
			ex := pdf.NewExtractor(pdf.Options{})
			defer ex.Close()
			ctx := context.Background()
			d, err := ex.ParseScanned(ctx, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Scanned) != d.PageCount || d.PageCount == 0 {
				t.Fatalf("scanned pages %v of %d, want all", d.Scanned, d.PageCount)
			}
			start := time.Now()
			recognised := map[int]string{}
			var conf float64
			err = ex.RenderPages(ctx, data, d.Scanned, 300, func(r doc.PageImage) error {
				p, err := eng.Recognize(ctx, r.Image, int(r.DPI), "eng")
				if err != nil {
					return err
				}
				recognised[r.Page] = p.Text
				conf += p.Confidence
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			d, err = ex.ParseScanned(ctx, data, recognised)
			if err != nil {
				t.Fatal(err)
			}
			_, precision, recall := doctest.WordF1(doctest.Words(doctest.Text(d)), doctest.Words(string(ref)))
			t.Logf("%s: recall %.4f, precision %.4f, mean confidence %.1f, %d pages in %v (%.1f pages/min, one process at a time), peak RSS of this process %d MiB",
				tc.file, recall, precision, conf/float64(len(recognised)), len(recognised), took.Round(time.Millisecond),
				float64(len(recognised))/took.Minutes(), peakRSS()>>20)
			if recall < tc.wantRecall {
				t.Errorf("recall %.4f, want at least %.2f", recall, tc.wantRecall)
			}
		})
	}
}

func findTesseract(t *testing.T) *ocr.Engine {
	t.Helper()
	eng, err := ocr.Find(context.Background(), "")
	if err != nil {
		t.Skipf("tesseract not found (%v); skipping", err)
	}
	if !eng.Has("eng") {
		t.Skip("tesseract has no English data; skipping")
	}
	return eng
}
