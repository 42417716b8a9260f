package pdfium

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// minimalPDF is one page saying "Hi there" in Helvetica 12, with an
// outline entry and a page label.
func minimalPDF() []byte {
	content := "BT /F1 12 Tf 72 700 Td (Hi there) Tj ET"
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R /PageLabels << /Nums [0 << /S /r >>] >> >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /CropBox [10 20 600 780] /Contents 4 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Outlines /First 6 0 R /Last 6 0 R /Count 1 >>",
		"<< /Title (Start) /Parent 5 0 R /Dest [3 0 R /XYZ 72 720 0] >>",
		"<< /Title (The Title) >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	var offsets []int
	for i, o := range objects {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 7 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

// TestCalls exercises every export this package binds, so that a
// go-pdfium upgrade that moves its internals fails here first.
func TestCalls(t *testing.T) {
	ctx := context.Background()
	rt, cacheErr, err := Start(ctx, Config{CacheDir: filepath.Join(os.TempDir(), "grimoire-test-pdfium-cache"), MaxInstances: 1})
	if err != nil {
		t.Fatal(err)
	}
	if cacheErr != nil {
		t.Logf("cache not used: %v", cacheErr)
	}
	defer rt.Close()
	in, err := rt.NewInstance(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()

	if _, err := in.OpenDocument(ctx, []byte("%PDF-1.4 nothing else"), ""); !errors.Is(err, ErrFormat) {
		t.Errorf("garbage: %v", err)
	}
	d, err := in.OpenDocument(ctx, minimalPDF(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(ctx)
	if n, err := d.PageCount(ctx); n != 1 || err != nil {
		t.Errorf("PageCount %d %v", n, err)
	}
	if l, err := d.PageLabel(ctx, 0); l != "i" || err != nil {
		t.Errorf("PageLabel %q %v", l, err)
	}
	if s, err := d.MetaText(ctx, "Title"); s != "The Title" || err != nil {
		t.Errorf("MetaText %q %v", s, err)
	}
	bms, err := d.Outline(ctx, 10, 4)
	if err != nil || len(bms) != 1 || bms[0].Title != "Start" || bms[0].Page != 0 || !bms[0].HasY || bms[0].Y != 720 || bms[0].X != 72 {
		t.Errorf("Outline %+v %v", bms, err)
	}
	tp, err := d.LoadPage(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tp.Close(ctx)
	if !tp.HasBox || tp.Box != [4]float32{10, 20, 600, 780} || tp.Width != 590 || tp.Height != 760 {
		t.Errorf("page box %v %v, size %v x %v", tp.HasBox, tp.Box, tp.Width, tp.Height)
	}
	n, err := tp.CountChars(ctx)
	if err != nil || n != 8 {
		t.Fatalf("CountChars %d %v", n, err)
	}
	chars, err := tp.Chars(ctx, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	var text []rune
	for _, c := range chars {
		text = append(text, c.Rune)
		if c.NoBox || c.Unmapped {
			t.Errorf("%q: no box or unmapped", c.Rune)
		}
	}
	if string(text) != "Hi there" || chars[0].Left < 71 || chars[0].Left > 73 || chars[0].Bottom > 700 || chars[0].Top < 708 {
		t.Errorf("chars %q, first %+v", string(text), chars[0])
	}
	st, err := tp.Style(ctx, 0)
	if err != nil || st.Size != 12 || st.Font != "Helvetica" {
		t.Errorf("Style %+v %v", st, err)
	}
	if name, err := tp.FontName(ctx, 1); name != "Helvetica" || err != nil {
		t.Errorf("FontName %q %v", name, err)
	}
	if docs, pages := in.Usage(); docs != 1 || pages != 1 || in.MemorySize() == 0 || in.Dead() {
		t.Errorf("usage %d %d, memory %d, dead %v", docs, pages, in.MemorySize(), in.Dead())
	}
}
