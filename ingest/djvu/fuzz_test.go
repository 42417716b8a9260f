package djvu

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/internal/testbook"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// FuzzParse checks that no file makes Parse panic or hang, and that what
// it returns keeps the invariants of a document. The corpus's files, when
// present, seed the BZZ paths.
func FuzzParse(f *testing.F) {
	f.Add(testbook.DjVu(f, "T", "one\ntwo\n\nthree", "four"))
	f.Add([]byte("AT&TFORM\x00\x00\x00\x16DJVUINFO\x00\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	if dir, ok := testcorpus.Find(); ok {
		for _, name := range []string{"opds-testbook.djvu"} {
			if data, err := os.ReadFile(filepath.Join(dir, "books", "djvu", name)); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(context.Background(), data)
		if err != nil {
			if d != nil {
				t.Fatal("a document and an error")
			}
			if !utf8.ValidString(err.Error()) {
				t.Errorf("error not UTF-8: %q", err)
			}
			return
		}
		check(t, d)
	})
}

// FuzzUnBZZ checks that the BZZ decoder never panics and keeps to its
// output bound.
func FuzzUnBZZ(f *testing.F) {
	f.Add([]byte{0x00, 0x00, 0x00})
	f.Add([]byte{0xff, 0x00, 0x12, 0x34, 0x56})
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := unbzz(data, 1<<16)
		if err == nil && len(out) > 1<<16 {
			t.Errorf("%d bytes past the bound", len(out))
		}
	})
}
