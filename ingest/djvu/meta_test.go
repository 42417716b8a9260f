package djvu

import (
	"maps"
	"slices"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// TestCatalog reads an annotation's metadata as djvused writes it: BibTeX's
// keys and the PDF Info's a converted PDF keeps.
func TestCatalog(t *testing.T) {
	for _, tc := range []struct {
		name, ant string
		want      doc.Catalog
	}{
		{"bibtex", `(metadata (title "Charts") (publisher "Harbour \"Press\"") (year "1901") (series "Coast") (volume "3")
 (isbn "978-0-00-000000-1") (url "https://example.org/charts") (keywords "tides, charts") (Subject "Pilotage"))`,
			doc.Catalog{Publisher: `Harbour "Press"`, Published: "1901", Series: "Coast", SeriesIndex: 3, Tags: []string{"Pilotage", "tides", "charts"},
				Identifiers: map[string]string{"isbn": "978-0-00-000000-1", "uri": "https://example.org/charts"}}},
		{"pdf info", `(metadata (CreationDate "D:20040325120000Z") (Keywords "\342\200\242one; two"))`,
			doc.Catalog{Tags: []string{"one", "two"}}}, // a creation date is no publication date
		{"a volume without a series", `(metadata (volume "3") (year "about 1900"))`, doc.Catalog{}},
		{"none", `(maparea "#a" "" (rect 0 0 1 1))`, doc.Catalog{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := catalog(metadata(tc.ant))
			if got.Publisher != tc.want.Publisher || !slices.Equal(got.Tags, tc.want.Tags) || got.Published != tc.want.Published ||
				got.Series != tc.want.Series || got.SeriesIndex != tc.want.SeriesIndex || !maps.Equal(got.Identifiers, tc.want.Identifiers) {
				t.Errorf("catalog %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
