package bomb

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"io"
)

// EPUBs returns zip bombs and an entity bomb, by file name: a chapter that
// inflates to size bytes with an honest header, the same with a header
// that claims a few bytes, and a chapter whose DTD nests entities a
// billion characters deep.
func EPUBs(size int64) map[string][]byte {
	sum := crc32.NewIEEE()
	prefix := "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body><p>"
	raw := deflated(prefix, Spaces, size, sum)
	inflated := uint64(len(prefix)) + uint64(size)
	return map[string][]byte{
		"zip-bomb.epub":       epub(rawEntry{data: raw, crc: sum.Sum32(), size: inflated}),
		"zip-bomb-lying.epub": epub(rawEntry{data: raw, crc: sum.Sum32(), size: 1000}),
		"entity-bomb.epub":    epub(rawEntry{plain: entityBomb}),
	}
}

// rawEntry is the chapter: either plain text, or deflated data with the
// checksum and size its header states.
type rawEntry struct {
	plain string
	data  []byte
	crc   uint32
	size  uint64
}

const entityBomb = `<?xml version="1.0"?>
<!DOCTYPE html [
<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
<!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
]>
<html xmlns="http://www.w3.org/1999/xhtml"><body><p>&f;</p><p>Words after the bomb.</p></body></html>
`

const (
	container = `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>
`
	opf = `<?xml version="1.0"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">bomb</dc:identifier><dc:title>Bomb</dc:title><dc:language>en</dc:language></metadata>
<manifest><item id="ch1" href="ch1.xhtml" media-type="application/xhtml+xml"/></manifest>
<spine><itemref idref="ch1"/></spine>
</package>
`
)

func epub(ch rawEntry) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, body string, method uint16) {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		io.WriteString(w, body)
	}
	add("mimetype", "application/epub+zip", zip.Store)
	add("META-INF/container.xml", container, zip.Deflate)
	add("OEBPS/content.opf", opf, zip.Deflate)
	if ch.data == nil {
		add("OEBPS/ch1.xhtml", ch.plain, zip.Deflate)
	} else {
		w, _ := zw.CreateRaw(&zip.FileHeader{Name: "OEBPS/ch1.xhtml", Method: zip.Deflate, CRC32: ch.crc,
			CompressedSize64: uint64(len(ch.data)), UncompressedSize64: ch.size})
		w.Write(ch.data)
	}
	zw.Close()
	return buf.Bytes()
}
