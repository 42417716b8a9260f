package bomb

import (
	"bytes"
	"fmt"
	"strings"
)

// Place says where a PDF's bomb is.
type Place int

const (
	// Content is a second content stream of the page.
	Content Place = iota
	// Form is a Form XObject that the page draws.
	Form
	// ToUnicode is the ToUnicode CMap of a font the page's text uses.
	ToUnicode
	// FontFile is the embedded program (FontFile2) of a font the page's
	// text uses.
	FontFile
	// Image is an image XObject that the page draws.
	Image
	// ObjectStream is an object stream holding a font the page's text
	// uses, padded after the font; on the first page it also holds the
	// catalog.
	ObjectStream
)

var placeNames = [...]string{"content", "form", "tounicode", "fontfile", "image", "objstm"}

func (p Place) String() string {
	if int(p) < len(placeNames) {
		return placeNames[p]
	}
	return fmt.Sprintf("place(%d)", int(p))
}

// PDF describes a hostile PDF: Pages pages with a few lines of text each,
// Bombs of which, from the 0-based page First on, also carry a stream at
// Where that inflates to Size bytes of Unit (Spaces when empty). Every
// bomb is its own object. A Form bomb is drawn Draws times (at least
// once).
type PDF struct {
	Pages int
	First int
	Bombs int
	Where Place
	Size  int64
	Unit  string
	Draws int
	// Stray, when set, is the body of one more object that nothing refers
	// to: a reader that reads every object meets it, one that reads what
	// the pages need never does.
	Stray string
}

// Bytes writes the PDF. It has a cross-reference stream, so that objects
// may live in object streams.
func (p PDF) Bytes() []byte {
	w := &pdfWriter{}
	w.buf.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	const catalog, pages, helvetica = 1, 2, 3
	next := 4
	alloc := func() int { next++; return next - 1 }

	// One compressed bomb serves every page; an object stream's differs
	// per page, as its header names the object.
	var bombStream []byte
	if p.Bombs > 0 && p.Where != ObjectStream {
		prefix := ""
		if p.Where == ToUnicode {
			prefix = toUnicodePrefix
		}
		bombStream = Zlib(prefix, p.Unit, p.Size)
	}

	kids := make([]int, p.Pages)
	for i := range kids {
		kids[i] = alloc()
	}
	for i, page := range kids {
		text := alloc()
		fontRes := fmt.Sprintf("/F1 %d 0 R", helvetica)
		xobjects := ""
		contents := fmt.Sprintf("%d 0 R", text)
		draw := ""
		font := "F1"
		if i >= p.First && i < p.First+p.Bombs {
			switch p.Where {
			case Content:
				b := alloc()
				w.flate(b, "", bombStream)
				contents = fmt.Sprintf("[%d 0 R %d 0 R]", text, b)
			case Form:
				b := alloc()
				w.flate(b, "/Type /XObject /Subtype /Form /BBox [0 0 612 792]", bombStream)
				xobjects = fmt.Sprintf("/XObject << /Fm1 %d 0 R >>", b)
				draw = strings.Repeat("q /Fm1 Do Q\n", max(1, p.Draws))
			case Image:
				b := alloc()
				width := int64(4096)
				w.flate(b, fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8", width, max(1, p.Size/width)), bombStream)
				xobjects = fmt.Sprintf("/XObject << /Im1 %d 0 R >>", b)
				draw = "q 100 0 0 100 300 100 cm /Im1 Do Q\n"
			case ToUnicode:
				f, cmap := alloc(), alloc()
				w.object(f, fmt.Sprintf("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode %d 0 R >>", cmap))
				w.flate(cmap, "", bombStream)
				fontRes += fmt.Sprintf(" /F2 %d 0 R", f)
				font = "F2"
			case FontFile:
				f, desc, prog := alloc(), alloc(), alloc()
				w.object(f, fmt.Sprintf("<< /Type /Font /Subtype /TrueType /BaseFont /Bomb /FirstChar 32 /LastChar 126 /Widths [%s] /Encoding /WinAnsiEncoding /FontDescriptor %d 0 R >>",
					strings.TrimSpace(strings.Repeat("500 ", 95)), desc))
				w.object(desc, fmt.Sprintf("<< /Type /FontDescriptor /FontName /Bomb /Flags 32 /FontBBox [0 -200 1000 800] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 %d 0 R >>", prog))
				w.flate(prog, fmt.Sprintf("/Length1 %d", p.Size), bombStream)
				fontRes += fmt.Sprintf(" /F2 %d 0 R", f)
				font = "F2"
			case ObjectStream:
				// On the first page it also holds the catalog, which a
				// reader needs to open the document at all.
				f, stm := alloc(), alloc()
				objs := []string{"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>\n"}
				nums := []int{f}
				if i == 0 {
					objs = append(objs, catalogDict(pages)+"\n")
					nums = append(nums, catalog)
				}
				header, body := "", ""
				for k, o := range objs {
					header += fmt.Sprintf("%d %d ", nums[k], len(body))
					body += o
					w.compressed(nums[k], stm, k)
				}
				w.flate(stm, fmt.Sprintf("/Type /ObjStm /N %d /First %d", len(objs), len(header)), Zlib(header+body, p.Unit, p.Size))
				fontRes += fmt.Sprintf(" /F2 %d 0 R", f)
				font = "F2"
			}
		}
		w.stream(text, "", []byte(draw+pageText(i+1, font)))
		w.object(page, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %s /Resources << /Font << %s >> %s >> >>",
			pages, contents, fontRes, xobjects))
	}
	if _, ok := w.inStream[catalog]; !ok {
		w.object(catalog, catalogDict(pages))
	}
	refs := make([]string, len(kids))
	for i, k := range kids {
		refs[i] = fmt.Sprintf("%d 0 R", k)
	}
	w.object(pages, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(refs, " "), len(kids)))
	w.object(helvetica, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	if p.Stray != "" {
		w.object(alloc(), p.Stray)
	}
	w.finish(alloc(), catalog)
	return w.buf.Bytes()
}

func catalogDict(pages int) string { return fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages) }

// pageText sets a few lines that say which page they are on.
func pageText(n int, font string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "BT /%s 12 Tf 72 720 Td 14 TL\n", font)
	for l := range 6 {
		fmt.Fprintf(&b, "(Page %d, line %d: a book that hides a bomb still has words worth reading.) '\n", n, l+1)
	}
	b.WriteString("ET\n")
	return b.String()
}

// toUnicodePrefix is a working CMap; the filler follows it.
const toUnicodePrefix = `/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CMapName /Bomb def
/CMapType 2 def
1 begincodespacerange
<00> <FF>
endcodespacerange
1 beginbfrange
<20> <7E> <0020>
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end
`

// pdfWriter writes numbered objects and remembers where they are.
type pdfWriter struct {
	buf bytes.Buffer
	// offset of objects written at top level; inStream of those kept in
	// an object stream (stream object number, index).
	offset   map[int]int
	inStream map[int][2]int
}

func (w *pdfWriter) object(num int, body string) {
	if w.offset == nil {
		w.offset = map[int]int{}
	}
	w.offset[num] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n%s\nendobj\n", num, body)
}

// stream writes a stream object of plain data.
func (w *pdfWriter) stream(num int, dict string, data []byte) {
	w.streamWith(num, dict, "", data)
}

// flate writes a stream object of zlib data.
func (w *pdfWriter) flate(num int, dict string, data []byte) {
	w.streamWith(num, dict, " /Filter /FlateDecode", data)
}

func (w *pdfWriter) streamWith(num int, dict, filter string, data []byte) {
	if w.offset == nil {
		w.offset = map[int]int{}
	}
	w.offset[num] = w.buf.Len()
	fmt.Fprintf(&w.buf, "%d 0 obj\n<< %s%s /Length %d >>\nstream\n", num, dict, filter, len(data))
	w.buf.Write(data)
	w.buf.WriteString("\nendstream\nendobj\n")
}

func (w *pdfWriter) compressed(num, stream, index int) {
	if w.inStream == nil {
		w.inStream = map[int][2]int{}
	}
	w.inStream[num] = [2]int{stream, index}
}

// finish writes the cross-reference stream as object num, and the trailer.
func (w *pdfWriter) finish(num, root int) {
	start := w.buf.Len()
	w.offset[num] = start
	size := num + 1
	var x bytes.Buffer
	for i := range size {
		if o, ok := w.offset[i]; ok {
			x.Write([]byte{1, byte(o >> 24), byte(o >> 16), byte(o >> 8), byte(o), 0, 0})
		} else if s, ok := w.inStream[i]; ok {
			x.Write([]byte{2, byte(s[0] >> 24), byte(s[0] >> 16), byte(s[0] >> 8), byte(s[0]), byte(s[1] >> 8), byte(s[1])})
		} else {
			x.Write([]byte{0, 0, 0, 0, 0, 0xFF, 0xFF})
		}
	}
	fmt.Fprintf(&w.buf, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root %d 0 R /Length %d >>\nstream\n", num, size, root, x.Len())
	w.buf.Write(x.Bytes())
	fmt.Fprintf(&w.buf, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", start)
}
