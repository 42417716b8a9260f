package pdf

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// withCreationDate returns the PDF with its Info's CreationDate, which
// pdfcpu sets to the time it writes the fixture, replaced by date (23
// bytes, so that no offset moves).
func withCreationDate(t *testing.T, data []byte, date string) []byte {
	t.Helper()
	if len(date) != 23 {
		t.Fatalf("date %q is not 23 bytes", date)
	}
	re := regexp.MustCompile(`/CreationDate\(D:\d{14}[+-]\d\d'\d\d'\)`)
	if !re.Match(data) {
		t.Fatal("the fixture has no CreationDate to replace")
	}
	return re.ReplaceAll(data, []byte(fmt.Sprintf("/CreationDate(%s)", date)))
}

// TestInfoCatalog reads the Info's Subject as a tag, its Keywords as tags
// (junk and all, held to the caps), and does not take its CreationDate
// for the publication date.
func TestInfoCatalog(t *testing.T) {
	fx := bookFixture()
	fx.info = map[string]string{"Title": "Info Title", "Subject": "Lighthouse keeping",
		"Keywords": "lamps; •wicks, " + strings.Repeat("a sentence that rambles on ", 5) + ", Lamps"}
	d := parseBytes(t, withCreationDate(t, fx.build(t), "D:20040325120000-05'00'"))
	if want := []string{"Lighthouse keeping", "lamps", "wicks"}; !slices.Equal(d.Catalog.Tags, want) || d.Catalog.Published != "" {
		t.Errorf("catalog %+v, want tags %q and no date", d.Catalog, want)
	}
	fx.info = map[string]string{"Keywords": strings.Repeat("k,", 1000)}
	if c := parseBytes(t, withCreationDate(t, fx.build(t), "yesterday              ")).Catalog; len(c.Tags) != 1 || c.Published != "" {
		t.Errorf("hostile Info: %+v", c)
	}
}
