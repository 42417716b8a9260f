package ingest

import (
	"context"
	"time"

	"github.com/grimoire-search/grimoire/ingest/djvu"
	"github.com/grimoire-search/grimoire/ingest/doc"
)

// djvuPageTimeout bounds the drawing of one DjVu page by ddjvu.
const djvuPageTimeout = 5 * time.Minute

// djvuParser reads DjVu files, and has their scanned pages drawn for OCR
// by djvulibre's ddjvu when it is installed; grimoire does not decode
// DjVu images itself.
type djvuParser struct{}

func (djvuParser) Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	return djvu.Parse(ctx, data)
}

func (djvuParser) ParseScanned(ctx context.Context, data []byte, recognised map[int]string) (*doc.Document, error) {
	return djvu.ParseScanned(ctx, data, recognised)
}

// CanDraw looks for ddjvu each time it is asked, so that one installed
// while a watch runs is found by its next run.
func (djvuParser) CanDraw() error {
	_, err := djvu.FindDrawer()
	return err
}

func (djvuParser) RenderPages(ctx context.Context, data []byte, pages []int, dpi float64, each func(doc.PageImage) error) error {
	d, err := djvu.FindDrawer()
	if err != nil {
		return err
	}
	return d.Draw(ctx, data, pages, dpi, djvuPageTimeout, each)
}
