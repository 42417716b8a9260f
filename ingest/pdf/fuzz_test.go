package pdf

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/bomb"
)

// FuzzParse checks what must hold for any input: Parse returns a
// well-formed tree or one of the documented errors, and neither panics
// (a recovered panic is reported as a failure of the parser, which the
// fuzzer counts as a bug) nor overruns its time. PDFium starts once per
// fuzzing process: every iteration reuses the shared extractor.
func FuzzParse(f *testing.F) {
	book := bookFixture().build(f)
	seeds := [][]byte{
		book,
		twoColumnFixture().build(f),
		encrypt(f, book, "", "owner", true),
		encrypt(f, book, "secret", "owner", false),
		book[:len(book)/2],
		[]byte("%PDF-1.7\n%%EOF\n"),
		[]byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/MediaBox[0 0 612 792]/Parent 2 0 R>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF"),
	}
	fx := bookFixture()
	fx.classic = true
	seeds = append(seeds, fx.build(f))
	seeds = append(seeds, rawPDF(
		"<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
		"<< /Type /Outlines /First 5 0 R >>",
		"<< /Title (Loop) /Next 5 0 R /First 5 0 R /Dest (d1) >>",
	))
	rotated := newPage().lines("F3", 12, 72, 700, 16, "turned page", "second line")
	rotated.rotate = 90
	seeds = append(seeds, fixture{pages: []*fxPage{rotated}}.build(f))
	// Forms, fonts and object streams for the audit, under its limits.
	for _, where := range []bomb.Place{bomb.Form, bomb.ToUnicode, bomb.ObjectStream} {
		seeds = append(seeds, bomb.PDF{Pages: 2, Bombs: 1, Where: where, Size: 64 << 10, Draws: 2}.Bytes())
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		d, err := testExtractor.Parse(ctx, data)
		if err != nil {
			if d != nil {
				t.Fatal("a document came back with an error")
			}
			if strings.Contains(err.Error(), "parser failed") {
				t.Fatalf("panic: %v", err)
			}
			for _, known := range []error{ErrNotPDF, ErrDamaged, ErrPassword, ErrTooLarge, ErrResourceLimit, doc.ErrNoText} {
				if errors.Is(err, known) {
					return
				}
			}
			t.Fatalf("undocumented error: %v", err)
		}
		checkTree(t, d)
	})
}
