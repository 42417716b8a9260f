// Package testbook makes small books in the formats grimoire reads, for
// tests that need a real file of a format without the shared corpus.
package testbook

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"html"
	"strings"
	"testing"
	"unicode/utf16"
)

// EPUB returns an EPUB 3 with the given title and one chapter holding text.
func EPUB(tb testing.TB, title, text string) []byte {
	tb.Helper()
	return EPUBWith(tb, title, text, "")
}

// EPUBWith returns an EPUB as EPUB does, with metadata (OPF elements, as
// dc:subject or meta) added to its package's metadata.
func EPUBWith(tb testing.TB, title, text, metadata string) []byte {
	tb.Helper()
	return zipOf(tb, []entry{
		// The mimetype comes first and uncompressed, as readers expect.
		{"mimetype", "application/epub+zip"},
		{"META-INF/container.xml", `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`},
		{"OEBPS/content.opf", `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:testbook</dc:identifier>
    <dc:title>` + html.EscapeString(title) + `</dc:title>
    ` + metadata + `
  </metadata>
  <manifest><item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>
  <spine><itemref idref="c1"/></spine>
</package>`},
		{"OEBPS/c1.xhtml", `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>One</title></head>
<body><h1>One</h1><p>` + html.EscapeString(text) + `</p></body></html>`},
	})
}

// entry is one file of an archive.
type entry struct{ name, body string }

// zipOf stores entries in a zip archive, in order and uncompressed.
func zipOf(tb testing.TB, entries []entry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Store})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write([]byte(e.body)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// MOBI returns a Mobipocket (MOBI6) book with the given title and one
// chapter holding text, its text records uncompressed.
func MOBI(tb testing.TB, title, text string) []byte {
	tb.Helper()
	return kindle(title, "<h2>One</h2><p>"+html.EscapeString(text)+"</p>", 6)
}

// AZW3 returns a KF8 book with the given title and one chapter holding
// text: one XHTML file, without the skeleton and fragment indexes that
// readers do without.
func AZW3(tb testing.TB, title, text string) []byte {
	tb.Helper()
	return kindle(title, `<h1>One</h1><p>`+html.EscapeString(text)+`</p>`, 8)
}

// kindle writes a Palm database of a header record, the text records and
// no index, with the MOBI header version given.
func kindle(title, body string, version uint32) []byte {
	be := binary.BigEndian
	text := []byte("<html><head><title>" + html.EscapeString(title) + "</title></head><body>" + body + "</body></html>")
	var records [][]byte
	for at := 0; at < len(text); at += 4096 {
		records = append(records, text[at:min(at+4096, len(text))])
	}
	r0 := make([]byte, 16+232)
	be.PutUint16(r0[0:], 1) // uncompressed
	be.PutUint32(r0[4:], uint32(len(text)))
	be.PutUint16(r0[8:], uint16(len(records)))
	be.PutUint16(r0[10:], 4096)
	copy(r0[16:], "MOBI")
	be.PutUint32(r0[20:], 232)
	be.PutUint32(r0[24:], 2)
	be.PutUint32(r0[28:], 65001)
	be.PutUint32(r0[36:], version)
	for _, off := range []int{0x50, 0x70, 0xC0, 0xF4} {
		be.PutUint32(r0[off:], 0xFFFFFFFF)
	}
	be.PutUint32(r0[0x80:], 0x40)
	exth := []byte("EXTH")
	exth = be.AppendUint32(exth, uint32(12+8+len(title)))
	exth = be.AppendUint32(exth, 1)
	exth = be.AppendUint32(exth, 503)
	exth = be.AppendUint32(exth, uint32(8+len(title)))
	exth = append(exth, title...)
	r0 = append(r0, exth...)
	records = append([][]byte{r0}, records...)

	out := make([]byte, 78+8*len(records)+2)
	copy(out, "TESTBOOK")
	copy(out[60:], "BOOKMOBI")
	be.PutUint16(out[76:], uint16(len(records)))
	off := len(out)
	for i, r := range records {
		be.PutUint32(out[78+8*i:], uint32(off))
		off += len(r)
	}
	for _, r := range records {
		out = append(out, r...)
	}
	return out
}

// RTF returns an RTF document with the given title and one heading and
// paragraph holding text.
func RTF(tb testing.TB, title, text string) []byte {
	tb.Helper()
	escape := func(s string) string {
		var sb strings.Builder
		for _, r := range s {
			switch {
			case r == '\\' || r == '{' || r == '}':
				sb.WriteString(`\` + string(r))
			case r > 127:
				for _, u := range utf16.Encode([]rune{r}) {
					fmt.Fprintf(&sb, `\u%d?`, int16(u))
				}
			default:
				sb.WriteRune(r)
			}
		}
		return sb.String()
	}
	return []byte(`{\rtf1\ansi\ansicpg1252{\info{\title ` + escape(title) + `}}` + "\n" +
		`{\pard\outlinelevel0 One\par}` + "\n" + `{\pard ` + escape(text) + `\par}` + "\n}")
}

// FB2 returns a FictionBook with the given title and one section holding
// text.
func FB2(tb testing.TB, title, text string) []byte {
	tb.Helper()
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<FictionBook xmlns="http://www.gribuser.ru/xml/fictionbook/2.0">
<description><title-info><book-title>` + html.EscapeString(title) + `</book-title><lang>en</lang></title-info></description>
<body><section><title><p>One</p></title><p>` + html.EscapeString(text) + `</p></section></body>
</FictionBook>`)
}

// FB2Zip returns FB2's book in a zip archive, as .fb2.zip files hold it.
func FB2Zip(tb testing.TB, title, text string) []byte {
	tb.Helper()
	return zipOf(tb, []entry{{"book.fb2", string(FB2(tb, title, text))}})
}

// DOCX returns a Word document with the given title and a heading over one
// paragraph holding text.
func DOCX(tb testing.TB, title, text string) []byte {
	tb.Helper()
	const w = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	return zipOf(tb, []entry{
		{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"docProps/core.xml", `<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` +
			html.EscapeString(title) + `</dc:title></cp:coreProperties>`},
		{"word/document.xml", `<?xml version="1.0"?><w:document ` + w + `><w:body>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>One</w:t></w:r></w:p>
<w:p><w:r><w:t>` + html.EscapeString(text) + `</w:t></w:r></w:p></w:body></w:document>`},
	})
}

// ODT returns an OpenDocument text with the given title and a heading over
// one paragraph holding text.
func ODT(tb testing.TB, title, text string) []byte {
	tb.Helper()
	const ns = `xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"`
	return zipOf(tb, []entry{
		{"mimetype", "application/vnd.oasis.opendocument.text"},
		{"meta.xml", `<?xml version="1.0"?><office:document-meta ` + ns + ` xmlns:dc="http://purl.org/dc/elements/1.1/"><office:meta><dc:title>` +
			html.EscapeString(title) + `</dc:title></office:meta></office:document-meta>`},
		{"content.xml", `<?xml version="1.0"?><office:document-content ` + ns + `><office:body><office:text>
<text:h text:outline-level="1">One</text:h><text:p>` + html.EscapeString(text) + `</text:p></office:text></office:body></office:document-content>`},
	})
}

// HTML returns a saved web page with the given title and a heading over
// one paragraph holding text, with navigation around it.
func HTML(tb testing.TB, title, text string) []byte {
	tb.Helper()
	return []byte(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>` + html.EscapeString(title) + `</title></head>
<body><nav><a href="/">Home</a></nav><main><h1>One</h1><p>` + html.EscapeString(text) + `</p></main><footer>Site footer</footer></body></html>`)
}

// HTMLZ returns calibre's zipped HTML: a page with a heading over one
// paragraph holding text, and a metadata.opf with the given title.
func HTMLZ(tb testing.TB, title, text string) []byte {
	tb.Helper()
	return zipOf(tb, []entry{
		{"index.html", `<html><head><title>index</title></head><body><h1>One</h1><p>` + html.EscapeString(text) + `</p></body></html>`},
		{"metadata.opf", `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` +
			html.EscapeString(title) + `</dc:title></metadata></package>`},
	})
}

// DjVu returns a bundled DjVu document with the given title and one page
// for each of pages, whose text is its hidden text layer (TXTa, with page,
// paragraph and line zones): paragraphs separated by blank lines, lines by
// line feeds. The metadata is in an ANTa chunk of the first page. Nothing
// is BZZ-compressed: the directory's compressed part is left empty, which
// readers take as components without names.
func DjVu(tb testing.TB, title string, pages ...string) []byte {
	tb.Helper()
	var forms [][]byte
	for i, p := range pages {
		page := iffChunk("INFO", make([]byte, 10))
		if i == 0 {
			page = append(page, iffChunk("ANTa", fmt.Appendf(nil, "(metadata (title %q) (author \"Test Author\"))", title))...)
		}
		page = append(page, iffChunk("TXTa", djvuText(p))...)
		forms = append(forms, iffChunk("FORM", append([]byte("DJVU"), page...)))
	}
	return bundle(forms)
}

// bundle is a bundled DjVu document of page forms, its directory's
// compressed part left empty.
func bundle(forms [][]byte) []byte {
	dirm := []byte{0x81, byte(len(forms) >> 8), byte(len(forms))}
	dirm = append(dirm, make([]byte, 4*len(forms))...)
	body := append([]byte("DJVM"), iffChunk("DIRM", dirm)...)
	for _, f := range forms {
		body = append(body, f...)
	}
	return append([]byte("AT&T"), iffChunk("FORM", body)...)
}

// iffChunk is an IFF chunk: id, big-endian length, data, padded to even.
func iffChunk(id string, data []byte) []byte {
	out := append([]byte(id), binary.BigEndian.AppendUint32(nil, uint32(len(data)))...)
	out = append(out, data...)
	if len(data)%2 == 1 {
		out = append(out, 0)
	}
	return out
}

// djvuText is a TXTa chunk's data: the text, its version, and the zones
// of the page, its paragraphs and their lines.
func djvuText(page string) []byte {
	var text []byte
	type span struct{ start, end int }
	var paras []span
	var lines [][]span
	for _, para := range strings.Split(strings.TrimSpace(page), "\n\n") {
		p := span{start: len(text)}
		var ls []span
		for _, l := range strings.Split(para, "\n") {
			s := len(text)
			text = append(text, l...)
			text = append(text, '\n')
			ls = append(ls, span{s, len(text)})
		}
		p.end = len(text)
		text = append(text, 0x1f) // paragraph separator
		paras = append(paras, p)
		lines = append(lines, ls)
	}
	zone := func(typ byte, delta, length, children int) []byte {
		z := []byte{typ, 0x80, 0, 0x80, 0, 0x80, 0, 0x80, 0}
		z = binary.BigEndian.AppendUint16(z, uint16(0x8000+delta))
		z = append(z, byte(length>>16), byte(length>>8), byte(length))
		return append(z, byte(children>>16), byte(children>>8), byte(children))
	}
	out := []byte{byte(len(text) >> 16), byte(len(text) >> 8), byte(len(text))}
	out = append(out, text...)
	out = append(out, 1) // version
	out = append(out, zone(1, 0, len(text), len(paras))...)
	prevEnd := 0
	for i, p := range paras {
		out = append(out, zone(4, p.start-prevEnd, p.end-p.start, len(lines[i]))...)
		prevEnd = p.end
		lineEnd := p.start
		for _, l := range lines[i] {
			out = append(out, zone(5, l.start-lineEnd, l.end-l.start, 0)...)
			lineEnd = l.end
		}
	}
	return out
}
