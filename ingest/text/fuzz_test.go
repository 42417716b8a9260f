package text

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// FuzzParse checks what must hold for any input: no panic, only the
// documented errors, valid UTF-8 everywhere, and a well-formed tree with no
// empty block.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"plain text\n",
		lines("CHAPTER I.", "Down the Hole", "", prose(1, 3), "", "CHAPTER II.", "", prose(2, 3)),
		lines("CONTENTS", "", " CHAPTER I.  One", " CHAPTER II.  Two", "", "CHAPTER I.", "", prose(1, 2), "", "CHAPTER II.", "", prose(2, 2)),
		lines("BOOK ONE: 1805", "", "CHAPTER I", "", prose(1, 2), "", "FIRST EPILOGUE: 1813 - 20", "", "CHAPTER I", "", prose(2, 2)),
		lines("", "", "", "THE GOLDEN BIRD", "", prose(1, 9), "", "", "", "HANS IN LUCK", "", prose(2, 9), "", "", "", "OLD SULTAN", "", prose(3, 9)),
		lines("Title", "=====", "", "text", "", "Sub", "---", "", "more"),
		lines("Title: X", "Author: Y and Z Q", "Language: French", "*** START OF THE PROJECT GUTENBERG EBOOK X ***", "I.", "", "text.", "", "II.", "", "more.", "*** END OF THE PROJECT GUTENBERG EBOOK X ***"),
		"CHAPITRE I.\n\nConclusion.\n\ntexte\f\fCHAPITRE II\r\n\r\nsuite\r",
		"\xEF\xBB\xBFa\r\nb",
		"\xFF\xFEa\x00b\x00",
		"\xFE\xFF\x00a\xD8\x00",
		"caf\xe9 \x93quoted\x94",
		"\x00\x01\x02",
		"    indented\n    verse\n\n- a\n- b\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	if files, err := filepath.Glob(filepath.Join("testdata", "outline", "*.txt")); err == nil {
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(context.Background(), data)
		if err != nil {
			if !errors.Is(err, ErrBinary) && !errors.Is(err, doc.ErrNoText) {
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
					strs = append(strs, b.Text)
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
