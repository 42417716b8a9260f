package epub

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
)

var update = flag.Bool("update", false, "rewrite the .golden files under testdata/golden from the parser's output")

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
			doctest.Golden(t, dir+".golden", doctest.Dump(d), *update)
		})
	}
	if n == 0 {
		t.Fatal("no fixtures under testdata/golden")
	}
}
