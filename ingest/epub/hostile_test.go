package epub

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// deflated compresses data as a raw deflate stream, the way zip stores it.
func deflated(tb testing.TB, data []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestSpeed)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// forged returns a book whose chapter entry is written raw: compressed
// bytes and a header that may lie about their size.
func forged(tb testing.TB, compressed []byte, declared uint64, crc32 uint32) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	good := testBook{docs: []testDoc{{href: "ch1.xhtml", body: "<p>x</p>"}}}.bytes(tb)
	zr, err := zip.NewReader(bytes.NewReader(good), int64(len(good)))
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name == "OEBPS/ch1.xhtml" {
			w, err := zw.CreateRaw(&zip.FileHeader{
				Name: f.Name, Method: zip.Deflate, CRC32: crc32,
				CompressedSize64: uint64(len(compressed)), UncompressedSize64: declared,
			})
			if err != nil {
				tb.Fatal(err)
			}
			w.Write(compressed)
			continue
		}
		if err := zw.Copy(f); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func TestZipBombs(t *testing.T) {
	small := limits{maxEntries: 50, maxEntry: 1 << 20, maxTotal: 3 << 20, maxTOCEntries: 100}
	zeros := bytes.Repeat([]byte{0}, 2<<20)
	page2MB := page("x", "<p>"+strings.Repeat("a", 2<<20)+"</p>")
	nineHundredK := "<p>" + strings.Repeat("b", 900<<10) + "</p>"

	tests := []struct {
		name string
		data []byte
		lim  limits
		want string
	}{
		{
			name: "declared size past the entry limit",
			data: forged(t, deflated(t, []byte("<p>tiny</p>")), 1<<40, 0),
			lim:  defaultLimits(),
			want: "entry OEBPS/ch1.xhtml decompresses to more than 64 MB (a zip bomb?)",
		},
		{
			name: "honest header, content past a small limit",
			data: testBook{docs: []testDoc{{href: "ch1.xhtml", raw: page2MB}}}.bytes(t),
			lim:  small,
			want: "entry OEBPS/ch1.xhtml decompresses to more than 1 MB (a zip bomb?)",
		},
		{
			name: "header that understates the stream",
			data: forged(t, deflated(t, zeros), 100, 0),
			lim:  small,
			want: "entry OEBPS/ch1.xhtml decompresses to more than its declared 100 bytes (a zip bomb?)",
		},
		{
			name: "entries under the entry limit, past the total",
			data: testBook{docs: []testDoc{
				{href: "a.xhtml", body: nineHundredK}, {href: "b.xhtml", body: nineHundredK},
				{href: "c.xhtml", body: nineHundredK}, {href: "d.xhtml", body: nineHundredK},
			}}.bytes(t),
			lim:  small,
			want: "the book decompresses to more than 3 MB in all (a zip bomb?)",
		},
		{
			name: "too many entries",
			data: testBook{docs: []testDoc{{href: "a.xhtml", body: "<p>a</p>"}}, extra: manyEntries(60)}.bytes(t),
			lim:  small,
			want: "archive has 64 entries, more than the 50 a book may have (a zip bomb?)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := parse(context.Background(), tc.data, tc.lim)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v (doc %v), want ErrTooLarge", err, d != nil)
			}
			if err.Error() != tc.want {
				t.Errorf("err = %q\nwant  %q", err, tc.want)
			}
		})
	}
}

func manyEntries(n int) []entry {
	out := make([]entry, n)
	for i := range out {
		out[i] = entry{name: "OEBPS/img/" + strings.Repeat("x", i+1) + ".png", body: "p"}
	}
	return out
}

func TestPathTraversal(t *testing.T) {
	evil := page("evil", "<p>EVIL TEXT</p>")
	data := testBook{
		docs: []testDoc{{href: "ch1.xhtml", body: "<p>Good text.</p>"}},
		manifest: `    <item id="e1" href="../../evil.xhtml" media-type="application/xhtml+xml"/>
    <item id="e2" href="/abs/evil.xhtml" media-type="application/xhtml+xml"/>
    <item id="e3" href="../OEBPS/../../evil2.xhtml" media-type="application/xhtml+xml"/>
`,
		spine: `<itemref idref="e1"/><itemref idref="d1"/><itemref idref="e2"/><itemref idref="e3"/>`,
		extra: []entry{
			{name: "../../evil.xhtml", body: evil},
			{name: "../evil2.xhtml", body: evil},
			{name: "/abs/evil.xhtml", body: evil},
			{name: `C:\evil.xhtml`, body: evil},
			{name: "OEBPS/../../evil.xhtml", body: evil},
		},
	}.bytes(t)
	d := mustParse(t, data)
	if txt := d.Text(); txt != "Good text." {
		t.Errorf("text = %q", txt)
	}
	a, err := openArchive(data, defaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range a.Names() {
		if strings.Contains(name, "..") || strings.HasPrefix(name, "/") || strings.Contains(name, ":") {
			t.Errorf("unsafe entry %q kept", name)
		}
	}

	// A container that points out of the archive has no package document.
	escape := zipOf(t,
		entry{name: "META-INF/container.xml", body: `<container><rootfiles><rootfile full-path="../content.opf"/></rootfiles></container>`},
		entry{name: "../content.opf", body: "<package/>"},
	)
	if _, err := Parse(context.Background(), escape); !errors.Is(err, ErrNotEPUB) || !strings.Contains(err.Error(), "names no package document") {
		t.Errorf("escaping container: %v", err)
	}
}

func TestDRM(t *testing.T) {
	encryption := func(uri, algorithm string) entry {
		return entry{name: "META-INF/encryption.xml", body: `<?xml version="1.0"?>
<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
  <enc:EncryptedData>
    <enc:EncryptionMethod Algorithm="` + algorithm + `"/>
    <enc:CipherData><enc:CipherReference URI="` + uri + `"/></enc:CipherData>
  </enc:EncryptedData>
</encryption>`}
	}
	book := func(extra ...entry) []byte {
		return testBook{
			docs:  []testDoc{{href: "ch%201.xhtml", file: "ch 1.xhtml", body: "<p>Readable.</p>"}},
			extra: append([]entry{{name: "OEBPS/fonts/a.otf", body: "font"}}, extra...),
		}.bytes(t)
	}

	t.Run("content encrypted", func(t *testing.T) {
		_, err := Parse(context.Background(), book(encryption("OEBPS/ch%201.xhtml", "http://www.w3.org/2001/04/xmlenc#aes128-cbc")))
		if !errors.Is(err, ErrDRM) {
			t.Fatalf("err = %v, want ErrDRM", err)
		}
		want := "DRM-protected (META-INF/encryption.xml covers the content, OEBPS/ch 1.xhtml among it); grimoire cannot read it"
		if err.Error() != want {
			t.Errorf("err = %q\nwant  %q", err, want)
		}
	})
	t.Run("package document encrypted", func(t *testing.T) {
		_, err := Parse(context.Background(), book(encryption("OEBPS/content.opf", "http://www.w3.org/2001/04/xmlenc#aes256-cbc")))
		if !errors.Is(err, ErrDRM) {
			t.Fatalf("err = %v, want ErrDRM", err)
		}
	})
	t.Run("font obfuscation is not DRM", func(t *testing.T) {
		d, err := Parse(context.Background(), book(encryption("OEBPS/fonts/a.otf", "http://www.idpf.org/2008/embedding")))
		if err != nil {
			t.Fatal(err)
		}
		if d.Text() != "Readable." {
			t.Errorf("text = %q", d.Text())
		}
	})
	t.Run("unreadable encryption.xml and binary content", func(t *testing.T) {
		data := testBook{
			docs:  []testDoc{{href: "ch1.xhtml", raw: "\x8f\x00\x13\x00\xfe\x01binary"}},
			extra: []entry{{name: "META-INF/encryption.xml", body: "\x00\x01 not xml"}},
		}.bytes(t)
		if _, err := Parse(context.Background(), data); !errors.Is(err, ErrDRM) {
			t.Errorf("err = %v, want ErrDRM", err)
		}
	})
	t.Run("zip-level encryption", func(t *testing.T) {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		good := book()
		zr, _ := zip.NewReader(bytes.NewReader(good), int64(len(good)))
		for _, f := range zr.File {
			if strings.HasSuffix(f.Name, ".xhtml") {
				raw, _ := f.OpenRaw()
				fh := f.FileHeader
				fh.Flags |= 0x1
				w, err := zw.CreateRaw(&fh)
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				b.ReadFrom(raw)
				w.Write(b.Bytes())
				continue
			}
			zw.Copy(f)
		}
		zw.Close()
		if _, err := Parse(context.Background(), buf.Bytes()); !errors.Is(err, ErrDRM) {
			t.Errorf("err = %v, want ErrDRM", err)
		}
	})
}

func TestBrokenArchives(t *testing.T) {
	opf := `<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/><manifest/><spine/></package>`
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty file", nil, "not an EPUB: not a zip archive (zip: not a valid zip file)"},
		{"text file", []byte("This is not an EPUB.\n"), "not an EPUB: not a zip archive (zip: not a valid zip file)"},
		{"truncated zip", testBook{docs: []testDoc{{href: "a.xhtml", body: "<p>a</p>"}}}.bytes(t)[:200], "not an EPUB: not a zip archive (zip: not a valid zip file)"},
		{"no container", zipOf(t, entry{name: "mimetype", body: "application/epub+zip"}, entry{name: "OEBPS/ch1.xhtml", body: "<p>x</p>"}), "not an EPUB: no META-INF/container.xml"},
		{"container without rootfile", zipOf(t, entry{name: "META-INF/container.xml", body: "<container><rootfiles/></container>"}), "not an EPUB: META-INF/container.xml names no package document"},
		{"container not XML", zipOf(t, entry{name: "META-INF/container.xml", body: "garbage"}), "not an EPUB: META-INF/container.xml is not valid XML: EOF"},
		{"missing package document", zipOf(t, entry{name: "META-INF/container.xml", body: `<container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>`}), "not an EPUB: container points to OEBPS/content.opf, which is missing"},
		{"empty spine", zipOf(t,
			entry{name: "META-INF/container.xml", body: `<container><rootfiles><rootfile full-path="content.opf"/></rootfiles></container>`},
			entry{name: "content.opf", body: opf}), "not an EPUB: the spine of content.opf lists no content document in the archive"},
		{"package not XML", zipOf(t,
			entry{name: "META-INF/container.xml", body: `<container><rootfiles><rootfile full-path="content.opf"/></rootfiles></container>`},
			entry{name: "content.opf", body: ""}), "not an EPUB: package document content.opf is not valid XML: EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(context.Background(), tc.data)
			if !errors.Is(err, ErrNotEPUB) {
				t.Fatalf("err = %v (doc %v), want ErrNotEPUB", err, d != nil)
			}
			if err.Error() != tc.want {
				t.Errorf("err = %q\nwant  %q", err, tc.want)
			}
		})
	}
}

// TestEntityExpansion checks that entities declared in a DTD are never
// expanded, in the package document or in content.
func TestEntityExpansion(t *testing.T) {
	dtd := `<!DOCTYPE package [
<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
<!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
<!ENTITY ext SYSTEM "file:///etc/passwd">
]>`
	content := `<?xml version="1.0"?>` + dtd + `<html><body><p>&f; &ext; end</p></body></html>`
	data := testBook{
		metadata: `<dc:title>&f;&ext;Title</dc:title>`,
		docs:     []testDoc{{href: "a.xhtml", raw: content}},
	}.bytes(t)
	// Put the DTD into the package document too.
	start := time.Now()
	data = rewriteEntry(t, data, "OEBPS/content.opf", func(s string) string {
		return strings.Replace(s, "<package", dtd+"<package", 1)
	})
	d := mustParse(t, data)
	if time.Since(start) > 2*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
	if len(d.Title) > 100 || strings.Contains(d.Title, "root:") {
		t.Errorf("title = %.100q", d.Title)
	}
	if txt := d.Text(); len(txt) > 100 || strings.Contains(txt, "root:") {
		t.Errorf("text = %.100q", txt)
	}
}

// rewriteEntry returns data with one entry's content changed.
func rewriteEntry(tb testing.TB, data []byte, name string, edit func(string) string) []byte {
	tb.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		tb.Fatal(err)
	}
	var entries []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			tb.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(rc)
		rc.Close()
		body := b.String()
		if f.Name == name {
			body = edit(body)
		}
		entries = append(entries, entry{name: f.Name, body: body, deflate: f.Method == zip.Deflate})
	}
	return zipOf(tb, entries...)
}

func TestNoPanicOnMalformedParts(t *testing.T) {
	cases := map[string]testBook{
		"nav not XML":      {docs: []testDoc{{href: "a.xhtml", body: "<p>a</p>"}}, nav: "<<<&&&"},
		"ncx not XML":      {docs: []testDoc{{href: "a.xhtml", body: "<p>a</p>"}}, ncx: "<navPoint><<"},
		"nav to nowhere":   {docs: []testDoc{{href: "a.xhtml", body: "<p>a</p>"}}, nav: `<nav epub:type="toc"><ol><li><a href="zzz.xhtml">Z</a></li><li><a href="http://x/">W</a></li></ol></nav>`},
		"fragment nowhere": {docs: []testDoc{{href: "a.xhtml", body: "<p>a</p>"}}, nav: `<nav epub:type="toc"><ol><li><a href="a.xhtml#missing">A</a></li></ol></nav>`},
		"content garbage":  {docs: []testDoc{{href: "a.xhtml", raw: "</p></body><<<>>>&#xD800;&#99999999;\xff\xfe text"}}},
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			d := mustParse(t, b.bytes(t))
			if strings.TrimSpace(d.Text()) == "" {
				t.Error("no text")
			}
		})
	}
}
