package epub

import (
	"flag"
	"fmt"
	goldenfile "github.com/grimoire-search/grimoire/internal/golden"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

var update = flag.Bool("update", false, "rewrite the .golden files under testdata/golden from the parser's output")

// dump renders a document as stable, reviewable text: the metadata, the
// outline with anchors, then every block's kind, anchor and text.
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
				fmt.Fprintf(&sb, "    %s %s\n", b.Kind, b.Anchor)
				for ln := range strings.SplitSeq(b.Text, "\n") {
					fmt.Fprintf(&sb, "      |%s\n", ln)
				}
			}
		}
	}
	return sb.String()
}

// zipDir packs a fixture directory into an EPUB: the mimetype entry first and
// stored, as the OCF format asks, then the other files in name order.
func zipDir(tb testing.TB, dir string) []byte {
	tb.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Slice(names, func(i, j int) bool {
		if (names[i] == "mimetype") != (names[j] == "mimetype") {
			return names[i] == "mimetype"
		}
		return names[i] < names[j]
	})
	var entries []entry
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil {
			tb.Fatal(err)
		}
		entries = append(entries, entry{name: n, body: string(data), deflate: n != "mimetype"})
	}
	return zipOf(tb, entries...)
}

// TestGolden packs every testdata/golden/<case>/ directory into an EPUB,
// parses it and compares the dump with <case>.golden. Run with -update to
// accept a change in output.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			d := mustParse(t, zipDir(t, dir))
			got := dump(d)
			golden := dir + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run go test -update to accept):\n%s", golden, goldenfile.LineDiff(string(want), got))
			}
		})
	}
	if n == 0 {
		t.Fatal("no fixtures under testdata/golden")
	}
}
