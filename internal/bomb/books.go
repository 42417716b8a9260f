package bomb

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
)

// Paragraphs is a filler of short paragraphs of text, as a book that
// repeats itself holds.
const Paragraphs = "<p>All work and no play makes Jack a dull boy.</p>\n"

// InflatingEPUB returns an EPUB of chapters spine documents, each a body
// of Paragraphs that inflates to size bytes: a book of a few kilobytes
// whose text is chapters times size.
func InflatingEPUB(chapters int, size int64) []byte {
	return epubOf(chapters, "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body>", Paragraphs, size)
}

// OneWordEPUB returns an EPUB of one untitled chapter whose text is one
// word of n letters, deflated.
func OneWordEPUB(n int64) []byte {
	return epubOf(1, "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body><p>", "a", n)
}

func epubOf(chapters int, prefix, unit string, size int64) []byte {
	sum := crc32.NewIEEE()
	raw := deflated(prefix, unit, size, sum)
	inflated := uint64(len(prefix)) + uint64(size/int64(len(unit))*int64(len(unit)))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, body string, method uint16) {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		io.WriteString(w, body)
	}
	var manifest, spine strings.Builder
	for i := range chapters {
		fmt.Fprintf(&manifest, `<item id="ch%d" href="ch%d.xhtml" media-type="application/xhtml+xml"/>`, i, i)
		fmt.Fprintf(&spine, `<itemref idref="ch%d"/>`, i)
	}
	add("mimetype", "application/epub+zip", zip.Store)
	add("META-INF/container.xml", container, zip.Deflate)
	add("OEBPS/content.opf", `<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">inflating</dc:identifier><dc:title>Inflating</dc:title></metadata>
<manifest>`+manifest.String()+`</manifest><spine>`+spine.String()+`</spine>
</package>
`, zip.Deflate)
	for i := range chapters {
		w, _ := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("OEBPS/ch%d.xhtml", i), Method: zip.Deflate, CRC32: sum.Sum32(),
			CompressedSize64: uint64(len(raw)), UncompressedSize64: inflated})
		w.Write(raw)
	}
	zw.Close()
	return buf.Bytes()
}

// Sentence is a filler of running text.
const Sentence = "All work and no play makes Jack a dull boy. "

// InflatingDOCX returns a Word document of a few hundred kilobytes whose
// body and whose one footnote, cited once, are each a paragraph of size
// bytes of text: twice size in all.
func InflatingDOCX(size int64) []byte {
	const w = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, body string) {
		fw, _ := zw.Create(name)
		io.WriteString(fw, body)
	}
	raw := func(name, prefix, suffix string) {
		sum := crc32.NewIEEE()
		data := deflatedWith(prefix, Sentence, suffix, size, sum)
		n := uint64(len(prefix)+len(suffix)) + uint64(size/int64(len(Sentence))*int64(len(Sentence)))
		fw, _ := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: sum.Sum32(),
			CompressedSize64: uint64(len(data)), UncompressedSize64: n})
		fw.Write(data)
	}
	add("[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`)
	add("_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`)
	add("word/_rels/document.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/></Relationships>`)
	raw("word/footnotes.xml", `<?xml version="1.0"?><w:footnotes `+w+`><w:footnote w:id="1"><w:p><w:r><w:t>`, `</w:t></w:r></w:p></w:footnote></w:footnotes>`)
	raw("word/document.xml", `<?xml version="1.0"?><w:document `+w+`><w:body><w:p><w:r><w:t>`,
		`</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r></w:p></w:body></w:document>`)
	zw.Close()
	return buf.Bytes()
}
