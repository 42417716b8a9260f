package mdbook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// chapter is an entry of a test book with its file's text.
type chapter struct {
	entry
	text string
}

// bundle makes the bytes the pipeline hands Parse.
func bundle(t testing.TB, title string, chs ...chapter) []byte {
	t.Helper()
	h := header{Title: title}
	var body strings.Builder
	for _, c := range chs {
		e := c.entry
		if e.File != "" {
			e.Size = int64(len(c.text))
			body.WriteString(c.text)
		}
		h.Entries = append(h.Entries, e)
	}
	line, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(Magic + string(line) + "\n" + body.String())
}

// dump lists chapters and sections with their anchors, and each block's
// anchor and text.
func dump(d *doc.Document) string {
	var b strings.Builder
	for _, c := range d.Chapters {
		fmt.Fprintf(&b, "# %s [%s]\n", c.Title, c.Anchor)
		for _, s := range c.Sections {
			fmt.Fprintf(&b, "## %s [%s]\n", s.Title, s.Anchor)
			for _, bl := range s.Blocks {
				fmt.Fprintf(&b, "%s %s\n", bl.Anchor, bl.Text)
			}
		}
	}
	return b.String()
}

func TestParse(t *testing.T) {
	data := bundle(t, "Sea Book",
		chapter{entry{Title: "Preface", File: "preface.md"}, "# Preface\n\nWritten on a pier.\n"},
		chapter{entry{Title: "Part One", Part: true}, ""},
		chapter{entry{Title: "Harbours", File: "harbours.md"}, "# Harbours\n\nShelter.\n\n```rust\n{{#rustdoc_include ../listings/a.rs:here}}\n```\n\n## Quays\n\nCargo {{#include x.md}}here.\n\n### Bollards\n\nIron posts.\n"},
		chapter{entry{Title: "Breakwaters", Level: 1, File: "harbours/breakwaters.md"}, "## Breakwaters\n\nGranite.\n"},
		chapter{entry{Title: "Old Works", Level: 1}, ""},
		chapter{entry{Title: "Piers", Level: 2, File: "piers.md"}, "Timber piles.\n\n# Ends\n\nA lamp.\n"},
		chapter{entry{Title: "Tides", File: "tides.md"}, "# Tides\n"},
	)
	d, err := Parse(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	want := `# Preface [preface.md]
## Preface [preface.md#L3]
preface.md#L3 Written on a pier.
# Part One › Harbours [harbours.md]
## Harbours [harbours.md#L3]
harbours.md#L3 Shelter.
## Harbours › Quays [harbours.md#L9]
harbours.md#L11 Cargo here.
harbours.md#L13 Bollards
harbours.md#L15 Iron posts.
## Breakwaters [harbours/breakwaters.md#L3]
harbours/breakwaters.md#L3 Granite.
## Old Works › Piers [piers.md#L1]
piers.md#L1 Timber piles.
## Old Works › Piers › Ends [piers.md#L3]
piers.md#L5 A lamp.
# Part One › Tides [tides.md]
`
	if got := dump(d); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if d.Title != "Sea Book" || d.SourceType != doc.MDBook {
		t.Errorf("title %q, type %q", d.Title, d.SourceType)
	}
}

func TestParseDamaged(t *testing.T) {
	good := bundle(t, "B", chapter{entry{Title: "A", File: "a.md"}, "# A\n\ntext\n"})
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"no magic", []byte("# A\n\ntext\n")},
		{"no end to the list", []byte(Magic + `{"title":"B"`)},
		{"not JSON", []byte(Magic + "{]\n")},
		{"bytes past the end", []byte(strings.Replace(string(good), `"size":10`, `"size":99`, 1))},
		{"negative size", []byte(strings.Replace(string(good), `"size":10`, `"size":-1`, 1))},
		{"bytes after the last chapter", append(append([]byte{}, good...), "more"...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse(context.Background(), tc.data); !errors.Is(err, ErrDamaged) {
				t.Errorf("Parse: %v", err)
			}
		})
	}
	if _, err := Parse(context.Background(), good); err != nil {
		t.Errorf("the good book: %v", err)
	}
}

func TestStripDirectives(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{{#include ../a.rs}}\ntext", "\ntext"},
		{"a {{#playground x.rs editable}} b", "a  b"},
		{"{{#title My Title}}", ""},
		{"{{ not one }} {{#}}", "{{ not one }} {{#}}"},
	} {
		if got := string(StripDirectives([]byte(tc.in))); got != tc.want {
			t.Errorf("StripDirectives(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzParse checks that no input makes Parse panic, and that a book it
// reads has valid text, no empty section, and anchors that name its files.
func FuzzParse(f *testing.F) {
	f.Add(bundle(f, "B", chapter{entry{Title: "A", File: "a.md"}, "# A\n\n## S\n\ntext {{#include x}}\n"}, chapter{entry{Title: "P", Part: true}, ""}, chapter{entry{Title: "C", Level: 3, File: "c.md"}, "x"}))
	f.Add([]byte(Magic + `{"entries":[{"file":"a","size":1},{"file":"b","size":0}]}` + "\nx"))
	f.Add([]byte(Magic + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(context.Background(), data)
		if err != nil {
			return
		}
		for _, c := range d.Chapters {
			for _, s := range c.Sections {
				if len(s.Blocks) == 0 {
					t.Fatalf("empty section %q", s.Title)
				}
				for _, b := range s.Blocks {
					if !utf8.ValidString(b.Text) || strings.Contains(b.Text, "{{#") && strings.Contains(b.Text, "}}") && directive.MatchString(b.Text) {
						t.Fatalf("block %q", b.Text)
					}
				}
			}
		}
	})
}
