package djvu

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"os/exec"
	"runtime"
	"strconv"
	"time"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/childproc"
)

// ErrNoDrawer: djvulibre's ddjvu command, which draws DjVu pages for OCR,
// was not found. Its message says how to install it on this platform.
var ErrNoDrawer = errors.New("ddjvu (DjVuLibre) is not installed, and grimoire needs it to draw DjVu pages for OCR")

// maxDrawPixels bounds a drawn page, as PDF pages are bounded: a page
// larger than that at the resolution asked for is drawn at a lower one.
const maxDrawPixels = 60_000_000

// Drawer draws DjVu pages with djvulibre's ddjvu command. It is safe for
// concurrent use: each page runs its own process.
type Drawer struct {
	path string
}

// FindDrawer finds ddjvu on PATH; without it, ErrNoDrawer with the
// platform's install command in the message.
func FindDrawer() (*Drawer, error) {
	path, err := exec.LookPath("ddjvu")
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNoDrawer, InstallHint())
	}
	return &Drawer{path: path}, nil
}

// InstallHint is how to install ddjvu on this platform.
func InstallHint() string { return installHint(runtime.GOOS) }

func installHint(goos string) string {
	switch goos {
	case "darwin":
		return "install it with `brew install djvulibre`"
	case "windows":
		return "install DjVuLibre from https://djvu.sourceforge.net and add its folder to PATH"
	default:
		return "install it with `apt-get install djvulibre-bin` (Debian, Ubuntu; `dnf install djvulibre` on Fedora)"
	}
}

// Draw draws the given pages (1-based) of a DjVu document in grayscale at
// dpi, in order, turned as each page says, handing each to each; it stops
// at the first error each returns, at ctx's end, or when a page takes
// longer than timeout to draw.
func (d *Drawer) Draw(ctx context.Context, data []byte, pages []int, dpi float64, timeout time.Duration, each func(doc.PageImage) error) error {
	if len(pages) == 0 {
		return nil
	}
	comps, _, err := components(data)
	if err != nil {
		return err
	}
	var sizes []pageSize
	for i := range comps {
		if comps[i].page {
			sizes = append(sizes, sizeOf(&comps[i]))
		}
	}
	// ddjvu reads a file more cheaply than a pipe: it seeks to the page.
	src, err := newPageSource(data)
	if err != nil {
		return fmt.Errorf("draw DjVu pages: %w", err)
	}
	defer src.close()
	for _, n := range pages {
		if n < 1 || n > len(sizes) {
			return fmt.Errorf("drawing page %d: the document has %d pages", n, len(sizes))
		}
		at := sizes[n-1].scale(dpi)
		pctx, cancel := context.WithTimeout(ctx, timeout)
		img, err := d.draw(pctx, src, n, at)
		cancel()
		if err != nil && ctx.Err() == nil && pctx.Err() != nil {
			return fmt.Errorf("ddjvu took longer than %v to draw page %d", timeout, n)
		}
		if err != nil {
			return fmt.Errorf("drawing page %d: %w", n, err)
		}
		if err := each(doc.PageImage{Page: n, Image: img, DPI: float64(at)}); err != nil {
			return err
		}
	}
	return nil
}

// draw runs ddjvu on one page, reading the grayscale image it writes.
func (d *Drawer) draw(ctx context.Context, src *pageSource, page, dpi int) (*image.Gray, error) {
	cmd := exec.CommandContext(ctx, d.path, "-format=pgm", "-page="+strconv.Itoa(page), "-scale="+strconv.Itoa(dpi), src.arg)
	src.pass(cmd)
	out, err := childproc.Output(ctx, cmd, "ddjvu", 1)
	if err != nil {
		return nil, err
	}
	img, err := readPGM(bytes.NewReader(out))
	if err != nil {
		return nil, fmt.Errorf("ddjvu's image: %w", err)
	}
	return img, nil
}

// pageSize is a page's size in pixels and its resolution, from its INFO
// chunk; zero when unknown.
type pageSize struct {
	width, height, dpi int
}

func sizeOf(p *component) pageSize {
	for _, ch := range p.chunks {
		if ch.id != "INFO" || len(ch.data) < 8 {
			continue
		}
		s := pageSize{
			width:  int(binary.BigEndian.Uint16(ch.data[0:])),
			height: int(binary.BigEndian.Uint16(ch.data[2:])),
			// The resolution alone is little-endian.
			dpi: int(binary.LittleEndian.Uint16(ch.data[6:])),
		}
		if s.dpi < 25 || s.dpi > 6000 {
			// What djvulibre assumes of a page with a resolution out of
			// its range.
			s.dpi = 300
		}
		return s
	}
	return pageSize{}
}

// scale is the resolution to draw the page at: dpi, lowered to keep the
// image under maxDrawPixels.
func (s pageSize) scale(dpi float64) int {
	if s.width > 0 && s.height > 0 {
		px := float64(s.width) * float64(s.height) * dpi * dpi / float64(s.dpi*s.dpi)
		if px > maxDrawPixels {
			dpi *= math.Sqrt(maxDrawPixels / px)
		}
	}
	return max(1, int(dpi))
}

// readPGM reads a binary PGM (P5) of 8-bit samples, as ddjvu writes.
func readPGM(r io.Reader) (*image.Gray, error) {
	br := bufio.NewReader(r)
	var fields [4]int
	magic := make([]byte, 2)
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != "P5" {
		return nil, errors.New("not a binary PGM")
	}
	for i := 1; i < 4; i++ {
		n, err := pgmNumber(br)
		if err != nil {
			return nil, err
		}
		fields[i] = n
	}
	w, h, maxval := fields[1], fields[2], fields[3]
	if w <= 0 || h <= 0 || w*h > 4*maxDrawPixels || maxval <= 0 || maxval > 255 {
		return nil, fmt.Errorf("a PGM of %dx%d pixels up to %d", w, h, maxval)
	}
	img := image.NewGray(image.Rect(0, 0, w, h))
	if _, err := io.ReadFull(br, img.Pix); err != nil {
		return nil, fmt.Errorf("a PGM cut short: %w", err)
	}
	if maxval != 255 {
		for i, v := range img.Pix {
			img.Pix[i] = byte(int(v) * 255 / maxval)
		}
	}
	return img, nil
}

// pgmNumber reads a header number, skipping white space and comments,
// and the one white space character after it.
func pgmNumber(br *bufio.Reader) (int, error) {
	n, digits := 0, 0
	for {
		c, err := br.ReadByte()
		if err != nil {
			return 0, errors.New("a PGM header cut short")
		}
		switch {
		case c >= '0' && c <= '9':
			if n > 1<<20 {
				return 0, errors.New("a PGM header number too large")
			}
			n, digits = n*10+int(c-'0'), digits+1
		case c == '#' && digits == 0:
			if _, err := br.ReadString('\n'); err != nil {
				return 0, errors.New("a PGM header cut short")
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if digits > 0 {
				return n, nil
			}
		default:
			return 0, fmt.Errorf("a PGM header with %q", c)
		}
	}
}
