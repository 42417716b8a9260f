package pdf

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/golden"
)

// TestPageFurnitureGolden runs dropPageFurniture over the synthetic pages
// of testdata/pagefurniture/*.txt and compares the lines kept with the
// .golden beside each; run with -update after a deliberate change.
//
// A page starts at a "--- page" line; each line after it is "Y SIZE
// TEXT", its top on a page of 600 by 800 points and its font size, set
// centred.
func TestPageFurnitureGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "pagefurniture", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			pages := readPages(t, file)
			dropPageFurniture(pages)
			var b strings.Builder
			for i, p := range pages {
				b.WriteString("--- page " + strconv.Itoa(i+1) + "\n")
				for _, l := range p.lines {
					b.WriteString(l.text + "\n")
				}
			}
			got := b.String()
			path := strings.TrimSuffix(file, ".txt") + ".golden"
			golden.Check(t, path, got, "lines kept", *update)
		})
	}
}

func readPages(t *testing.T, file string) []framedPage {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pages []framedPage
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		s := sc.Text()
		switch {
		case s == "" || strings.HasPrefix(s, "#"):
			continue
		case s == "--- page":
			pages = append(pages, framedPage{index: len(pages), w: 600, h: 800})
			continue
		}
		ys, rest, _ := strings.Cut(s, " ")
		sizes, text, _ := strings.Cut(rest, " ")
		y, err1 := strconv.ParseFloat(ys, 64)
		size, err2 := strconv.ParseFloat(sizes, 64)
		if err1 != nil || err2 != nil || len(pages) == 0 {
			t.Fatalf("%s: bad line %q", file, s)
		}
		n := len([]rune(text))
		p := &pages[len(pages)-1]
		// Centred, as page numbers are; a long line spans the text block.
		width := min(500, 5*float64(n))
		p.lines = append(p.lines, line{text: text, x0: 300 - width/2, x1: 300 + width/2, y0: y, y1: y + size, h: size, size: size, glyphs: n})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pages
}

// TestRecognisedPrinterMarks: OCR reads a printer's slug and bars as it
// reads the text; they are dropped line by line, the prose around them
// kept.
func TestRecognisedPrinterMarks(t *testing.T) {
	text := "14773 _01_1-174 r9jm.qxd 2/10/04 3:51 PM eye 15 UY\n\n" +
		"On December 17, 1903, on a windy North Carolina beach for just\nshy of one hundred seconds, the Wright brothers flew.\n\n" +
		"|| ||| | |||| ||\nThe last line of the page stays.\n\n17"
	var got []string
	for _, b := range recognisedBlocks(16, text) {
		got = append(got, b.text)
	}
	want := []string{
		"On December 17, 1903, on a windy North Carolina beach for just shy of one hundred seconds, the Wright brothers flew.",
		"The last line of the page stays.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("blocks:\n%q\nwant\n%q", got, want)
	}
}
