package ingest

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// TestCorpusCatalogs: the corpus files that say more of themselves than
// title and author keep it, in every format that carries it.
func TestCorpusCatalogs(t *testing.T) {
	tests := []struct {
		typ       string
		path      []string
		tag       string // one tag it has, "" for none
		published string
		publisher string
		series    string
		id        [2]string // a scheme and the identifier in it
	}{
		{doc.EPUB, []string{"books", "epub", "pg1342.epub"}, "Courtship -- Fiction", "1998-06-01", "", "", [2]string{"uri", "http://www.gutenberg.org/ebooks/1342"}},
		{doc.EPUB, []string{"books", "epub", "moby-dick.epub"}, "", "", "Harper & Brothers, Publishers", "", [2]string{}},
		{doc.AZW3, []string{"books", "azw3", "pg11.azw3"}, "Fantasy fiction", "2008-06-27", "", "", [2]string{}},
		{doc.MOBI, []string{"books", "mobi", "libmobi-sample-unicode-huffdic.mobi"}, "", "", "Libmobi project", "", [2]string{}},
		{doc.FB2, []string{"books", "fb2", "tom-sawyer.fb2"}, "child_adv", "1884", "The American Publishing Company", "The Adventures of Tom Sawyer", [2]string{}},
		{doc.FB2, []string{"books", "fb2", "opds-testbook.fb2.zip"}, "test", "2021", "", "Test Series", [2]string{}},
		{doc.HTMLZ, []string{"books", "html", "pg1342.htmlz"}, "Love stories", "1998-06-01", "", "", [2]string{}},
		{doc.DOCX, []string{"books", "docx", "doj-chapter13-trustee-handbook.docx"}, "", "", "", "", [2]string{}},
		{doc.ODT, []string{"books", "odt", "odfdo-doc-with-toc.odt"}, "", "", "", "", [2]string{}},
		{doc.PDF, []string{"books", "pdf", "NIST.SP.800-207.pdf"}, "zero trust", "", "", "", [2]string{}},
		{doc.PDF, []string{"books", "pdf", "GeoTopo-komprimiert.pdf"}, "Topologie", "", "", "", [2]string{}},
		{doc.DjVu, []string{"books", "djvu", "opds-testbook.djvu"}, "test", "", "", "", [2]string{}},
	}
	ps := NewParsers(nil)
	defer ps.Close()
	for _, tc := range tests {
		t.Run(tc.path[len(tc.path)-1], func(t *testing.T) {
			data, err := os.ReadFile(testcorpus.Path(t, tc.path...))
			if err != nil {
				t.Fatal(err)
			}
			d, err := ps.Parse(context.Background(), tc.typ, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			c := d.Catalog
			if tc.tag != "" && !slices.Contains(c.Tags, tc.tag) || tc.tag == "" && len(c.Tags) > 0 {
				t.Errorf("tags %q, want one %q", c.Tags, tc.tag)
			}
			if c.Published != tc.published || c.Publisher != tc.publisher || c.Series != tc.series {
				t.Errorf("published %q, publisher %q, series %q; want %q, %q, %q", c.Published, c.Publisher, c.Series, tc.published, tc.publisher, tc.series)
			}
			if tc.id[0] != "" && c.Identifiers[tc.id[0]] != tc.id[1] {
				t.Errorf("identifiers %v, want %s %q", c.Identifiers, tc.id[0], tc.id[1])
			}
			for _, id := range c.Identifiers {
				if len(id) == 36 && id[8] == '-' {
					t.Errorf("identifiers %v: a calibre uuid is no identifier of the book", c.Identifiers)
				}
			}
		})
	}
}
