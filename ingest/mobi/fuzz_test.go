package mobi

import (
	"context"
	"errors"
	"testing"
	"unicode/utf8"
)

// fuzzSeeds are small books that reach every layer: MOBI6 with an NCX in
// each compression, KF8 with skeletons and fragments, and a combined file.
func fuzzSeeds() [][]byte {
	m := testBook{
		title: "T", author: "A", language: "en",
		html: `<html><head><guide></guide></head><body><p>front</p><h2>One</h2><p>x &amp; y<br/>z</p><table><tr><td>a</td><td>b</td></tr></table><h3>S</h3><pre> p </pre></body></html>`,
		toc:  []testTOC{{title: "One", pos: 60}, {title: "S", level: 1, pos: 150}},
	}
	huff := m
	huff.compression = compressHuff
	plain := m
	plain.compression, plain.noTrailing = compressNone, true
	k := testBook{
		title: "K",
		files: []testFile{
			{head: `<html><head><title>t</title></head><body>`, tail: `</body></html>`, frags: []string{`<h1>P</h1>`, `<p>q</p>`}},
			{head: `<html><body>`, tail: `</body></html>`, frags: []string{`<p>r</p>`}},
		},
		toc: []testTOC{{title: "P", fid: 0}, {title: "R", fid: 2, off: 1}},
	}
	return [][]byte{m.bytes(), huff.bytes(), plain.bytes(), k.bytes(), combined(m, k)}
}

// FuzzParse checks that no input makes Parse panic or run past its
// limits, that it fails only with the documented errors, and that what it
// returns keeps the invariants of a document. Inputs that once found a bug
// live in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	lim := limits{maxRecords: 4096, maxText: 1 << 20, maxRecordText: 64 << 10, maxIndexEntries: 1000, maxHuffDepth: 16}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parse(context.Background(), data, lim)
		if err != nil {
			if !errors.Is(err, ErrNotMOBI) && !errors.Is(err, ErrDRM) && !errors.Is(err, ErrDamaged) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("undocumented error: %v", err)
			}
			if d != nil {
				t.Fatal("document returned with an error")
			}
			return
		}
		checkTree(t, d)
		strs := append([]string{d.Title, d.Language}, d.Authors...)
		for _, c := range d.Chapters {
			strs = append(strs, c.Title, c.Anchor)
			for _, s := range c.Sections {
				strs = append(strs, s.Title, s.Anchor)
				for _, b := range s.Blocks {
					strs = append(strs, b.Text, b.Anchor)
				}
			}
		}
		for _, s := range strs {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8: %q", s)
			}
		}
	})
}
