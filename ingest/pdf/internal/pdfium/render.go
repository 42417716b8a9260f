package pdfium

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
)

// maxObjects bounds the page objects HasImage looks at: a page drawn with
// more is not a scan.
const maxObjects = 100_000

// pageObjImage is FPDF_PAGEOBJ_IMAGE.
const pageObjImage = 3

// HasImage reports whether the page draws an image directly (not inside a
// form XObject), which is what a scanned page is.
func (t *TextPage) HasImage(ctx context.Context) (bool, error) {
	in := t.d.in
	n, err := in.call(ctx, fnPageCountObjects, t.page)
	if err != nil {
		return false, err
	}
	count := min(int(int32(n)), maxObjects)
	for i := range count {
		obj, err := in.call(ctx, fnPageGetObject, t.page, uint64(i))
		if err != nil {
			return false, err
		}
		if uint32(obj) == 0 {
			continue
		}
		typ, err := in.call(ctx, fnPageObjGetType, uint64(uint32(obj)))
		if err != nil {
			return false, err
		}
		if int32(typ) == pageObjImage {
			return true, nil
		}
	}
	return false, nil
}

// bitmapGray is FPDFBitmap_Gray: one byte per pixel.
const bitmapGray = 1

// MaxRenderPixels bounds a rendered page; a larger page is rendered at a
// lower resolution (an A0 poster at 300 dpi would be 140 million pixels).
const MaxRenderPixels = 60_000_000

// Render draws page index (0-based) in grayscale at dpi, on white, turned
// as the page's /Rotate says, as a viewer shows it. A page too large for
// MaxRenderPixels at dpi is drawn smaller; the dpi used is returned.
func (d *Document) Render(ctx context.Context, index int, dpi float64) (*image.Gray, float64, error) {
	in := d.in
	page, err := in.call(ctx, fnLoadPage, d.doc, uint64(index))
	if err != nil {
		return nil, 0, err
	}
	if uint32(page) == 0 {
		return nil, 0, fmt.Errorf("PDFium could not load page %d", index+1)
	}
	page = uint64(uint32(page))
	defer func() {
		if !in.dead {
			_, _ = in.call(ctx, fnClosePage, page)
		}
	}()
	in.pages++
	// The width and height PDFium gives are the page's as shown: turned
	// by its /Rotate.
	wb, err := in.call(ctx, fnPageWidth, page)
	if err != nil {
		return nil, 0, err
	}
	hb, err := in.call(ctx, fnPageHeight, page)
	if err != nil {
		return nil, 0, err
	}
	wpt, hpt := float64(math.Float32frombits(uint32(wb))), float64(math.Float32frombits(uint32(hb)))
	if !(wpt > 0 && hpt > 0 && wpt < 1e5 && hpt < 1e5) {
		return nil, 0, fmt.Errorf("page %d has no usable size (%gx%g points)", index+1, wpt, hpt)
	}
	if px := wpt * hpt * dpi * dpi / (72 * 72); px > MaxRenderPixels {
		dpi *= math.Sqrt(MaxRenderPixels / px)
	}
	w, h := max(1, int(math.Round(wpt*dpi/72))), max(1, int(math.Round(hpt*dpi/72)))
	bm, err := in.call(ctx, fnBitmapCreateEx, uint64(w), uint64(h), bitmapGray, 0, 0)
	if err != nil {
		return nil, 0, err
	}
	if uint32(bm) == 0 {
		return nil, 0, errors.New("PDFium is out of memory for the page's image")
	}
	bm = uint64(uint32(bm))
	defer func() {
		if !in.dead {
			_, _ = in.call(ctx, fnBitmapDestroy, bm)
		}
	}()
	if _, err := in.call(ctx, fnBitmapFillRect, bm, 0, 0, uint64(w), uint64(h), 0xFFFFFFFF); err != nil {
		return nil, 0, err
	}
	// Flags: FPDF_ANNOT (0x01), so that stamps and notes drawn on a scan
	// are read too.
	if _, err := in.call(ctx, fnRenderPageBitmap, bm, page, 0, 0, uint64(w), uint64(h), 0, 0x01); err != nil {
		return nil, 0, err
	}
	buf, err := in.call(ctx, fnBitmapGetBuffer, bm)
	if err != nil {
		return nil, 0, err
	}
	stride, err := in.call(ctx, fnBitmapGetStride, bm)
	if err != nil {
		return nil, 0, err
	}
	s := int(int32(stride))
	if s < w {
		return nil, 0, fmt.Errorf("PDFium gave a bitmap stride of %d for a width of %d", s, w)
	}
	raw, ok := in.mem.Read(uint32(buf), uint32(s*h))
	if !ok {
		return nil, 0, errors.New("PDFium's bitmap lies outside its memory")
	}
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		copy(img.Pix[y*w:(y+1)*w], raw[y*s:y*s+w])
	}
	return img, dpi, nil
}
