package text

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// The tests below run on the shared corpus of real books and skip where it
// is absent. Their expectations were checked against the files by hand
// (grep); where cheap, the test re-derives them from the raw file too.

func readCorpus(t *testing.T, elem ...string) []byte {
	t.Helper()
	data, err := os.ReadFile(testcorpus.Path(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func parseCorpus(t *testing.T, elem ...string) *doc.Document {
	t.Helper()
	d := parseCorpusRaw(t, elem...)
	checkClean(t, d)
	return d
}

// parseCorpusRaw parses without the boilerplate checks, for files whose
// Gutenberg markers are not where markers can be recognised.
func parseCorpusRaw(t *testing.T, elem ...string) *doc.Document {
	t.Helper()
	d, err := Parse(context.Background(), readCorpus(t, elem...))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	checkTree(t, d)
	return d
}

// checkClean asserts that no text carries decoding damage or licence text.
func checkClean(t *testing.T, d *doc.Document) {
	t.Helper()
	strs := append([]string{d.Title, d.Language}, d.Authors...)
	for _, c := range d.Chapters {
		strs = append(strs, c.Title)
		for _, s := range c.Sections {
			strs = append(strs, s.Title)
		}
	}
	strs = append(strs, d.Text())
	for _, s := range strs {
		if !utf8.ValidString(s) {
			t.Errorf("invalid UTF-8 in %.60q", s)
		}
		if i := strings.IndexRune(s, utf8.RuneError); i >= 0 {
			t.Errorf("U+FFFD in %.80q", s[max(0, i-40):])
		}
		for _, junk := range []string{"\r", "\uFEFF", "Ã©", "â€", "PROJECT GUTENBERG LICENSE", "*** START OF", "*** END OF"} {
			if strings.Contains(s, junk) {
				t.Errorf("%q in %.60q", junk, s)
			}
		}
	}
}

func romanOf(n int) string {
	var b strings.Builder
	for _, st := range []struct {
		v int
		s string
	}{{100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}} {
		for n >= st.v {
			b.WriteString(st.s)
			n -= st.v
		}
	}
	return b.String()
}

// grepLines returns the lines of a UTF-8 corpus file that match re.
func grepLines(t *testing.T, data []byte, re *regexp.Regexp) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		if l := strings.TrimRight(sc.Text(), "\r"); re.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

func TestCorpusAlice(t *testing.T) {
	d := parseCorpus(t, "books", "text", "11-0.txt")
	if d.Title != "Alice's Adventures in Wonderland" || !slices.Equal(d.Authors, []string{"Lewis Carroll"}) || d.Language != "en" {
		t.Errorf("metadata: %q %q %q", d.Title, d.Authors, d.Language)
	}
	want := []string{
		"CHAPTER I. Down the Rabbit-Hole",
		"CHAPTER II. The Pool of Tears",
		"CHAPTER III. A Caucus-Race and a Long Tale",
		"CHAPTER IV. The Rabbit Sends in a Little Bill",
		"CHAPTER V. Advice from a Caterpillar",
		"CHAPTER VI. Pig and Pepper",
		"CHAPTER VII. A Mad Tea-Party",
		"CHAPTER VIII. The Queen’s Croquet-Ground",
		"CHAPTER IX. The Mock Turtle’s Story",
		"CHAPTER X. The Lobster Quadrille",
		"CHAPTER XI. Who Stole the Tarts?",
		"CHAPTER XII. Alice’s Evidence",
	}
	if got := chapterTitles(d); !slices.Equal(got, want) {
		t.Fatalf("chapters:\n%q\nwant\n%q", got, want)
	}
	anchors := []string{"L40", "L252", "L453", "L697", "L958", "L1254", "L1571", "L1910", "L2213", "L2530", "L2829", "L3087"}
	for i, c := range d.Chapters {
		if c.Anchor != anchors[i] || len(c.Sections) != 1 {
			t.Errorf("chapter %d: anchor %s, %d sections", i, c.Anchor, len(c.Sections))
		}
	}
	first := d.Chapters[0].Sections[0].Blocks[0]
	if first.Line != 42 || !strings.HasPrefix(first.Text, "Alice was beginning to get very tired of sitting by her sister on the bank, and of having") {
		t.Errorf("first block at L%d: %.80q", first.Line, first.Text)
	}
	text := d.Text()
	if strings.Contains(text, "MILLENNIUM FULCRUM") || strings.Contains(text, "Gutenberg") {
		t.Error("front matter or licence kept")
	}
	last := d.Chapters[11].Sections[0].Blocks
	if b := last[len(last)-1]; b.Text != "THE END" {
		t.Errorf("last block %q", b.Text)
	}
	// Verse set in from the margin keeps its lines.
	if !strings.Contains(text, "‘How doth the little crocodile\n Improve his shining tail,\nAnd pour the waters of the Nile") {
		t.Error("the crocodile poem lost its line breaks")
	}
}

func TestCorpusFrankenstein(t *testing.T) {
	data := readCorpus(t, "books", "text", "pg84.txt")
	if utf8.Valid(data) {
		t.Fatal("expected the Windows-1252 copy")
	}
	if _, enc, err := Decode(data); err != nil || enc != "windows-1252" {
		t.Errorf("Decode: %q, %v", enc, err)
	}
	d := parseCorpus(t, "books", "text", "pg84.txt")
	if d.Title != "Frankenstein; Or, The Modern Prometheus" || !slices.Equal(d.Authors, []string{"Mary Wollstonecraft Shelley"}) || d.Language != "en" {
		t.Errorf("metadata: %q %q %q", d.Title, d.Authors, d.Language)
	}
	var want []string
	for i := 1; i <= 4; i++ {
		want = append(want, fmt.Sprintf("Letter %d", i))
	}
	for i := 1; i <= 24; i++ {
		want = append(want, fmt.Sprintf("Chapter %d", i))
	}
	if got := chapterTitles(d); !slices.Equal(got, want) {
		t.Fatalf("chapters:\n%q", got)
	}
	if d.Chapters[0].Anchor != "L71" || d.Chapters[4].Anchor != "L652" {
		t.Errorf("anchors %s %s", d.Chapters[0].Anchor, d.Chapters[4].Anchor)
	}
	text := d.Text()
	for _, q := range []string{"“", "”", "’", "—"} {
		if strings.Count(text, q) < 100 {
			t.Errorf("only %d %q", strings.Count(text, q), q)
		}
	}
	if !strings.Contains(text, "“I am by birth a Genevese") && !strings.Contains(text, "I am by birth a Genevese") {
		t.Error("chapter 1 text missing")
	}
	if !strings.Contains(text, "You will rejoice to hear that no disaster has accompanied the commencement of an enterprise") {
		t.Error("first letter not joined into prose")
	}
}

func TestCorpusCandide(t *testing.T) {
	d := parseCorpus(t, "books", "text", "Candide.txt")
	if d.Title != "Candide" || !slices.Equal(d.Authors, []string{"Voltaire"}) || d.Language != "fr" {
		t.Errorf("metadata: %q %q %q", d.Title, d.Authors, d.Language)
	}
	titles := chapterTitles(d)
	if len(titles) != 32 {
		t.Fatalf("%d chapters:\n%s", len(titles), outline(d))
	}
	// The front matter holds prose (the transcribers' thanks), so it is kept
	// as an untitled chapter; then the editor's preface; then 30 chapters.
	if titles[0] != "" || titles[1] != "Préface de l'Éditeur" {
		t.Errorf("front: %q", titles[:2])
	}
	for i, title := range titles[2:] {
		if prefix := "CHAPITRE " + romanOf(i+1) + ". "; !strings.HasPrefix(title, prefix) {
			t.Errorf("chapter %d = %q, want prefix %q", i+1, title, prefix)
		}
	}
	if titles[2] != "CHAPITRE I. Comment Candide fut élevé dans un beau château, et comment il fut chassé d'icelui." {
		t.Errorf("chapter I = %q", titles[2])
	}
	if titles[23] != "CHAPITRE XXII. Ce qui arriva en France à Candide et à Martin." {
		t.Errorf("chapter XXII = %q (footnote mark should be gone)", titles[23])
	}
	if titles[31] != "CHAPITRE XXX. Conclusion." {
		t.Errorf("chapter XXX = %q", titles[31])
	}
	text := d.Text()
	for _, w := range []string{"Cunégonde", "château", "Thunder-ten-tronckh", "pâtissière", "Giroflée", "cultiver notre jardin"} {
		if !strings.Contains(text, w) {
			t.Errorf("%q missing", w)
		}
	}
	if !strings.Contains((&doc.Document{Chapters: d.Chapters[1:2]}).Text(), "_Candide_ parut au plus tard en mars 1759") {
		t.Error("preface text missing")
	}
}

func TestCorpusWarAndPeace(t *testing.T) {
	data := readCorpus(t, "books", "text", "2600-0.txt")
	d := parseCorpus(t, "books", "text", "2600-0.txt")
	if d.Title != "War and Peace" || !slices.Equal(d.Authors, []string{"Leo Tolstoy"}) || d.Language != "en" {
		t.Errorf("metadata: %q %q %q", d.Title, d.Authors, d.Language)
	}
	// Headings at the margin are the body's; the contents list is indented.
	books := grepLines(t, data, regexp.MustCompile(`^(BOOK [A-Z]+: |FIRST EPILOGUE|SECOND EPILOGUE)`))
	chapters := grepLines(t, data, regexp.MustCompile(`^CHAPTER [IVXLC]+$`))
	if len(books) != 17 || len(chapters) != 365 {
		t.Fatalf("grep found %d books and %d chapters", len(books), len(chapters))
	}
	if got := chapterTitles(d); !slices.Equal(got, books) {
		t.Fatalf("books:\n%q\nwant\n%q", got, books)
	}
	perBook := []int{28, 21, 19, 16, 22, 26, 13, 22, 23, 39, 34, 16, 19, 19, 20, 16, 12}
	total := 0
	for i, c := range d.Chapters {
		if len(c.Sections) != perBook[i] {
			t.Errorf("%s: %d chapters, want %d", c.Title, len(c.Sections), perBook[i])
		}
		for k, s := range c.Sections {
			if want := "CHAPTER " + romanOf(k+1); s.Title != want {
				t.Errorf("%s section %d = %q, want %q", c.Title, k, s.Title, want)
				break
			}
		}
		total += len(c.Sections)
	}
	if total != len(chapters) {
		t.Errorf("%d chapters in the tree, %d in the text", total, len(chapters))
	}
	if d.Chapters[0].Anchor != "L837" || d.Chapters[0].Sections[0].Anchor != "L843" {
		t.Errorf("anchors %s %s", d.Chapters[0].Anchor, d.Chapters[0].Sections[0].Anchor)
	}
	if b := d.Chapters[0].Sections[0].Blocks[0]; !strings.HasPrefix(b.Text, "“Well, Prince, so Genoa and Lucca are now just family estates of the Buonapartes.") {
		t.Errorf("first block %.80q", b.Text)
	}
}

func TestCorpusGrimm(t *testing.T) {
	data := readCorpus(t, "books", "text", "2591-0.txt")
	d := parseCorpus(t, "books", "text", "2591-0.txt")
	if d.Title != "Grimms' Fairy Tales" || !slices.Equal(d.Authors, []string{"The Brothers Grimm"}) || d.Language != "en" {
		t.Errorf("metadata: %q %q %q", d.Title, d.Authors, d.Language)
	}
	// The tales are the contents entries set in by five spaces, less the two
	// parts of "The Wedding of Mrs Fox", which the book lists at that depth.
	var tales []string
	for _, l := range grepLines(t, data, regexp.MustCompile(`^     [A-Z][^a-z]+$`)) {
		if l = strings.TrimSpace(l); l != "FIRST STORY" && l != "SECOND STORY" {
			tales = append(tales, l)
		}
	}
	if len(tales) != 62 {
		t.Fatalf("grep found %d tales", len(tales))
	}
	titles := chapterTitles(d)
	if len(titles) != 63 || titles[0] != "" || !slices.Equal(titles[1:], tales) {
		t.Fatalf("chapters:\n%q\nwant \"\" then\n%q", titles, tales)
	}
	// The untitled front chapter is the preparer's note, which is prose.
	if front := (&doc.Document{Chapters: d.Chapters[:1]}).Text(); !strings.Contains(front, "Edgar Taylor and Marian Edwardes") || strings.Contains(front, "HANS IN LUCK") {
		t.Errorf("front matter:\n%s", front)
	}
	sections := func(title string) []string {
		for _, c := range d.Chapters {
			if c.Title == title {
				var ss []string
				for _, s := range c.Sections {
					ss = append(ss, s.Title)
				}
				return ss
			}
		}
		return nil
	}
	if got := sections("THE ADVENTURES OF CHANTICLEER AND PARTLET"); !slices.Equal(got, []string{
		"1. HOW THEY WENT TO THE MOUNTAINS TO EAT NUTS",
		"2. HOW CHANTICLEER AND PARTLET WENT TO VISIT MR KORBES",
		"3. HOW PARTLET DIED AND WAS BURIED, AND HOW CHANTICLEER DIED OF GRIEF",
	}) {
		t.Errorf("Chanticleer sections %q", got)
	}
	if got := sections("THE WEDDING OF MRS FOX"); !slices.Equal(got, []string{"FIRST STORY", "SECOND STORY"}) {
		t.Errorf("Mrs Fox sections %q", got)
	}
	if got := sections("HANSEL AND GRETEL"); !slices.Equal(got, []string{""}) {
		t.Errorf("Hansel and Gretel sections %q", got)
	}
}

func TestCorpusBinary(t *testing.T) {
	_, err := Parse(context.Background(), readCorpus(t, "bad", "binary.txt"))
	if !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), "binary data, not text") {
		t.Fatalf("err = %v", err)
	}
}

func TestCorpusLatin1(t *testing.T) {
	data := readCorpus(t, "bad", "latin1-candide.txt")
	if _, enc, err := Decode(data); err != nil || enc != "windows-1252" {
		t.Errorf("Decode: %q, %v", enc, err)
	}
	d := parseCorpus(t, "bad", "latin1-candide.txt")
	// No header, but the body's own title line names the book.
	if d.Title != "Candide" || !slices.Equal(d.Authors, []string{"Voltaire"}) {
		t.Errorf("metadata: %q %q", d.Title, d.Authors)
	}
	titles := chapterTitles(d)
	if len(titles) < 3 || titles[1] != "Préface de l'Éditeur" || !strings.HasPrefix(titles[2], "CHAPITRE I. Comment Candide fut élevé dans un beau château") {
		t.Errorf("chapters %q", titles)
	}
	for _, w := range []string{"Bibliothèque", "château", "Cunégonde", "Il y avait en Vestphalie"} {
		if !strings.Contains(d.Text(), w) {
			t.Errorf("%q missing", w)
		}
	}
}

func TestCorpusUTF16(t *testing.T) {
	data := readCorpus(t, "bad", "utf16le-bom-alice.txt")
	if _, enc, err := Decode(data); err != nil || enc != "utf-16le" {
		t.Errorf("Decode: %q, %v", enc, err)
	}
	d := parseCorpus(t, "bad", "utf16le-bom-alice.txt")
	if d.Title != "Alice's Adventures in Wonderland" || d.Language != "en" {
		t.Errorf("metadata: %q %q", d.Title, d.Language)
	}
	if got := chapterTitles(d); !slices.Equal(got, []string{"CHAPTER I. Down the Rabbit-Hole", "CHAPTER II. The Pool of Tears"}) {
		t.Errorf("chapters %q", got)
	}
	// The first chapter is the same text as in the UTF-8 original.
	orig := parseCorpus(t, "books", "text", "11-0.txt")
	if !slices.Equal(d.Chapters[0].Sections[0].Blocks, orig.Chapters[0].Sections[0].Blocks) {
		t.Error("chapter I differs from the UTF-8 edition")
	}
}

func TestCorpusHugeLine(t *testing.T) {
	data := readCorpus(t, "bad", "huge-line.txt")
	// Its whitespace was collapsed, Gutenberg markers and all: they are
	// mid-line and rightly not taken for markers.
	d := parseCorpusRaw(t, "bad", "huge-line.txt")
	if len(d.Chapters) != 1 || len(d.Chapters[0].Sections) != 1 || len(d.Chapters[0].Sections[0].Blocks) != 1 {
		t.Fatalf("%s", outline(d))
	}
	b := d.Chapters[0].Sections[0].Blocks[0]
	if b.Line != 1 || len(b.Text) < len(data)-16 || !strings.HasPrefix(b.Text, "The Project Gutenberg EBook of War and Peace") {
		t.Errorf("block of %d bytes from %d at L%d", len(b.Text), len(data), b.Line)
	}
}
