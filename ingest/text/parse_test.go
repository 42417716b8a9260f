package text

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

func TestParseHeadingStyles(t *testing.T) {
	p := func(seed int) string { return prose(seed, 4) }
	tests := []struct {
		name string
		text string
		want []string
	}{
		{
			name: "label and title on one line",
			text: lines("CHAPTER I. Down the Hole", "", p(1), "", p(2), "", "CHAPTER II. The Pool", "", p(3)),
			want: []string{"CHAPTER I. Down the Hole", "CHAPTER II. The Pool"},
		},
		{
			name: "title on the line after the label",
			text: lines("CHAPTER I.", "Down the Hole", "", p(1), "", "CHAPTER II.", "The Pool of Tears", "", p(2)),
			want: []string{"CHAPTER I. Down the Hole", "CHAPTER II. The Pool of Tears"},
		},
		{
			name: "arabic numbers in title case",
			text: lines("Chapter 1", "", p(1), "", "Chapter 2", "", p(2), "", "Chapter 3", "", p(3)),
			want: []string{"Chapter 1", "Chapter 2", "Chapter 3"},
		},
		{
			name: "letters then chapters",
			text: lines("Letter 1", "", p(1), "", "Letter 2", "", p(2), "", "Chapter 1", "", p(3)),
			want: []string{"Letter 1", "Letter 2", "Chapter 1"},
		},
		{
			name: "bare roman numerals",
			text: lines("I.", "", p(1), "", "II.", "", p(2), "", "III.", "", p(3)),
			want: []string{"I.", "II.", "III."},
		},
		{
			name: "centred roman numerals without period",
			text: lines("                I", "", p(1), "", "                II", "", p(2)),
			want: []string{"I", "II"},
		},
		{
			name: "french chapitre premier",
			text: lines("CHAPITRE PREMIER", "", p(1), "", "CHAPITRE II.", "", p(2)),
			want: []string{"CHAPITRE PREMIER", "CHAPITRE II."},
		},
		{
			name: "subtitles as paragraphs of their own",
			text: lines("CHAPITRE I.", "", "Comment Candide fut élevé dans un beau château, et comment il fut", "chassé d'icelui.", "", p(1),
				"", "CHAPITRE II", "", "Ce que devint Candide parmi les Bulgares.", "", p(2),
				"", "CHAPITRE III.", "", "Conclusion.", "", p(3)),
			want: []string{
				"CHAPITRE I. Comment Candide fut élevé dans un beau château, et comment il fut chassé d'icelui.",
				"CHAPITRE II. Ce que devint Candide parmi les Bulgares.",
				"CHAPITRE III. Conclusion.",
			},
		},
		{
			name: "a subtitle in capitals is taken even once",
			text: lines("CHAPTER 1", "", "THE BOY WHO LIVED", "", p(1), "", "CHAPTER 2", "", p(2)),
			want: []string{"CHAPTER 1. THE BOY WHO LIVED", "CHAPTER 2"},
		},
		{
			name: "german",
			text: lines("Erstes Kapitel", "", p(1), "", "Zweites Kapitel", "", p(2)),
			want: []string{"Erstes Kapitel", "Zweites Kapitel"},
		},
		{
			name: "spanish",
			text: lines("CAPÍTULO PRIMERO", "", p(1), "", "CAPÍTULO II", "", p(2)),
			want: []string{"CAPÍTULO PRIMERO", "CAPÍTULO II"},
		},
		{
			name: "setext underlines",
			text: lines("The Beginning", "=============", "", p(1), "", "The Middle", "==========", "", p(2)),
			want: []string{"The Beginning", "The Middle"},
		},
		{
			name: "title between rules",
			text: lines("==========", "THE START", "==========", "", p(1), "", "==========", "THE FINISH", "==========", "", p(2)),
			want: []string{"THE START", "THE FINISH"},
		},
		{
			name: "special divisions around chapters",
			text: lines("PREFACE", "", p(1), "", "CHAPTER 1", "", p(2), "", "CHAPTER 2", "", p(3), "", "EPILOGUE", "", p(4)),
			want: []string{"PREFACE", "CHAPTER 1", "CHAPTER 2", "EPILOGUE"},
		},
		{
			name: "title-case preface",
			text: lines("Préface de l'Éditeur", "", p(1), "", "CHAPITRE I.", "", p(2)),
			want: []string{"Préface de l'Éditeur", "CHAPITRE I."},
		},
		{
			name: "heading glued to its text",
			text: lines("CHAPTER IV", p(1), "", "CHAPTER V", p(2)),
			want: []string{"CHAPTER IV", "CHAPTER V"},
		},
		{
			name: "footnote mark and emphasis stripped from titles",
			text: lines("CHAPTER XXII[1]. _The Voyage_", "", p(1), "", "CHAPTER XXIII. Home", "", p(2)),
			want: []string{"CHAPTER XXII. The Voyage", "CHAPTER XXIII. Home"},
		},
		{
			name: "roman numerals with titles",
			text: lines("I. A SCANDAL IN BOHEMIA", "", p(1), "", "II. THE RED-HEADED LEAGUE", "", p(2)),
			want: []string{"I. A SCANDAL IN BOHEMIA", "II. THE RED-HEADED LEAGUE"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.text)
			if got := chapterTitles(d); !slices.Equal(got, tc.want) {
				t.Errorf("chapters = %q\nwant %q\n%s", got, tc.want, outline(d))
			}
		})
	}
}

func TestParseAllCapsTales(t *testing.T) {
	var ls []string
	tales := []string{"THE GOLDEN BIRD", "HANS IN LUCK", "THE FROG-PRINCE", "OLD SULTAN"}
	for i, title := range tales {
		ls = append(ls, "", "", "", title, "")
		for k := range 4 {
			ls = append(ls, prose(10*i+k, 5), "")
		}
		// Shouting inside a tale is not a heading.
		ls = append(ls, "‘HELP! HELP!’", "")
	}
	d := mustParse(t, lines(ls...))
	if got := chapterTitles(d); !slices.Equal(got, tales) {
		t.Errorf("chapters = %q\n%s", got, outline(d))
	}
	if !strings.Contains(d.Text(), "‘HELP! HELP!’") {
		t.Error("dialogue in capitals lost")
	}
}

func TestParseAllCapsWithContents(t *testing.T) {
	var ls []string
	ls = append(ls, "FAIRY TALES", "", "By Somebody", "", "", "", "CONTENTS:", "",
		"     THE GOLDEN BIRD", "     HANS IN LUCK", "     THE ADVENTURES OF CHANTICLEER",
		"       1. HOW THEY WENT TO THE MOUNTAINS", "       2. HOW THEY WENT HOME", "     old sultan", "     OLD SULTAN",
		"", "", "", "", "THE COLLECTED TALES", "", "", "", "")
	body := []string{"THE GOLDEN BIRD", "HANS IN LUCK", "THE ADVENTURES OF CHANTICLEER"}
	for i, title := range body {
		ls = append(ls, title, "")
		if i == 2 {
			ls = append(ls, "1. HOW THEY WENT TO THE MOUNTAINS", "", prose(i, 8), "", prose(i+1, 8), "",
				"2. HOW THEY WENT HOME", "", prose(i+2, 8), "", prose(i+3, 8), "", "", "", "")
			continue
		}
		ls = append(ls, prose(i, 8), "", prose(i+5, 8), "", "", "", "")
	}
	ls = append(ls, "OLD SULTAN", "", prose(7, 8), "", prose(8, 8))
	d := mustParse(t, lines(ls...))
	want := []string{"THE GOLDEN BIRD", "HANS IN LUCK", "THE ADVENTURES OF CHANTICLEER", "OLD SULTAN"}
	if got := chapterTitles(d); !slices.Equal(got, want) {
		t.Fatalf("chapters = %q\n%s", got, outline(d))
	}
	ch := d.Chapters[2]
	var secs []string
	for _, s := range ch.Sections {
		secs = append(secs, s.Title)
	}
	if want := []string{"1. HOW THEY WENT TO THE MOUNTAINS", "2. HOW THEY WENT HOME"}; !slices.Equal(secs, want) {
		t.Errorf("sections = %q, want %q", secs, want)
	}
}

func TestParseTwoLevels(t *testing.T) {
	text := lines(
		"BOOK ONE: 1805", "", "", "CHAPTER I", "", prose(1, 5), "", "CHAPTER II", "", prose(2, 5), "",
		"BOOK TWO: 1805", "", "CHAPTER I", "", prose(3, 5), "",
		"FIRST EPILOGUE: 1813 - 20", "", "CHAPTER I", "", prose(4, 5), "", "CHAPTER II", "", prose(5, 5),
	)
	d := mustParse(t, text)
	got := outline(d)
	want := `title: ""
authors: []
language: ""
L1 "BOOK ONE: 1805"
  L4 "CHAPTER I" blocks=1
  L12 "CHAPTER II" blocks=1
L20 "BOOK TWO: 1805"
  L22 "CHAPTER I" blocks=1
L30 "FIRST EPILOGUE: 1813 - 20"
  L32 "CHAPTER I" blocks=1
  L40 "CHAPTER II" blocks=1
`
	if got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
}

func TestParseTwoLevelsWithIntroAndParts(t *testing.T) {
	text := lines(
		"PART ONE", "", prose(1, 3), "", "Chapter 1", "", prose(2, 3), "", "Chapter 2", "", prose(3, 3), "",
		"PART TWO", "", "Chapter 3", "", prose(4, 3),
	)
	d := mustParse(t, text)
	if len(d.Chapters) != 2 {
		t.Fatalf("%s", outline(d))
	}
	first := d.Chapters[0]
	if len(first.Sections) != 3 || first.Sections[0].Title != "" || first.Sections[0].Anchor != first.Anchor {
		t.Errorf("text before the first chapter should be an untitled section at the part's anchor:\n%s", outline(d))
	}
}

func TestParseContentsAreNotChapters(t *testing.T) {
	chapters := []string{"Down the Rabbit-Hole", "The Pool of Tears", "A Caucus-Race"}
	body := func(twoLine bool) []string {
		var ls []string
		for i, c := range chapters {
			label := "CHAPTER " + []string{"I.", "II.", "III."}[i]
			if twoLine {
				ls = append(ls, label, c, "", "")
			} else {
				ls = append(ls, label+" "+c, "")
			}
			ls = append(ls, prose(i, 6), "", prose(i+3, 6), "", "")
		}
		return ls
	}
	wantTitles := []string{"CHAPTER I. Down the Rabbit-Hole", "CHAPTER II. The Pool of Tears", "CHAPTER III. A Caucus-Race"}
	tests := []struct {
		name  string
		front []string
		two   bool
	}{
		{
			name: "contents list, one paragraph",
			front: []string{"ALICE IN A BOOK", "", "by Someone", "", "Contents", "",
				" CHAPTER I.     Down the Rabbit-Hole", " CHAPTER II.    The Pool of Tears", " CHAPTER III.   A Caucus-Race", "", "", ""},
			two: true,
		},
		{
			name: "contents entries as separate headings",
			front: []string{"    CONTENTS", "", "", "    CHAPTER I. Down the Rabbit-Hole", "", "    CHAPTER II. The Pool of Tears", "",
				"    CHAPTER III. A Caucus-Race", "", "", ""},
		},
		{
			name: "no contents label",
			front: []string{"ALICE IN A BOOK", "", "CHAPTER I. Down the Rabbit-Hole", "CHAPTER II. The Pool of Tears",
				"CHAPTER III. A Caucus-Race", "", ""},
		},
		{
			name: "unlabelled entries as separate lines",
			front: []string{"CHAPTER I. Down the Rabbit-Hole", "", "CHAPTER II. The Pool of Tears", "",
				"CHAPTER III. A Caucus-Race", "", ""},
		},
		{
			name: "page numbers and dot leaders",
			front: []string{"TABLE OF CONTENTS", "", "Down the Rabbit-Hole ........ 1", "The Pool of Tears ........... 9",
				"A Caucus-Race ............... 17", "", ""},
		},
		{
			name:  "contents label with entries glued",
			front: []string{"CONTENTS", "I. Down the Rabbit-Hole", "II. The Pool of Tears", "III. A Caucus-Race", "", ""},
			two:   true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, lines(append(tc.front, body(tc.two)...)...))
			if got := chapterTitles(d); !slices.Equal(got, wantTitles) {
				t.Errorf("chapters = %q\n%s", got, outline(d))
			}
			if strings.Contains(d.Text(), "........") {
				t.Error("contents text leaked into the document")
			}
		})
	}
}

func TestParseContentsWithBooks(t *testing.T) {
	// The War and Peace layout: every entry a paragraph of its own, books and
	// chapters, then the same headings again in the body.
	var ls []string
	ls = append(ls, "WAR AND PEACE", "", "By Somebody", "", "", "    CONTENTS", "", "")
	for _, b := range []string{"BOOK ONE: 1805", "BOOK TWO: 1805"} {
		ls = append(ls, "    "+b, "", "    CHAPTER I", "", "    CHAPTER II", "", "")
	}
	ls = append(ls, "", "", "")
	for i, b := range []string{"BOOK ONE: 1805", "BOOK TWO: 1805"} {
		ls = append(ls, b, "", "", "CHAPTER I", "", prose(i, 6), "", "CHAPTER II", "", prose(i+1, 6), "", "")
	}
	d := mustParse(t, lines(ls...))
	if got, want := chapterTitles(d), []string{"BOOK ONE: 1805", "BOOK TWO: 1805"}; !slices.Equal(got, want) {
		t.Fatalf("chapters = %q\n%s", got, outline(d))
	}
	for _, c := range d.Chapters {
		if len(c.Sections) != 2 || c.Sections[0].Title != "CHAPTER I" || c.Sections[1].Title != "CHAPTER II" {
			t.Errorf("%s", outline(d))
		}
	}
	if d.Chapters[0].Anchor != "L26" {
		t.Errorf("first book anchored at %s, want the body heading at L26", d.Chapters[0].Anchor)
	}
}

func TestParseFalsePositives(t *testing.T) {
	tests := []struct {
		name string
		text string
	}{
		{"sentences starting with division words", lines(
			prose(1, 4), "", "Chapter 3 was the best part of the book, she said.", "", prose(2, 4), "",
			"Part of the fun was the waiting.", "", "Book me a room, please.", "", "Letter after letter arrived.", "",
			"Introduction of the new law was delayed.", "", prose(3, 3))},
		{"a lone pronoun", lines(prose(1, 4), "", "“Who did this?”", "", "I.", "", prose(2, 4))},
		{"numerals out of sequence", lines(prose(1, 3), "", "IV", "", prose(2, 3), "", "XII", "", prose(3, 3))},
		{"shouting and signs in capitals", lines(
			prose(1, 6), "", "STOP", "", prose(2, 6), "", "NO ENTRY", "", prose(3, 6), "", "THE END")},
		{"a play's speaker names", lines(
			"", "", "HAMLET.", "", prose(1, 8), "", "", "", "HORATIO.", "", prose(2, 8), "", "", "", "HAMLET.", "", prose(3, 8),
			"", "", "", "HORATIO.", "", prose(4, 8), "", "", "", "HAMLET.", "", prose(5, 8))},
		{"a rule after a sentence", lines(prose(1, 3), "The end of it all.", "---", "", prose(2, 3))},
		{"a numbered list", lines(prose(1, 3), "", "1. Open the box.", "", "2. Take out the device.", "", "3. Plug it in.", "", prose(2, 3))},
		{"capitals a few lines apart", lines(
			"", "", "ONE", "", "Short.", "", "", "TWO", "", "Also short.", "", "", "THREE", "", "Tiny.", "", "", "FOUR", "", "Done.")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.text)
			if len(d.Chapters) != 1 || d.Chapters[0].Title != "" || len(d.Chapters[0].Sections) != 1 {
				t.Errorf("want one untitled chapter, got\n%s", outline(d))
			}
		})
	}
}

func TestParseFrontMatter(t *testing.T) {
	t.Run("title lines are dropped", func(t *testing.T) {
		d := mustParse(t, lines("A BOOK OF THINGS", "", "by Someone Else", "", "THE FIRST EDITION", "", "", "CHAPTER I", "", prose(1, 4)))
		if got := chapterTitles(d); !slices.Equal(got, []string{"CHAPTER I"}) {
			t.Errorf("chapters = %q", got)
		}
	})
	t.Run("a preface without a heading is kept", func(t *testing.T) {
		d := mustParse(t, lines("A BOOK OF THINGS", "", prose(1, 4), "", prose(2, 3), "", "CHAPTER I", "", prose(3, 4)))
		if got := chapterTitles(d); !slices.Equal(got, []string{"", "CHAPTER I"}) {
			t.Fatalf("chapters = %q", got)
		}
		front := d.Chapters[0]
		if front.Anchor != "L1" || len(front.Sections[0].Blocks) != 3 {
			t.Errorf("front matter:\n%s", outline(d))
		}
	})
	t.Run("no headings at all", func(t *testing.T) {
		d := mustParse(t, lines("", "", prose(1, 4), "", prose(2, 4), "", prose(3, 4)))
		if len(d.Chapters) != 1 || d.Chapters[0].Anchor != "L3" || len(d.Chapters[0].Sections[0].Blocks) != 3 {
			t.Errorf("%s", outline(d))
		}
	})
	t.Run("nothing but a table of contents", func(t *testing.T) {
		d := mustParse(t, lines("CONTENTS", "", "Chapter 1", "Chapter 2"))
		if !strings.Contains(d.Text(), "Chapter 2") {
			t.Errorf("text lost:\n%s", d.Text())
		}
	})
	t.Run("an empty chapter's heading is not lost", func(t *testing.T) {
		d := mustParse(t, lines("CHAPTER I", "", prose(1, 4), "", "CHAPTER II", "", "", "CHAPTER III", "", prose(2, 4), "", "THE END"))
		if got := chapterTitles(d); !slices.Equal(got, []string{"CHAPTER I", "CHAPTER III"}) {
			t.Errorf("chapters = %q", got)
		}
		text := d.Text()
		if !strings.Contains(text, "CHAPTER II\n") || !strings.Contains(text, "THE END") {
			t.Errorf("lines lost:\n%s", text)
		}
	})
}

func TestParseBlocks(t *testing.T) {
	text := "First line of a paragraph that is hard-\r\n" +
		"wrapped at a narrow width, with  double  spaces\r\n" +
		"and a dash at the end of this line--\r\n" +
		"then more.\r\n" +
		"\r\n" +
		"A second paragraph on one line.\fA third after a form feed.\r\n" +
		"\r\n" +
		"    Twinkle, twinkle, little bat!\r\n" +
		"    How I wonder what you’re at!\r\n" +
		"\r\n" +
		"- apples\r\n" +
		"- pears\r\n" +
		"\r\n" +
		"* * *\r\n" +
		"\r\n" +
		"The last paragraph, ending the text with more words than the rest of it.\r\n"
	d := mustParse(t, text)
	blocks := d.Chapters[0].Sections[0].Blocks
	want := []doc.Block{
		{Kind: doc.Paragraph, Line: 1, Text: "First line of a paragraph that is hard-wrapped at a narrow width, with double spaces and a dash at the end of this line--then more."},
		{Kind: doc.Paragraph, Line: 6, Text: "A second paragraph on one line."},
		{Kind: doc.Paragraph, Line: 6, Text: "A third after a form feed."},
		{Kind: doc.Quote, Line: 8, Text: "Twinkle, twinkle, little bat!\nHow I wonder what you’re at!"},
		{Kind: doc.List, Line: 11, Text: "- apples\n- pears"},
		{Kind: doc.Paragraph, Line: 16, Text: "The last paragraph, ending the text with more words than the rest of it."},
	}
	if !slices.Equal(blocks, want) {
		for i, b := range blocks {
			t.Logf("%d: %+v", i, b)
		}
		t.Errorf("blocks differ from %+v", want)
	}
}

func TestParseGutenberg(t *testing.T) {
	text := lines(
		"The Project Gutenberg eBook of A Tale, by Ann Author",
		"",
		"This eBook is for the use of anyone anywhere in the United States and",
		"most other parts of the world at no cost and with almost no restrictions.",
		"",
		"Title: A Tale’s End",
		"",
		"Author: Ann Author",
		"",
		"Language: French",
		"",
		"*** START OF THE PROJECT GUTENBERG EBOOK A TALE ***",
		"",
		"Produced by Volunteers",
		"",
		"CHAPTER I", "", prose(1, 4), "",
		"CHAPTER II", "", prose(2, 4), "",
		"",
		"End of the Project Gutenberg EBook of A Tale, by Ann Author",
		"",
		"*** END OF THE PROJECT GUTENBERG EBOOK A TALE ***",
		"",
		"Section 1. General Terms of Use and Redistributing Project Gutenberg-tm",
		"electronic works, and a great deal more licence text follows here.",
	)
	d := mustParse(t, text)
	if d.Title != "A Tale's End" || !slices.Equal(d.Authors, []string{"Ann Author"}) || d.Language != "fr" {
		t.Errorf("metadata: %q %q %q", d.Title, d.Authors, d.Language)
	}
	if got := chapterTitles(d); !slices.Equal(got, []string{"CHAPTER I", "CHAPTER II"}) {
		t.Errorf("chapters = %q", got)
	}
	all := d.Text()
	for _, s := range []string{"Gutenberg", "licence", "This eBook"} {
		if strings.Contains(all, s) {
			t.Errorf("boilerplate %q in the document:\n%s", s, all)
		}
	}
	if d.Chapters[0].Anchor != "L16" {
		t.Errorf("anchor %s, want L16 (lines count from the top of the file)", d.Chapters[0].Anchor)
	}
}

func TestParseTitleGuess(t *testing.T) {
	tests := []struct {
		name   string
		text   string
		title  string
		author []string
	}{
		{"title and author", lines("My Little Book", "", "by Jane Doe", "", prose(1, 4)), "My Little Book", []string{"Jane Doe"}},
		{"title only", lines("Notes on Rivers", "", prose(1, 4)), "Notes on Rivers", nil},
		{"a sentence is not a title", lines("It was late.", "", prose(1, 4)), "", nil},
		{"prose first", lines(prose(1, 4), "", prose(2, 4)), "", nil},
		{"a heading is not a title", lines("CHAPTER I", "", prose(1, 4)), "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.text)
			if d.Title != tc.title || !slices.Equal(d.Authors, tc.author) {
				t.Errorf("title %q authors %q, want %q %q", d.Title, d.Authors, tc.title, tc.author)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, doc.ErrNoText},
		{"whitespace", []byte(" \r\n\t\n\f  \n"), doc.ErrNoText},
		{"bom only", []byte("\xEF\xBB\xBF"), doc.ErrNoText},
		{"separators only", []byte("* * *\n\n----\n"), doc.ErrNoText},
		{"empty gutenberg body", []byte(lines("Title: X", "*** START OF THE PROJECT GUTENBERG EBOOK X ***", "", "*** END OF THE PROJECT GUTENBERG EBOOK X ***", "licence")), doc.ErrNoText},
		{"binary", []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03"), ErrBinary},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(context.Background(), tc.in)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if d != nil {
				t.Errorf("document returned with an error")
			}
		})
	}
}

func TestParseCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, []byte(lines(prose(1, 10)))); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestParseHugeLine(t *testing.T) {
	line := strings.Repeat("word and  another word, ", 100_000)
	d := mustParse(t, line)
	if len(d.Chapters) != 1 || len(d.Chapters[0].Sections[0].Blocks) != 1 {
		t.Fatalf("%s", outline(d))
	}
	if b := d.Chapters[0].Sections[0].Blocks[0]; strings.Contains(b.Text, "  ") || len(b.Text) < 2_000_000 {
		t.Errorf("block of %d bytes", len(b.Text))
	}
}

// TestParsePathological feeds inputs shaped to defeat a careless
// implementation: each must finish in linear time (a quadratic loop would
// take minutes here) and obey the tree's invariants.
func TestParsePathological(t *testing.T) {
	tests := map[string]string{
		"a line of tabs and words":       strings.Repeat("a\tb  ", 300_000),
		"two megabytes of spaces":        strings.Repeat(" ", 2_000_000) + "x",
		"headings and nothing else":      strings.Repeat("CHAPTER I\n\n", 50_000),
		"numerals and nothing else":      strings.Repeat("I.\n\nII.\n\n", 25_000),
		"capitals a line apart":          strings.Repeat("\n\n\nTHE TITLE\n\nshort.\n", 25_000),
		"contents labels everywhere":     strings.Repeat("CONTENTS\n\nCHAPTER I\n\n", 25_000),
		"one enormous table of contents": "CONTENTS\n\n" + strings.Repeat("Chapter 1 .... 5\n", 100_000),
		"form feeds":                     strings.Repeat("a\f", 500_000),
		"an enormous first line":         strings.Repeat("Title ", 400_000) + "\n\nby x\n\n" + prose(1, 3),
	}
	for name, s := range tests {
		t.Run(name, func(t *testing.T) {
			d, err := Parse(context.Background(), []byte(s))
			if err != nil {
				if !errors.Is(err, doc.ErrNoText) {
					t.Fatal(err)
				}
				return
			}
			checkTree(t, d)
		})
	}
}

func TestParseMoreLayouts(t *testing.T) {
	p := func(seed int) string { return prose(seed, 4) }
	tests := []struct {
		name string
		text string
		want string // outline without the metadata lines
	}{
		{
			name: "an entry the patterns do not know inside the contents",
			text: lines("THE WHALE", "", "", "CONTENTS", "", "ETYMOLOGY.", "", "EXTRACTS (Supplied by a Sub-Sub-Librarian).", "",
				"CHAPTER 1. Loomings.", "", "CHAPTER 2. The Carpet-Bag.", "", "Epilogue", "", "", "",
				"ETYMOLOGY.", "", "(Supplied by a Late Consumptive Usher to a Grammar School.)", "", p(1), "", "",
				"CHAPTER 1. Loomings.", "", p(2), "", "", "CHAPTER 2. The Carpet-Bag.", "", p(3), "", "", "Epilogue", "", p(4)),
			want: `L1 ""
  L1 "" blocks=4
L28 "CHAPTER 1. Loomings."
  L28 "" blocks=1
L36 "CHAPTER 2. The Carpet-Bag."
  L36 "" blocks=1
L44 "Epilogue"
  L44 "" blocks=1
`,
		},
		{
			name: "books with dashed titles over numbered chapters",
			text: lines("Book the First--Recalled to Life", "", "", "I. The Period", "", p(1), "", "II. The Mail", "", p(2), "", "",
				"Book the Second--the Golden Thread", "", "", "I. Five Years Later", "", p(3)),
			want: `L1 "Book the First--Recalled to Life"
  L4 "I. The Period" blocks=1
  L11 "II. The Mail" blocks=1
L19 "Book the Second--the Golden Thread"
  L22 "I. Five Years Later" blocks=1
`,
		},
		{
			name: "acts and scenes, speaker names ignored",
			text: lines("ACT I", "", "SCENE I. Elsinore. A platform before the Castle.", "", "BARNARDO.", "Who’s there?", "",
				"FRANCISCO.", "Nay, answer me.", "", p(1), "", "SCENE II. A room of state.", "", "KING.", p(2), "", "",
				"ACT II", "", "SCENE I. A room in Polonius’s house.", "", "POLONIUS.", p(3)),
			want: `L1 "ACT I"
  L3 "SCENE I. Elsinore. A platform before the Castle." blocks=3
  L16 "SCENE II. A room of state." blocks=1
L25 "ACT II"
  L27 "SCENE I. A room in Polonius’s house." blocks=1
`,
		},
		{
			name: "a subtitle in capitals, then an italic note",
			text: lines("CHAPTER I", "", "JONATHAN HARKER’S JOURNAL", "", "_(Kept in shorthand.)_", "", p(1), "", "",
				"CHAPTER II", "", "JONATHAN HARKER’S JOURNAL--_continued_", "", p(2)),
			want: `L1 "CHAPTER I. JONATHAN HARKER’S JOURNAL"
  L1 "" blocks=2
L13 "CHAPTER II. JONATHAN HARKER’S JOURNAL--continued"
  L13 "" blocks=1
`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := mustParse(t, tc.text)
			got := outline(d)
			got = got[strings.Index(got, "\nL")+1:]
			if got != tc.want {
				t.Errorf("outline:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
