package zotero

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/grimoire-search/grimoire/source/zotero/zoterotest"
)

// BenchmarkOpen reads a library of 2,000 items, each with a PDF, three
// tags, a collection, a note and five highlights: what every pass that
// looks at a Zotero library pays, a copy of the database included.
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	pdf := filepath.Join(b.TempDir(), "paper.pdf")
	if err := os.WriteFile(pdf, []byte("%PDF-1.4 stand-in"), 0o644); err != nil {
		b.Fatal(err)
	}
	lib := zoterotest.Library{Collections: []zoterotest.Collection{{Key: "COLLTOP1", Name: "Top"}, {Key: "COLLSUB1", Name: "Sub", Parent: "COLLTOP1"}}}
	for i := range 2000 {
		var anns []zoterotest.Annotation
		for j := range 5 {
			anns = append(anns, zoterotest.Annotation{Key: fmt.Sprintf("A%03dX%03d", j, i), Kind: "highlight", Text: "a sentence the reader marked as worth keeping", Comment: "why it matters", PageLabel: fmt.Sprint(j + 1), PageIndex: j})
		}
		lib.Items = append(lib.Items, zoterotest.Item{
			Key: fmt.Sprintf("ITEM%04d", i), Type: "journalArticle",
			Fields:      map[string]string{"title": fmt.Sprintf("Paper %d on tides", i), "date": "2020-01-01", "DOI": fmt.Sprintf("10.1/%d", i)},
			Creators:    [][2]string{{"Ada", fmt.Sprintf("Author%d", i%50)}},
			Tags:        []string{"tides", fmt.Sprintf("t%d", i%20), fmt.Sprintf("u%d", i%7)},
			Collections: []string{"COLLSUB1"},
			Attachments: []zoterotest.Attachment{{Key: fmt.Sprintf("P%07d", i), File: pdf, Annotations: anns}},
			Notes:       []zoterotest.Note{{Key: fmt.Sprintf("N%07d", i), HTML: "<p>A note of a few words.</p>"}},
		})
	}
	zoterotest.Build(b, dir, lib)
	fi, err := os.Stat(filepath.Join(dir, DB))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		l, err := Open(context.Background(), dir, Options{Scratch: b.TempDir()})
		if err != nil || len(l.Items) != 2000 {
			b.Fatalf("%v, %d items", err, len(l.Items))
		}
	}
	b.ReportMetric(float64(fi.Size())/(1<<20), "MiB-db")
}
