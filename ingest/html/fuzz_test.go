package html

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

// FuzzParse checks that no page and no HTMLZ makes the parsers panic or
// hang, and that what they return keeps the invariants of a document.
func FuzzParse(f *testing.F) {
	pages, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.html"))
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(zipOf(f, [2]string{"index.html", string(data)}, [2]string{"metadata.opf", calibreOPF}))
	}
	for _, s := range []string{
		"<main><h1>a</h1><p>b<main>c</main></p>",
		"<p>a<p>b<li>c<td>d</td></span><![CDATA[e]]><plaintext>f",
		`<aside role="doc-endnotes"><header><nav>x</nav></header></aside><pre>  y</pre>`,
		"\xff\xfe<\x00p\x00>\x00x\x00",
	} {
		f.Add([]byte(s))
	}
	lim := safezip.Limits{MaxEntries: 50, MaxEntry: 1 << 20, MaxTotal: 4 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		if d, err := Parse(ctx, data); err == nil {
			doctest.Check(t, d, doc.HTML)
		} else if !utf8.ValidString(err.Error()) {
			t.Errorf("error not UTF-8: %q", err)
		}
		if d, err := parseHTMLZ(ctx, data, lim); err == nil {
			doctest.Check(t, d, doc.HTMLZ)
		} else if !utf8.ValidString(err.Error()) {
			t.Errorf("error not UTF-8: %q", err)
		}
	})
}
