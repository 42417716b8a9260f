package rtf

import (
	"context"
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzParse checks that no input makes Parse panic or fail with anything
// but ErrNotRTF, and that what it returns is valid UTF-8 in a well-formed
// tree. Inputs that once found a bug live in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	seeds := []string{
		rtf(`Hello {\b bold}\par d\u233?j\u224? {\uc2\u30000\'81\'40}{\f1 \'cf\'f0}{\f2 \'82\'a0}\line x\par`),
		`{\rtf1{\info{\title T}{\author A}}{\stylesheet{\s1\outlinelevel0 H;}{\s2 heading 2;}}{\s1 One\par}\pard{\s2 Two\par}\pard text\par}`,
		rtf(`\trowd\cellx1\pard\intbl a\cell b\cell\row\pard after{\super\chftn}{\*\footnote\chftn\~note\par}.\par`),
		rtf(`{\*\generator g;}{\pict 8950}{\field{\*\fldinst x}{\fldrslt y}}\bin3 abc{\v hid}\~\emdash\u-10179?\u-8704?`),
		`{\rtf1 {{{{{{deep}}}}}} \'zz \u \uc \ansicpg65001 \'c3\'a9`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	lim := limits{maxDepth: 32, maxHeading: 300}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parse(context.Background(), data, lim)
		if err != nil {
			if !errors.Is(err, ErrNotRTF) {
				t.Fatalf("undocumented error: %v", err)
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
