package odt

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
	"github.com/grimoire-search/grimoire/ingest/internal/safezip"
)

// FuzzParse checks that no archive makes Parse panic or hang, and that
// what it returns keeps the invariants of a document. The seeds are
// stored as zipOf stores them, so that the fuzzer's changes reach the XML.
func FuzzParse(f *testing.F) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "golden", "*"))
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			f.Add(zipDir(f, dir))
		}
	}
	f.Add(odt(f, "", `<text:list><text:list-item><text:list><text:list-item><text:h>x</text:h></text:list-item></text:list></text:list-item></text:list>`+
		`<table:table><table:table-row><table:table-cell><text:p>y<text:note><text:note-body><text:p>n</text:p></text:note-body></text:note></text:p></table:table-cell></table:table-row></table:table>`))
	lim := safezip.Limits{MaxEntries: 50, MaxEntry: 1 << 20, MaxTotal: 4 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parse(context.Background(), data, lim)
		if err != nil {
			if d != nil {
				t.Fatal("a document and an error")
			}
			if !utf8.ValidString(err.Error()) {
				t.Errorf("error not UTF-8: %q", err)
			}
			return
		}
		doctest.Check(t, d, doc.ODT)
	})
}
