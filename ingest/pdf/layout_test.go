package pdf

import (
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/pdf/internal/pdfium"
)

// Layout tests on synthetic characters and lines: no PDFium needed.

// glyphs lays s out as PDFium would give it: one character per rune,
// advancing w points each, on a baseline at y, with the font's ascent
// and descent box; spaces are PDFium-generated (no advance of their own
// beyond the gap they stand for).
func glyphs(s string, x, y, w float64) []pdfium.Char {
	var out []pdfium.Char
	for _, r := range s {
		c := pdfium.Char{Rune: r, Left: float32(x), Right: float32(x + w), Bottom: float32(y - 2), Top: float32(y + 8)}
		if r == ' ' {
			c.Right = c.Left
		}
		out = append(out, c)
		x += w
	}
	return out
}

func lineBreak() pdfium.Char { return pdfium.Char{Rune: '\n', NoBox: true} }

func fragTexts(fs []fragment) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.text)
	}
	return out
}

func TestBuildFragments(t *testing.T) {
	t.Run("lines", func(t *testing.T) {
		var cs []pdfium.Char
		cs = append(cs, glyphs("Hello world", 72, 700, 5)...)
		cs = append(cs, lineBreak())
		cs = append(cs, glyphs("second line", 72, 686, 5)...)
		fs := buildFragments(cs)
		if got := fragTexts(fs); !slices.Equal(got, []string{"Hello world", "second line"}) {
			t.Errorf("%q", got)
		}
		if fs[0].dir != dirRight || fs[0].x0 != 72 || fs[0].x1 != 72+11*5 {
			t.Errorf("first fragment %+v", fs[0])
		}
	})
	t.Run("hyphen joins the next line without a break from PDFium", func(t *testing.T) {
		cs := glyphs("docu", 72, 700, 5)
		cs = append(cs, pdfium.Char{Rune: 2, NoBox: true})
		cs = append(cs, glyphs("ment follows", 72, 686, 5)...)
		fs := buildFragments(cs)
		if got := fragTexts(fs); !slices.Equal(got, []string{"docu", "ment follows"}) || !fs[0].hyphen {
			t.Errorf("%q hyphen=%v", got, fs[0].hyphen)
		}
	})
	t.Run("a jump back to the margin is a new line", func(t *testing.T) {
		cs := append(glyphs("one line", 72, 700, 5), glyphs("next", 72, 686, 5)...)
		if got := fragTexts(buildFragments(cs)); !slices.Equal(got, []string{"one line", "next"}) {
			t.Errorf("%q", got)
		}
	})
	t.Run("vertical text", func(t *testing.T) {
		var cs []pdfium.Char
		y := 100.0
		for _, r := range "upward" {
			cs = append(cs, pdfium.Char{Rune: r, Left: 50, Right: 60, Bottom: float32(y), Top: float32(y + 5)})
			y += 5
		}
		fs := buildFragments(cs)
		if len(fs) != 1 || fs[0].text != "upward" || fs[0].dir != dirUp || fs[0].h != 10 {
			t.Errorf("%+v", fs)
		}
	})
	t.Run("shared box of a one-to-many mapping", func(t *testing.T) {
		c := pdfium.Char{Left: 72, Right: 80, Bottom: 698, Top: 708}
		var cs []pdfium.Char
		for _, r := range "ffi" {
			c.Rune = r
			cs = append(cs, c)
		}
		cs = append(cs, glyphs("ce", 80, 700, 5)...)
		if got := fragTexts(buildFragments(cs)); !slices.Equal(got, []string{"ffice"}) {
			t.Errorf("%q", got)
		}
	})
	t.Run("gaps become spaces once the size is known", func(t *testing.T) {
		cs := glyphs("end.", 72, 700, 5)
		cs = append(cs, glyphs("Next", 72+4*5+3, 700, 5)...) // a 3 pt gap
		fs := buildFragments(cs)
		f := fs[0]
		f.size = 10
		f.spaceGaps()
		if f.text != "end. Next" {
			t.Errorf("%q", f.text)
		}
		f = fs[0]
		f.size = 40 // the gap is kerning at this size
		f.spaceGaps()
		if f.text != "end.Next" {
			t.Errorf("%q", f.text)
		}
	})
	t.Run("accent set over its letter", func(t *testing.T) {
		cs := glyphs("Thorvald", 72, 700, 5)
		// An umlaut drawn over the 'a' (the sixth glyph), after the word.
		cs = append(cs, pdfium.Char{Rune: '\u00A8', Left: 72 + 5*5, Right: 72 + 6*5, Bottom: 698, Top: 708})
		fs := buildFragments(cs)
		if got := fragTexts(fs); len(got) != 1 || normalize(got[0], false) != "Thorväld" {
			t.Errorf("%q", got)
		}
	})
	t.Run("stand-ins and dropped characters", func(t *testing.T) {
		cs := glyphs("ab", 72, 700, 5)
		cs[1].Rune = standIn(0)
		cs = append(cs, pdfium.Char{Rune: -1, Left: 82, Right: 87, Bottom: 698, Top: 708})
		fs := buildFragments(cs)
		pg := &rawPage{unmapped: []unmappedChar{{font: 0, code: 7}}, fonts: []string{"ABCDEF+Font"}}
		got := resolveStandIns(fs[0].text, pg, map[string]map[uint32]string{"Font": {7: "fi"}})
		if got != "afi" {
			t.Errorf("%q", got)
		}
	})
}

// ln is a line in a reading frame, for order and paragraph tests.
func ln(text string, x0, y0, x1 float64) line {
	return line{text: text, x0: x0, y0: y0, x1: x1, y1: y0 + 10, h: 10, size: 10, glyphs: len(text)}
}

func orderedTexts(ls []line) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.text)
	}
	return out
}

func TestOrderColumns(t *testing.T) {
	var ls []line
	ls = append(ls, ln("TITLE ACROSS THE PAGE", 100, 40, 500))
	for i := range 8 {
		y := 80 + float64(i)*12
		ls = append(ls, ln("L"+string(rune('a'+i)), 72, y, 290), ln("R"+string(rune('a'+i)), 320, y, 540))
	}
	ls = append(ls, ln("FOOTNOTE ACROSS THE PAGE", 72, 200, 540))
	for i := range 4 {
		y := 220 + float64(i)*12
		ls = append(ls, ln("l"+string(rune('a'+i)), 72, y, 290), ln("r"+string(rune('a'+i)), 320, y, 540))
	}
	got := strings.Join(orderedTexts(order(ls)), " ")
	want := "TITLE ACROSS THE PAGE La Lb Lc Ld Le Lf Lg Lh Ra Rb Rc Rd Re Rf Rg Rh FOOTNOTE ACROSS THE PAGE la lb lc ld ra rb rc rd"
	if got != want {
		t.Errorf("order:\n%s\nwant\n%s", got, want)
	}
}

func TestOrderSingleColumn(t *testing.T) {
	// Short last lines and a centred heading must not look like columns.
	ls := []line{
		ln("Centred Heading", 250, 40, 360),
		ln("a full line of text across the measure", 72, 60, 540),
		ln("another full line across the measure", 72, 72, 540),
		ln("short end.", 72, 84, 150),
		ln("a new paragraph starts here", 90, 96, 540),
		ln("and runs on", 72, 108, 540),
		ln("to a short end.", 72, 120, 200),
		ln("another paragraph", 90, 132, 540),
	}
	got := orderedTexts(order(ls))
	if !slices.Equal(got, orderedTexts(ls)) {
		t.Errorf("reordered: %q", got)
	}
	groups := map[int]bool{}
	for _, l := range order(ls) {
		groups[l.group] = true
	}
	if len(groups) > 2 {
		t.Errorf("%d groups for one column", len(groups))
	}
}

func TestOrderAuthorBlock(t *testing.T) {
	// Authors side by side above two columns: the authors come first.
	ls := []line{
		ln("Author One", 100, 40, 200), ln("Author Two", 350, 40, 450),
		ln("Place One", 100, 52, 200), ln("Place Two", 350, 52, 450),
	}
	for i := range 6 {
		y := 90 + float64(i)*12
		ls = append(ls, ln("L"+string(rune('a'+i)), 72, y, 290), ln("R"+string(rune('a'+i)), 320, y, 540))
	}
	got := strings.Join(orderedTexts(order(ls)), " ")
	if !strings.HasPrefix(got, "Author One Author Two Place One Place Two La") && !strings.HasPrefix(got, "Author One Place One Author Two Place Two La") {
		t.Errorf("order: %s", got)
	}
	if !strings.HasSuffix(got, "Lf Ra Rb Rc Rd Re Rf") {
		t.Errorf("columns: %s", got)
	}
}

func TestParagraphs(t *testing.T) {
	ls := []line{
		ln("A first paragraph of running text that", 72, 100, 540),
		ln("fills the measure and ends here.", 72, 112, 300),
		ln("The second one begins with an", 90, 124, 540),
		ln("indent and con", 72, 136, 540),
		ln("tinues with a hyphen.", 72, 148, 540),
		ln("• a bullet item", 72, 160, 300),
		ln("• another item", 72, 172, 300),
		ln("After a blank line", 72, 200, 540),
	}
	ls[3].hyphen = true
	for i := range ls {
		ls[i].group = 0
	}
	var got []string
	for _, b := range paragraphs(0, ls) {
		got = append(got, b.text)
	}
	want := []string{
		"A first paragraph of running text that fills the measure and ends here.",
		"The second one begins with an indent and con\uFDD0tinues with a hyphen.",
		"• a bullet item",
		"• another item",
		"After a blank line",
	}
	if !slices.Equal(got, want) {
		t.Errorf("paragraphs:\n%q\nwant\n%q", got, want)
	}
}

func TestHeadingLinesBreakParagraphs(t *testing.T) {
	head := ln("Definition 12", 72, 100, 160)
	head.bold = true
	body := ln("Let X be a space and f a map that runs on.", 72, 112, 540)
	var got []string
	for _, b := range paragraphs(0, []line{head, body}) {
		got = append(got, b.text)
	}
	if len(got) != 2 {
		t.Errorf("%q", got)
	}
}

func TestFurniture(t *testing.T) {
	page := func(i int, extra ...line) framedPage {
		ls := []line{
			ln("THE BOOK TITLE", 72, 20, 300),
			ln("Chapter body text that differs on every page number "+string(rune('a'+i)), 72, 100, 540),
			ln("more body text", 72, 112, 540),
		}
		ls = append(ls, extra...)
		ls = append(ls, ln(strings.Repeat("1", 1+i%3), 300, 760, 310))
		return framedPage{index: i, w: 612, h: 792, lines: ls}
	}
	var pages []framedPage
	for i := range 10 {
		var extra []line
		if i%5 == 0 {
			// A chapter opening at the top of a page, every fifth page.
			h := ln("Chapter "+string(rune('1'+i/5)), 72, 30, 300)
			h.size = 20
			extra = append(extra, h)
		}
		pages = append(pages, page(i, extra...))
	}
	dropFurniture(pages, 10)
	for _, p := range pages {
		for _, l := range p.lines {
			if l.text == "THE BOOK TITLE" || allDigits(l.text) {
				t.Errorf("page %d kept %q", p.index, l.text)
			}
		}
		if len(p.lines) < 2 {
			t.Errorf("page %d lost body text", p.index)
		}
	}
	if got := pages[5].lines[len(pages[5].lines)-1].text; got != "Chapter 2" {
		t.Errorf("chapter heading dropped: %q", got)
	}
}

func TestFurnitureKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"14 FREE CULTURE", "# free culture"},
		{"xiv Preface", "# preface"},
		{"Page 3 of 10", "page # of #"},
		{"10.6028/NIST.SP.800-207", "#.#/nist.sp.#-#"},
		{"Civil rights", "civil rights"},
	} {
		if got := furnitureKey(tc.in); got != tc.want {
			t.Errorf("furnitureKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, s := range []string{"12", "xiv", "- 3 -", "Page 4 of 9"} {
		if !isPageNumber(s) {
			t.Errorf("%q is a page number", s)
		}
	}
	if isPageNumber("12 Angry Men") {
		t.Error("a title is not a page number")
	}
}
