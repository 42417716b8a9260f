package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// headingBook is a book of n headings, each over a short paragraph, in
// the format ext names: the shape of a reference work or a long glossary
// that once made ingest grow faster than its headings.
func headingBook(ext string, n int) []byte {
	var sb strings.Builder
	body := func(i int) string {
		return fmt.Sprintf("Some text for entry %d, a few words of body that say little about topic %d.", i, i%97)
	}
	switch ext {
	case "md":
		sb.WriteString("# Book\n\n")
		for i := range n {
			fmt.Fprintf(&sb, "## Entry %d on topic %d\n\n%s\n\n", i, i%97, body(i))
		}
	case "rtf":
		sb.WriteString(`{\rtf1\ansi{\info{\title Book}}` + "\n")
		for i := range n {
			fmt.Fprintf(&sb, "{\\pard\\outlinelevel1 Entry %d on topic %d\\par}\n{\\pard %s\\par}\n", i, i%97, body(i))
		}
		sb.WriteString("}")
	case "html":
		sb.WriteString("<!DOCTYPE html><html><head><title>Book</title></head><body>\n")
		for i := range n {
			fmt.Fprintf(&sb, "<h2>Entry %d on topic %d</h2><p>%s</p>\n", i, i%97, body(i))
		}
		sb.WriteString("</body></html>")
	case "docx":
		const w = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
		sb.WriteString(`<?xml version="1.0"?><w:document ` + w + `><w:body>`)
		for i := range n {
			fmt.Fprintf(&sb, `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Entry %d on topic %d</w:t></w:r></w:p><w:p><w:r><w:t>%s</w:t></w:r></w:p>`, i, i%97, body(i))
		}
		sb.WriteString(`</w:body></w:document>`)
		return docxOf(sb.String())
	case "txt":
		sb.WriteString("BOOK\n\n")
		for i := range n {
			fmt.Fprintf(&sb, "CHAPTER %d\n\n%s\n\n", i+1, body(i))
		}
	}
	return []byte(sb.String())
}

// BenchmarkIngestHeadings ingests books of many headings at several
// sizes: the time per heading should stay flat as the book grows.
func BenchmarkIngestHeadings(b *testing.B) {
	for _, ext := range []string{"md", "rtf", "html", "docx", "txt"} {
		for _, n := range []int{5_000, 25_000, 50_000} {
			b.Run(fmt.Sprintf("%s/%d", ext, n), func(b *testing.B) {
				data := headingBook(ext, n)
				for b.Loop() {
					b.StopTimer()
					l := newTestLibrary(b)
					l.write("book."+ext, data)
					l.reconcile()
					b.StartTimer()
					r, err := l.ingest(context.Background())
					if err != nil || r.Failed != 0 {
						b.Fatalf("ingest: %+v, %v", r, err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/heading")
			})
		}
	}
}

// docxOf packs a Word document's body as a .docx file.
func docxOf(document string) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, f := range []struct{ name, text string }{
		{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", document},
	} {
		w, _ := z.Create(f.name)
		w.Write([]byte(f.text))
	}
	z.Close()
	return buf.Bytes()
}
