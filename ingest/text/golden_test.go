package text

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden outlines in testdata/outline")

// TestGolden parses each testdata/outline/*.txt and compares its outline
// (chapters and sections with their anchors, block counts and first words)
// with the .golden file beside it. Run with -update after a deliberate
// change, and review the diff.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "outline", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Parse(context.Background(), data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			checkTree(t, d)
			got := goldenOutline(d)
			path := strings.TrimSuffix(f, ".txt") + ".golden"
			golden.Check(t, path, got, "outline", *update)
		})
	}
}

func goldenOutline(d *doc.Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %q\nauthors: %q\nlanguage: %q\n", d.Title, d.Authors, d.Language)
	for _, c := range d.Chapters {
		fmt.Fprintf(&b, "%s %q\n", c.Anchor, c.Title)
		for _, s := range c.Sections {
			first := s.Blocks[0]
			fmt.Fprintf(&b, "  %s %q blocks=%d first=L%d %.40q\n", s.Anchor, s.Title, len(s.Blocks), first.Line, first.Text)
		}
	}
	return b.String()
}
