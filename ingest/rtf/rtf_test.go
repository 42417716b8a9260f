package rtf

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

func mustParse(t *testing.T, src string) *doc.Document {
	t.Helper()
	d, err := Parse(context.Background(), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, d)
	return d
}

// checkTree checks the invariants of a parsed document.
func checkTree(t *testing.T, d *doc.Document) {
	t.Helper()
	for _, c := range d.Chapters {
		if len(c.Sections) == 0 {
			t.Fatalf("chapter %q without sections", c.Title)
		}
		for _, s := range c.Sections {
			if len(s.Blocks) == 0 {
				t.Fatalf("section %q of %q without blocks", s.Title, c.Title)
			}
			for _, b := range s.Blocks {
				if strings.TrimSpace(b.Text) == "" {
					t.Fatalf("empty block in %q", c.Title)
				}
			}
		}
	}
}

// rtf wraps a body in a document with a font table of a Western, a
// Cyrillic and a Japanese font.
func rtf(body string) string {
	return `{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\froman\fcharset0 Times;}{\f1\fswiss\fcharset204 Arial;}{\f2\fnil\fcharset128 MS Mincho;}}` +
		`{\colortbl;\red255\green0\blue0;}` + "\n" + body + "}"
}

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"plain", `Hello {\b bold} world.\par`, "Hello bold world."},
		{"source newlines are no spaces", "Hel\nlo wor\r\nld\\par", "Hello world"},
		{"unicode with its fallback skipped", `d\u233?j\u224? vu\par`, "déjà vu"},
		{"the letter after a fallback kept", `\u8220?Oh!\u8221? she said\par`, "“Oh!” she said"},
		{"uc0: no fallback", `{\uc0\u233 t\u233}\par`, "été"},
		{"uc2: a two-byte fallback", `{\uc2\u30000\'81\'40x}\par`, "田x"},
		{"negative and surrogate pairs", `\u-3908?\u-10179?\u-8704?\par`, "\uF0BC😀"},
		{"hex bytes in the document's code page", `caf\'e9 \'93quoted\'94\par`, "café “quoted”"},
		{"hex bytes in a Cyrillic font", `{\f1 \'cf\'f0\'e8\'e2\'e5\'f2}\par`, "Привет"},
		{"double-byte code page", `{\f2 \'82\'a0\'82\'a2}\par`, "あい"},
		{"escaped braces and backslash", `a \{b\} \\c\par`, `a {b} \c`},
		{"symbols", `a\~b\_c\-d\emdash e\endash f\bullet\lquote g\rquote\ldblquote h\rdblquote\par`, "a b-cd—e–f•‘g’“h”"},
		{"line breaks", `one\line two\par`, "one\ntwo"},
		{"hidden text", `seen {\v hidden} seen\par`, "seen seen"},
		{"skipped destinations", `{\*\generator Writer;}{\header running head}{\pict\pngblip 89504e47}a{\*\bkmkstart x}b\par`, "ab"},
		{"unknown starred destination", `{\*\unknownthing secret}shown\par`, "shown"},
		{"field result kept, instruction dropped", `{\field{\*\fldinst{HYPERLINK "http://x"}}{\fldrslt{\ul link}}}\par`, "link"},
		{"binary data skipped", "a{\\*\\blipuid \\bin6 }{\\}x}}b\\par", "ab"},
		{"text after the document's end", `a\par}}}b\par`, "a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, rtf(tc.body))
			if got := d.Text(); got != tc.want {
				t.Errorf("text %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFrontMatterNamedAsTheDocument(t *testing.T) {
	d := mustParse(t, `{\rtf1{\info{\title Port Notes}}Front.\par{\pard\outlinelevel0 A\par}a\par{\pard\outlinelevel0 B\par}b\par}`)
	if got, want := shape(d), []string{"Port Notes/", "A/", "B/"}; !slices.Equal(got, want) {
		t.Errorf("shape %q, want %q", got, want)
	}
}

func TestMetadata(t *testing.T) {
	d := mustParse(t, `{\rtf1\ansi\deflang1036{\info{\title Le Port}{\author Anne Autrice; Bo Auteur}{\company Ignored}}Texte.\par}`)
	if d.Title != "Le Port" || !slices.Equal(d.Authors, []string{"Anne Autrice", "Bo Auteur"}) || d.Language != "fr" ||
		d.SourceType != doc.RTF || d.Text() != "Texte." {
		t.Errorf("metadata %q %q %q %q, text %q", d.Title, d.Authors, d.Language, d.SourceType, d.Text())
	}
}

// shape lists chapters and their sections as "Chapter/Section".
func shape(d *doc.Document) []string {
	var out []string
	for _, c := range d.Chapters {
		for _, s := range c.Sections {
			out = append(out, c.Title+"/"+s.Title)
		}
	}
	return out
}

func TestHeadings(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{
			"outline levels",
			rtf(`{\pard\outlinelevel0 Book Title\par}{\pard Intro.\par}` +
				`{\pard\outlinelevel1 One\par}{\pard a\par}{\pard\outlinelevel2 Detail\par}{\pard b\par}` +
				`{\pard\outlinelevel1 Two\par}{\pard c\par}{\pard\outlinelevel3 Deep\par}{\pard d\par}`),
			[]string{"Book Title/", "One/", "One/Detail", "Two/"},
		},
		{
			"stylesheet outline levels and names",
			`{\rtf1{\stylesheet{\s0 Normal;}{\s1\outlinelevel0 Chapter Head;}{\s2 heading 2;}{\*\cs3 heading 1;}}` +
				`{\s1 First\par}\pard{\s2 Part\par}\pard text\par{\s1 Second\par}\pard more {\cs3 styled} text\par}`,
			[]string{"First/Part", "Second/"},
		},
		{
			"no headings",
			rtf(`One.\par Two.\par`),
			[]string{"/"},
		},
		{
			"a long paragraph in a heading style is text",
			rtf(`{\pard\outlinelevel0 ` + strings.Repeat("word ", 100) + `\par}{\pard\outlinelevel0 A\par}x\par{\pard\outlinelevel0 B\par}y\par`),
			[]string{"/", "A/", "B/"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.src)
			if got := shape(d); !slices.Equal(got, tc.want) {
				t.Errorf("shape %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTableAndFootnotes(t *testing.T) {
	d := mustParse(t, rtf(`Before.\par`+
		`\trowd\cellx1000\cellx2000\pard\intbl Name\cell\pard\intbl Port\cell\row`+
		`\trowd\cellx1000\cellx2000\pard\intbl Anna\cell\pard\intbl Hull\par second line\cell\row`+
		`\pard After{\super\chftn}{\*\footnote\chftn\~\pard Note {\i one}.\par}.\par Next.\par`))
	var got []string
	var kinds []doc.BlockKind
	for _, b := range d.Blocks() {
		got = append(got, b.Text)
		kinds = append(kinds, b.Kind)
	}
	want := []string{"Before.", "Name | Port\nAnna | Hull second line", "After[1].", "[1] Note one.", "Next."}
	if !slices.Equal(got, want) {
		t.Errorf("blocks %q, want %q", got, want)
	}
	if kinds[1] != doc.Table {
		t.Errorf("table block of kind %v", kinds[1])
	}
}

func TestLinesCited(t *testing.T) {
	d := mustParse(t, "{\\rtf1\n{\\pard\\outlinelevel0 Title\\par}\n\nFirst.\\par\nSecond\n\\par}")
	c := d.Chapters[0]
	if c.Anchor != "L2" || c.Sections[0].Blocks[0].Line != 4 || c.Sections[0].Blocks[1].Line != 5 {
		t.Errorf("anchor %q, lines %d %d", c.Anchor, c.Sections[0].Blocks[0].Line, c.Sections[0].Blocks[1].Line)
	}
}

func TestNotRTF(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want string
	}{
		{"empty", "", "the file is empty"},
		{"text", "Dear Anna,\nthe ferry leaves at dawn.\n", "it looks like plain text"},
		{"docx", "PK\x03\x04rest", "it is a zip archive, as DOCX files are"},
		{"doc", "\xd0\xcf\x11\xe0\xa1\xb1", "it is an old Word document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(context.Background(), []byte(tc.data))
			if !errors.Is(err, ErrNotRTF) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestHostile checks nesting far past the limit and other shapes of
// hostile input: the text around them is still read, in linear time.
func TestHostile(t *testing.T) {
	deep := strings.Repeat("{", 200000) + "inside" + strings.Repeat("}", 200000)
	for _, tc := range []struct {
		name, src, want string
	}{
		{"deep nesting", `{\rtf1 before ` + deep + ` after\par}`, "before inside after"},
		{"deep skipped nesting", `{\rtf1 before {\*\x ` + deep + `} after\par}`, "before after"},
		{"unclosed groups", `{\rtf1 text {\b more {\i and more\par`, "text more and more"},
		{"huge \bin", `{\rtf1 a\bin999999999 bcd}`, "a"},
		{"control word too long", `{\rtf1 \` + strings.Repeat("a", 5000) + ` x\par}`, "aaaaa"},
		{"huge parameters", `{\rtf1 \fs99999999999999 \u99999999999999?x\par}`, "x"},
		{"truncated escape", `{\rtf1 ab\'`, "ab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(context.Background(), []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			checkTree(t, d)
			if !strings.Contains(d.Text(), tc.want) {
				t.Errorf("text %.200q lacks %q", d.Text(), tc.want)
			}
		})
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big := rtf(strings.Repeat(`Words and more words.\par `, 20000))
	if _, err := Parse(ctx, []byte(big)); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

// TestCatalog: the \info group's subject is a tag, its keywords several;
// a subject outside \info is no metadata, and its text is not the body's.
func TestCatalog(t *testing.T) {
	d := mustParse(t, `{\rtf1{\info{\title Port}{\subject Harbour works}{\keywords tides, cranes; Tides}{\creatim\yr2001\mo2\dy3}}Text.\par}`)
	if want := []string{"Harbour works", "tides", "cranes"}; !slices.Equal(d.Catalog.Tags, want) || d.Text() != "Text." {
		t.Errorf("tags %q, want %q; text %q", d.Catalog.Tags, want, d.Text())
	}
	d = mustParse(t, `{\rtf1{\subject Stray}Text.\par}`)
	if len(d.Catalog.Tags) != 0 || d.Text() != "Text." {
		t.Errorf("a subject outside \\info: tags %q, text %q", d.Catalog.Tags, d.Text())
	}
}
