package markdown

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
)

var update = flag.Bool("update", false, "rewrite the .golden files under testdata/golden from the parser's output")

// dump renders a document as stable, reviewable text: the outline with
// anchors, then every block's kind, line and text.
func dump(d *doc.Document) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "title: %q\n", d.Title)
	fmt.Fprintf(&sb, "authors: %q\n", d.Authors)
	fmt.Fprintf(&sb, "language: %q\n", d.Language)
	fmt.Fprintf(&sb, "source: %s\n", d.SourceType)
	for ci, ch := range d.Chapters {
		fmt.Fprintf(&sb, "chapter %d %q %s\n", ci+1, ch.Title, ch.Anchor)
		for si, s := range ch.Sections {
			fmt.Fprintf(&sb, "  section %d.%d %q %s\n", ci+1, si+1, s.Title, s.Anchor)
			for _, b := range s.Blocks {
				fmt.Fprintf(&sb, "    L%d %s\n", b.Line, b.Kind)
				for ln := range strings.SplitSeq(b.Text, "\n") {
					fmt.Fprintf(&sb, "      |%s\n", ln)
				}
			}
		}
	}
	return sb.String()
}

// TestGolden parses every testdata/golden/*.md fixture and compares the dump
// with its .golden file. Run with -update to accept a change in output.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures under testdata/golden")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			d, err := Parse(context.Background(), data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			doctest.Golden(t, strings.TrimSuffix(f, ".md")+".golden", dump(d), *update)
		})
	}
}
