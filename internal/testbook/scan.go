package testbook

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image"
	"image/draw"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// ScanDPI is the resolution of the pages ScanPage draws.
const ScanDPI = 300

// ScanPage draws lines of text in Go Regular at 12 points on a US Letter
// page at 300 dpi, as a scanner would give a printed page.
func ScanPage(tb testing.TB, lines ...string) *image.Gray {
	tb.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		tb.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 12, DPI: ScanDPI, Hinting: font.HintingFull})
	if err != nil {
		tb.Fatal(err)
	}
	defer face.Close()
	img := image.NewGray(image.Rect(0, 0, 2550, 3300))
	draw.Draw(img, img.Rect, image.White, image.Point{}, draw.Src)
	d := &font.Drawer{Dst: img, Src: image.Black, Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(300, 400+i*80)
		d.DrawString(l)
	}
	return img
}

// SmearedPage draws lines as ScanPage does, then shifts each strip of
// three pixel rows sideways by up to nine pixels: a scan that slipped as
// it was fed, which OCR reads as words, most of them wrong and all with
// low confidence.
func SmearedPage(tb testing.TB, seed uint64, lines ...string) *image.Gray {
	tb.Helper()
	img := ScanPage(tb, lines...)
	const strip, amp = 3, 9
	r := rand.New(rand.NewPCG(seed, 2))
	w := img.Stride
	row := make([]byte, w)
	shift := 0
	for y := 0; y < img.Rect.Dy(); y++ {
		if y%strip == 0 {
			shift = r.IntN(2*amp+1) - amp
		}
		line := img.Pix[y*w : (y+1)*w]
		copy(row, line)
		for x := range line {
			if sx := x - shift; sx >= 0 && sx < w {
				line[x] = row[sx]
			} else {
				line[x] = 255
			}
		}
	}
	return img
}

// ScannedPage is a page of a book ScannedPDF or ScannedDjVu makes: a scan
// (an image and no text), or lines of text (a text layer).
type ScannedPage struct {
	Scan *image.Gray
	Text []string
}

// ScannedPDF returns a PDF of pages: a scan is a page whose content is
// only its image, drawn over the whole page as a 300 dpi scan; text is
// set in Helvetica.
func ScannedPDF(tb testing.TB, pages ...ScannedPage) []byte {
	tb.Helper()
	var objs []string
	add := func(s string) int {
		objs = append(objs, s)
		return len(objs)
	}
	add("<< /Type /Catalog /Pages 2 0 R >>")
	add("") // the page tree, once its kids are known
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	var kids []string
	for _, p := range pages {
		var content, res, box string
		if p.Scan != nil {
			w, h := p.Scan.Rect.Dx(), p.Scan.Rect.Dy()
			wpt, hpt := float64(w)*72/ScanDPI, float64(h)*72/ScanDPI
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write(p.Scan.Pix)
			zw.Close()
			img := add(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream", w, h, z.Len(), z.Bytes()))
			content = fmt.Sprintf("q %.2f 0 0 %.2f 0 0 cm /Im0 Do Q", wpt, hpt)
			res = fmt.Sprintf("<< /XObject << /Im0 %d 0 R >> >>", img)
			box = fmt.Sprintf("[0 0 %.2f %.2f]", wpt, hpt)
		} else {
			var sb strings.Builder
			sb.WriteString("BT /F1 12 Tf 16 TL 72 720 Td")
			for _, l := range p.Text {
				fmt.Fprintf(&sb, " (%s) Tj T*", pdfString(l))
			}
			sb.WriteString(" ET")
			content = sb.String()
			res = fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", font)
			box = "[0 0 612 792]"
		}
		c := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
		pg := add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox %s /Resources %s /Contents %d 0 R >>", box, res, c))
		kids = append(kids, fmt.Sprintf("%d 0 R", pg))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return out.Bytes()
}

func pdfString(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}

// ScannedDjVu returns a bundled DjVu document of pages: a scan is a page
// whose image is a JB2 bilevel mask and that has no text layer, encoded
// by djvulibre's cjb2; text is a hidden text layer over a blank page. The
// pages are bundled by djvulibre's djvm, so that its ddjvu draws them; the
// test skips where djvulibre is not installed.
func ScannedDjVu(tb testing.TB, title string, pages ...ScannedPage) []byte {
	tb.Helper()
	djvm, err := exec.LookPath("djvm")
	if err != nil {
		tb.Skip("djvm (djvulibre-bin) is not installed; skipping")
	}
	dir := tb.TempDir()
	args := []string{"-c", filepath.Join(dir, "book.djvu")}
	for i, p := range pages {
		var page []byte
		if p.Scan != nil {
			page = jb2Page(tb, p.Scan)
		} else {
			// 2550 by 3300 pixels, version 24, 300 dpi (little-endian),
			// gamma 2.2, upright.
			page = iffChunk("INFO", []byte{0x09, 0xf6, 0x0c, 0xe4, 24, 0, 0x2c, 0x01, 22, 1})
			page = append(page, iffChunk("TXTa", djvuText(strings.Join(p.Text, "\n")))...)
		}
		if i == 0 {
			page = append(page, iffChunk("ANTa", fmt.Appendf(nil, "(metadata (title %q) (author \"Test Author\"))", title))...)
		}
		file := filepath.Join(dir, fmt.Sprintf("p%04d.djvu", i+1))
		if err := os.WriteFile(file, append([]byte("AT&T"), iffChunk("FORM", append([]byte("DJVU"), page...))...), 0o644); err != nil {
			tb.Fatal(err)
		}
		args = append(args, file)
	}
	if msg, err := exec.Command(djvm, args...).CombinedOutput(); err != nil {
		tb.Fatalf("djvm: %v: %s", err, msg)
	}
	data, err := os.ReadFile(args[1])
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// jb2Page is the chunks of a one-page DjVu that cjb2 makes of img, as
// black and white: its INFO and its JB2 mask.
func jb2Page(tb testing.TB, img *image.Gray) []byte {
	tb.Helper()
	cjb2, err := exec.LookPath("cjb2")
	if err != nil {
		tb.Skip("cjb2 (djvulibre-bin) is not installed; skipping")
	}
	dir := tb.TempDir()
	w, h := img.Rect.Dx(), img.Rect.Dy()
	pbm := fmt.Appendf(nil, "P4\n%d %d\n", w, h)
	stride := (w + 7) / 8
	for y := range h {
		row := make([]byte, stride)
		for x := range w {
			if img.GrayAt(x, y).Y < 128 {
				row[x/8] |= 0x80 >> (x % 8)
			}
		}
		pbm = append(pbm, row...)
	}
	in, out := filepath.Join(dir, "page.pbm"), filepath.Join(dir, "page.djvu")
	if err := os.WriteFile(in, pbm, 0o644); err != nil {
		tb.Fatal(err)
	}
	if msg, err := exec.Command(cjb2, "-dpi", fmt.Sprint(ScanDPI), in, out).CombinedOutput(); err != nil {
		tb.Fatalf("cjb2: %v: %s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	// AT&T, FORM, its length, DJVU: the page's chunks follow.
	if len(data) < 16 || string(data[:4]) != "AT&T" || string(data[12:16]) != "DJVU" {
		tb.Fatalf("cjb2 made no single-page DjVu: %q", data[:min(len(data), 16)])
	}
	page := data[16:]
	if len(page)%2 == 1 {
		// The last chunk's pad byte, which a file may leave out.
		page = append(page, 0)
	}
	return page
}
