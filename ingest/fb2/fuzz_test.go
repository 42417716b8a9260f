package fb2

import (
	"context"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/doctest"
	"github.com/grimoire-search/grimoire/ingest/internal/safezip"
)

// FuzzParse checks that no book, bare or zipped, makes Parse panic or
// hang, and that what it returns keeps the invariants of a document.
func FuzzParse(f *testing.F) {
	books, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.fb2"))
	for _, p := range books {
		data := readFile(f, p)
		f.Add(data)
		f.Add(zipOf(f, [2]string{"book.fb2", string(data)}))
	}
	f.Add([]byte(book(`<annotation><p>a</p></annotation>`, `<section><section><title><p>t</p></title><poem><stanza><v>v</v></stanza></poem></section></section>`)))
	f.Add([]byte(`<FictionBook><body name="notes"><section id="n"><title>1</title><p>n</p></section></body><body><table><tr><td>x`))
	lim := safezip.Limits{MaxEntries: 20, MaxEntry: 1 << 20, MaxTotal: 4 << 20}
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
		doctest.Check(t, d, doc.FB2)
	})
}
