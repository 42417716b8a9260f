package pdf

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden trees in testdata/golden")

// TestGolden parses the generated fixtures and compares their trees
// (metadata, chapters, sections, and every block with its page and first
// words) with testdata/golden/<name>.golden. A change in layout or
// structure shows up as a diff; run with -update after a deliberate one.
func TestGolden(t *testing.T) {
	rotated := newPage().lines("F3", 12, 72, 700, 16, "A page turned by its Rotate entry", "still reads line by line")
	rotated.rotate = 90
	for name, fx := range map[string]fixture{
		"book":      bookFixture(),
		"twocolumn": twoColumnFixture(),
		"rotated":   {pages: []*fxPage{rotated}},
	} {
		t.Run(name, func(t *testing.T) {
			got := goldenTree(parseBytes(t, fx.build(t)))
			path := filepath.Join("testdata", "golden", name+".golden")
			golden.Check(t, path, got, "tree", *update)
		})
	}
}

func goldenTree(d *doc.Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %q\nauthors: %q\nlanguage: %q\npages: %d\nlabels: %q\n", d.Title, d.Authors, d.Language, d.PageCount, d.PageLabels)
	kinds := map[doc.BlockKind]string{doc.Paragraph: "para", doc.Code: "code", doc.List: "list", doc.Table: "table", doc.Quote: "quote"}
	for _, c := range d.Chapters {
		fmt.Fprintf(&b, "chapter %q\n", c.Title)
		for _, s := range c.Sections {
			fmt.Fprintf(&b, "  section %q\n", s.Title)
			for _, bl := range s.Blocks {
				fmt.Fprintf(&b, "    p%d %s %.60q\n", bl.Page, kinds[bl.Kind], bl.Text)
			}
		}
	}
	return b.String()
}
