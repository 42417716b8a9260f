package zotero

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testcorpus"
	"github.com/grimoire-search/grimoire/source/zotero/zoterotest"
)

// TestCorpus builds a library of the shared corpus's real PDFs and EPUBs,
// imported and linked, and finds each file, byte for byte.
func TestCorpus(t *testing.T) {
	t.Parallel()
	pdf := testcorpus.Path(t, "books", "pdf", "acmart-sample-sigconf.pdf")
	epub := testcorpus.Path(t, "books", "epub", "pg11.epub")
	other := testcorpus.Path(t, "books", "pdf", "NIST.SP.800-207.pdf")
	dir, base := t.TempDir(), t.TempDir()
	zoterotest.Build(t, dir, zoterotest.Library{
		BaseDir: base,
		Items: []zoterotest.Item{
			{
				Key: "ALICE001", Type: "book",
				Fields:   map[string]string{"title": "Alice's Adventures in Wonderland", "date": "1865"},
				Creators: [][2]string{{"Lewis", "Carroll"}},
				Attachments: []zoterotest.Attachment{
					{Key: "ALICEPUB", Title: "EPUB", File: epub},
					{Key: "ACMPDF01", Title: "Full Text PDF", File: pdf, Annotations: []zoterotest.Annotation{
						{Key: "ANNOT001", Kind: "highlight", Text: "sample", PageLabel: "1", PageIndex: 0},
					}},
				},
			},
			{Key: "NIST0001", Type: "attachment", Attachments: []zoterotest.Attachment{{File: other, Linked: filepath.Join(base, "nist", "zt.pdf")}}},
		},
	})
	lib := openLib(t, dir, Options{BaseDir: base})
	if len(lib.Problems) != 0 || len(lib.Items) != 2 {
		t.Fatalf("%d items, problems %+v", len(lib.Items), lib.Problems)
	}
	wantFiles := map[string]string{"ACMPDF01": pdf, "ALICEPUB": epub, "NIST0001": other}
	for _, it := range lib.Items {
		for _, a := range it.Attachments {
			got, err := os.ReadFile(a.Path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(wantFiles[a.Key])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("attachment %s at %s does not hold %s", a.Key, a.Path, wantFiles[a.Key])
			}
		}
	}
	alice := itemByKey(t, lib, "ALICE001")
	if alice.Attachments[0].Key != "ACMPDF01" || alice.Attachments[1].Key != "ALICEPUB" {
		t.Errorf("attachments %+v, want the PDF first", alice.Attachments)
	}
	if len(alice.Annotations) != 1 || alice.Annotations[0].Attachment != "ACMPDF01" {
		t.Errorf("annotations %+v", alice.Annotations)
	}
	if n := itemByKey(t, lib, "NIST0001"); n.Title != "zt.pdf" || !n.Attachments[0].Linked {
		t.Errorf("standalone linked item %+v", n)
	}
}
