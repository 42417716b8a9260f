package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testbook"
)

// TestSyncDocumentFormats syncs a folder with one book of each of FB2
// (bare and zipped), DOCX, ODT, HTML and HTMLZ: each is ingested with its
// title and format, and a search finds its passage in it.
func TestSyncDocumentFormats(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	books := []struct {
		file, typ, title, passage string
		make                      func(testing.TB, string, string) []byte
	}{
		{"tides.fb2", "fb2", "Tides of the Severn", "The bore runs up the estuary twice a day.", testbook.FB2},
		{"ferries.fb2.zip", "fb2", "Ferries of the Clyde", "The paddle steamer waited at Wemyss Bay.", testbook.FB2Zip},
		{"report.docx", "docx", "Harbour Board Report", "Dredging of the inner basin finished in May.", testbook.DOCX},
		{"pilots.odt", "odt", "Pilot's Guide", "Keep the red buoy to port when entering.", testbook.ODT},
		{"lighthouse.html", "html", "Lighthouse Keepers", "The lamp was trimmed before every dusk.", testbook.HTML},
		{"gulls.htmlz", "htmlz", "Gulls of the Pier", "Herring gulls nest on the warehouse roofs.", testbook.HTMLZ},
	}
	for _, b := range books {
		writeFile(t, filepath.Join(lib, b.file), string(b.make(t, b.title, b.passage)))
	}

	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Ingested != len(books) || s.Failed != 0 {
		t.Fatalf("sync: %+v", s)
	}
	var list []bookOut
	okJSON(t, &list, lib, "list")
	byTitle := map[string]bookOut{}
	for _, b := range list {
		byTitle[b.Title] = b
	}
	for _, b := range books {
		got, found := byTitle[b.title]
		if !found || got.SourceType != b.typ || got.Status != "ready" || got.Chapters == 0 {
			t.Errorf("%s: listed as %+v", b.file, got)
			continue
		}
		var hits []hitOut
		okJSON(t, &hits, lib, "query", b.passage, "--mode", "fts", "--limit", "3")
		if len(hits) == 0 || hits[0].Title != b.title || !strings.Contains(hits[0].Text, b.passage) {
			t.Errorf("%s: query %q found %v", b.file, b.passage, first(hits))
		}
	}
	// The web page's navigation and footer are not its text.
	var hits []hitOut
	okJSON(t, &hits, lib, "query", "Site footer", "--mode", "fts")
	for _, h := range hits {
		if strings.Contains(h.Text, "Site footer") {
			t.Errorf("page furniture indexed: %+v", h)
		}
	}
}

// TestBrokenDocumentFormats syncs a broken file of each format: each
// fails alone, with a reason that names the file and says what is wrong,
// and the good book beside them is ingested.
func TestBrokenDocumentFormats(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	var sheet bytes.Buffer
	zw := zip.NewWriter(&sheet)
	for _, e := range [][2]string{{"mimetype", "application/vnd.oasis.opendocument.spreadsheet"}, {"content.xml", "<office:document-content/>"}} {
		w, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	spreadsheet := sheet.String()
	broken := map[string]struct{ content, reason string }{
		"not-xml.fb2":         {"Chapter One\n\nThe ferry leaves at dawn.\n", "not an FB2 book: no <FictionBook> element"},
		"cut-off.fb2":         {string(testbook.FB2(t, "Cut", "The end is missing"))[:200], "damaged FB2 book: the XML breaks off or is broken at line"},
		"empty-zip.fb2.zip":   {string(testbook.HTMLZ(t, "x", "y")), "not an FB2 book: the zip archive holds no .fb2 file"},
		"renamed.docx":        {"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + strings.Repeat("\x00", 512), "Word 97-2003 .doc or a document encrypted with a password"},
		"not-a-zip.docx":      {"just words", "not a DOCX document: not a zip archive"},
		"spreadsheet.odt":     {spreadsheet, "not an ODT document: its mimetype is \"application/vnd.oasis.opendocument.spreadsheet\""},
		"image.html":          {"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not an HTML page: the file holds binary data"},
		"scripts-only.html":   {"<html><body><script>render()</script></body></html>", "no text found: the page's text may be written by scripts"},
		"no-page.htmlz":       {string(testbook.FB2Zip(t, "x", "y")), "not an HTML page: the HTMLZ archive holds no .html page"},
		"truncated.htmlz":     {string(testbook.HTMLZ(t, "x", "y"))[:60], "not an HTML page: not a zip archive"},
		"not-a-document.docx": {string(testbook.ODT(t, "x", "y")), "not a DOCX document: the archive has no word/document.xml"},
	}
	for name, b := range broken {
		writeFile(t, filepath.Join(lib, "bad", name), b.content)
	}
	writeFile(t, filepath.Join(lib, "good.docx"), string(testbook.DOCX(t, "Good Report", "All berths were dredged.")))

	var s syncOut
	okJSON(t, &s, lib, "sync")
	if s.Ingested != 1 || s.Failed != len(broken) {
		t.Errorf("sync: ingested %d, failed %d: %+v", s.Ingested, s.Failed, s.Failures)
	}
	var st statusOut
	okJSON(t, &st, lib, "status")
	reasons := map[string]string{}
	for _, f := range st.Failures {
		reasons[filepath.Base(f.Path)] = f.Error
		if !strings.HasPrefix(f.Path, filepath.Join(lib, "bad")+string(os.PathSeparator)) {
			t.Errorf("failure blames %s", f.Path)
		}
	}
	for name, b := range broken {
		if !strings.Contains(reasons[name], b.reason) {
			t.Errorf("%s: reason %q does not say %q", name, reasons[name], b.reason)
		}
	}
	// The human status names each file with its reason.
	out := ok(t, lib, "status")
	for name := range broken {
		if !strings.Contains(out, name) {
			t.Errorf("status does not name %s:\n%s", name, out)
		}
	}
}
