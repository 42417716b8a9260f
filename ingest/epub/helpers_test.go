package epub

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// entry is one file of a test archive.
type entry struct {
	name string
	body string
	// deflate compresses the entry; tests that look at content bytes (the
	// fuzz seeds) store it.
	deflate bool
	// noCRC writes a zero checksum, which archive/zip does not verify, so
	// that a fuzzer's changes to the stored bytes survive reading.
	noCRC bool
}

// zipOf writes entries into a zip archive, in order.
func zipOf(tb testing.TB, entries ...entry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		var err error
		switch {
		case e.noCRC:
			var w interface{ Write([]byte) (int, error) }
			w, err = zw.CreateRaw(&zip.FileHeader{
				Name: e.name, Method: zip.Store,
				CompressedSize64: uint64(len(e.body)), UncompressedSize64: uint64(len(e.body)),
			})
			if err == nil {
				_, err = w.Write([]byte(e.body))
			}
		default:
			method := zip.Store
			if e.deflate {
				method = zip.Deflate
			}
			var w interface{ Write([]byte) (int, error) }
			w, err = zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: method})
			if err == nil {
				_, err = w.Write([]byte(e.body))
			}
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// testBook describes an EPUB for a test; bytes lays it out as a real book
// would be: mimetype first, container, package document, documents.
type testBook struct {
	opfPath  string // default OEBPS/content.opf
	version  string // default 3.0
	metadata string // the inside of <metadata>; default a title
	docs     []testDoc
	// nav is the body of an EPUB 3 navigation document, stored as
	// nav.xhtml next to the OPF; navInSpine also lists it in the spine.
	nav        string
	navInSpine bool
	// ncx is the inside of an NCX navMap, stored as toc.ncx.
	ncx string
	// extra entries, and manifest items that are not in the spine.
	extra    []entry
	manifest string
	// spine replaces the itemrefs made from docs.
	spine string
	// noCRC stores every entry without a checksum (fuzz seeds).
	noCRC bool
}

type testDoc struct {
	href string // relative to the OPF, as written in the manifest
	// file is the name in the archive, relative to the OPF; default href.
	file   string
	body   string // the inside of <body>; see page for a whole document
	raw    string // the whole document, instead of body
	linear string // "no" for a non-linear spine item
}

func page(title, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>` + title + `</title><link rel="stylesheet" href="s.css"/></head>
<body>` + body + `</body>
</html>`
}

func (b testBook) bytes(tb testing.TB) []byte {
	tb.Helper()
	opf := b.opfPath
	if opf == "" {
		opf = "OEBPS/content.opf"
	}
	dir := ""
	if i := strings.LastIndex(opf, "/"); i >= 0 {
		dir = opf[:i+1]
	}
	version := b.version
	if version == "" {
		version = "3.0"
	}
	meta := b.metadata
	if meta == "" {
		meta = `<dc:title>Test Book</dc:title>`
	}
	var manifest, spine strings.Builder
	entries := []entry{
		{name: "mimetype", body: "application/epub+zip"},
		{name: "META-INF/container.xml", body: `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="` + opf + `" media-type="application/oebps-package+xml"/></rootfiles>
</container>`},
	}
	var files []entry
	for i, d := range b.docs {
		id := fmt.Sprintf("d%d", i+1)
		fmt.Fprintf(&manifest, "    <item id=%q href=%q media-type=\"application/xhtml+xml\"/>\n", id, d.href)
		linear := ""
		if d.linear != "" {
			linear = fmt.Sprintf(" linear=%q", d.linear)
		}
		fmt.Fprintf(&spine, "    <itemref idref=%q%s/>\n", id, linear)
		file := d.file
		if file == "" {
			file = d.href
		}
		body := d.raw
		if body == "" {
			body = page(fmt.Sprintf("Doc %d", i+1), d.body)
		}
		files = append(files, entry{name: dir + file, body: body, deflate: true})
	}
	spineAttr := ""
	if b.nav != "" {
		manifest.WriteString(`    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>` + "\n")
		if b.navInSpine {
			spine.WriteString(`    <itemref idref="nav"/>` + "\n")
		}
		files = append(files, entry{name: dir + "nav.xhtml", body: page("Contents", b.nav), deflate: true})
	}
	if b.ncx != "" {
		manifest.WriteString(`    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>` + "\n")
		spineAttr = ` toc="ncx"`
		files = append(files, entry{name: dir + "toc.ncx", body: `<?xml version="1.0" encoding="UTF-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">
<head><meta name="dtb:uid" content="x"/></head>
<docTitle><text>T</text></docTitle>
<navMap>` + b.ncx + `</navMap>
</ncx>`, deflate: true})
	}
	manifest.WriteString(b.manifest)
	if b.spine != "" {
		spine.Reset()
		spine.WriteString(b.spine + "\n")
	}
	entries = append(entries, entry{name: opf, body: `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="` + version + `" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
    <dc:identifier id="uid">urn:uuid:test</dc:identifier>
    ` + meta + `
  </metadata>
  <manifest>
` + manifest.String() + `  </manifest>
  <spine` + spineAttr + `>
` + spine.String() + `  </spine>
</package>`})
	entries = append(entries, files...)
	entries = append(entries, b.extra...)
	if b.noCRC {
		for i := range entries {
			entries[i].noCRC = true
		}
	}
	return zipOf(tb, entries...)
}

func mustParse(tb testing.TB, data []byte) *doc.Document {
	tb.Helper()
	d, err := Parse(context.Background(), data)
	if err != nil {
		tb.Fatalf("Parse: %v", err)
	}
	checkInvariants(tb, d)
	return d
}

// checkInvariants verifies what every parse must guarantee, whatever the
// input: valid UTF-8 without NULs, no empty chapter, section or block, and
// an anchor on each of them that names a document, with at most one
// fragment.
func checkInvariants(tb testing.TB, d *doc.Document) {
	tb.Helper()
	if d == nil {
		tb.Fatal("nil document")
	}
	if d.SourceType != doc.EPUB {
		tb.Errorf("SourceType = %q", d.SourceType)
	}
	checkString := func(what, s string) {
		tb.Helper()
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			tb.Errorf("%s: invalid text %q", what, s)
		}
	}
	checkAnchor := func(what, a string) {
		tb.Helper()
		p, _, _ := strings.Cut(a, "#")
		if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "..") {
			tb.Errorf("%s: bad anchor %q", what, a)
		}
		checkString(what+" anchor", a)
	}
	checkString("title", d.Title)
	checkString("language", d.Language)
	for _, a := range d.Authors {
		checkString("author", a)
		if strings.TrimSpace(a) == "" {
			tb.Error("empty author")
		}
	}
	for ci, ch := range d.Chapters {
		what := fmt.Sprintf("chapter %d %q", ci, ch.Title)
		checkString(what, ch.Title)
		checkAnchor(what, ch.Anchor)
		if len(ch.Sections) == 0 {
			tb.Errorf("%s has no sections", what)
		}
		for si, s := range ch.Sections {
			what := fmt.Sprintf("section %d.%d %q", ci, si, s.Title)
			checkString(what, s.Title)
			checkAnchor(what, s.Anchor)
			if len(s.Blocks) == 0 {
				tb.Errorf("%s has no blocks", what)
			}
			for bi, b := range s.Blocks {
				what := fmt.Sprintf("block %d.%d.%d", ci, si, bi)
				if strings.TrimSpace(b.Text) == "" {
					tb.Errorf("%s is empty", what)
				}
				if b.Text != strings.TrimSpace(b.Text) && b.Kind != doc.Code {
					tb.Errorf("%s has white space around it: %q", what, b.Text)
				}
				checkString(what, b.Text)
				checkAnchor(what, b.Anchor)
				if b.Page != 0 || b.PageEnd != 0 || b.Line != 0 {
					tb.Errorf("%s has a page or line", what)
				}
				if b.Kind < doc.Paragraph || b.Kind > doc.Quote {
					tb.Errorf("%s has kind %d", what, b.Kind)
				}
			}
		}
	}
}

// outline renders chapters and sections with their anchors and block
// counts, one per line, sections indented:
//
//	Title OEBPS/a.xhtml
//	  "" OEBPS/a.xhtml x2
//	  Sub OEBPS/a.xhtml#s x1
func outline(d *doc.Document) string {
	var sb strings.Builder
	for _, ch := range d.Chapters {
		fmt.Fprintf(&sb, "%s %s\n", ch.Title, ch.Anchor)
		for _, s := range ch.Sections {
			title := s.Title
			if title == "" {
				title = `""`
			}
			fmt.Fprintf(&sb, "  %s %s x%d\n", title, s.Anchor, len(s.Blocks))
		}
	}
	return sb.String()
}

func chapterTitles(d *doc.Document) []string {
	var out []string
	for _, ch := range d.Chapters {
		out = append(out, ch.Title)
	}
	return out
}
