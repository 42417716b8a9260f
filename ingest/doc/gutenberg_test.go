package doc

import (
	"strings"
	"testing"
)

func TestFindGutenberg(t *testing.T) {
	long := strings.Repeat("A line of the story, long enough to count for something.\n", 1000) // 57 KB
	tests := []struct {
		name        string
		text        string
		first, last string // first and last lines of the book; "" for none
		found       bool
	}{
		{"start and end", "Title: A\n*** START OF THE PROJECT GUTENBERG EBOOK A ***\nbody 1\nbody 2\n*** END OF THE PROJECT GUTENBERG EBOOK A ***\nlicence",
			"body 1", "body 2", true},
		{"end-of line", "*** START OF THIS PROJECT GUTENBERG EBOOK A ***\nbody\nEnd of the Project Gutenberg EBook of A\n*** END OF THIS PROJECT GUTENBERG EBOOK A ***",
			"body", "body", true},
		{"small print", "legal\n*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*\nbody", "body", "body", true},
		{"wrapped start marker", "*** START OF THE PROJECT GUTENBERG EBOOK A VERY LONG\nTITLE INDEED ***\nbody", "body", "body", true},
		{"licence without an end marker", "body\nmore body\nTHE FULL PROJECT GUTENBERG LICENSE\nPLEASE READ THIS", "body", "more body", true},
		{"licence start line", "body\n*** START: FULL LICENSE ***\nterms", "body", "body", true},
		{"no markers", "just text\nmore", "just text", "more", false},
		{"markers mid-line are text", "He wrote *** START OF THE PROJECT GUTENBERG EBOOK X *** on the wall.\nThe END OF THE PROJECT GUTENBERG was near.",
			"He wrote *** START OF THE PROJECT GUTENBERG EBOOK X *** on the wall.", "The END OF THE PROJECT GUTENBERG was near.", false},
		{"a start after a whole book is not a header", long + "*** START OF THE PROJECT GUTENBERG EBOOK B ***\nbody",
			"A line of the story, long enough to count for something.", "body", false},
		{"an end before a whole book is not a footer", "*** START OF THE PROJECT GUTENBERG EBOOK A ***\nbody\n*** END OF THE PROJECT GUTENBERG EBOOK A ***\n" + long + "last",
			"body", "last", true},
		{"two short books in one file", "*** START OF THE PROJECT GUTENBERG EBOOK A ***\nbook A\n*** END OF THE PROJECT GUTENBERG EBOOK A ***\nlicence A\n" +
			"*** START OF THE PROJECT GUTENBERG EBOOK B ***\nbook B\n*** END OF THE PROJECT GUTENBERG EBOOK B ***\nlicence B",
			"book A", "book B", true},
		{"a header after a footer", "body\n*** END OF THE PROJECT GUTENBERG EBOOK A ***\nlicence\n*** START OF THE PROJECT GUTENBERG EBOOK B ***\nbook B",
			"body", "book B", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := strings.Split(tc.text, "\n")
			f := FindGutenberg(lines)
			if f.Found(len(lines)) != tc.found {
				t.Errorf("found = %v, want %v (%+v)", f.Found(len(lines)), tc.found, f)
			}
			book := lines[f.Start:f.End]
			if len(book) == 0 || book[0] != tc.first || book[len(book)-1] != tc.last {
				t.Errorf("book from %d to %d: %.80q", f.Start, f.End, book)
			}
		})
	}
}

func para(text string) Block { return Block{Kind: Paragraph, Text: text} }

func chapter(title string, blocks ...string) Chapter {
	s := Section{}
	for _, b := range blocks {
		s.Blocks = append(s.Blocks, para(b))
	}
	return Chapter{Title: title, Sections: []Section{s}}
}

// outline renders a document as "Chapter: block | block / Chapter: …".
func outline(d *Document) string {
	var chs []string
	for _, c := range d.Chapters {
		var parts []string
		for _, s := range c.Sections {
			for _, b := range s.Blocks {
				parts = append(parts, b.Text)
			}
		}
		chs = append(chs, c.Title+": "+strings.Join(parts, " | "))
	}
	return strings.Join(chs, " / ")
}

const useSentence = "This eBook is for the use of anyone anywhere in the United States and most other parts of the world at no cost and with almost no restrictions whatsoever."

func TestDropGutenberg(t *testing.T) {
	tests := []struct {
		name    string
		doc     Document
		want    string
		changed bool
	}{
		{"an EPUB with header and licence files",
			Document{Chapters: []Chapter{
				chapter("The Project Gutenberg eBook of Alice", useSentence, "Title: Alice", "*** START OF THE PROJECT GUTENBERG EBOOK ALICE ***"),
				chapter("CHAPTER I. Down the Rabbit-Hole", "Alice was beginning to get very tired.", "THE END"),
				chapter("", "*** END OF THE PROJECT GUTENBERG EBOOK ALICE ***", "Updated editions will replace the previous one."),
				chapter("THE FULL PROJECT GUTENBERG LICENSE", "PLEASE READ THIS BEFORE YOU DISTRIBUTE OR USE THIS WORK", "Section 1. General Terms of Use"),
			}},
			"CHAPTER I. Down the Rabbit-Hole: Alice was beginning to get very tired. | THE END", true},
		{"markers inside blocks",
			Document{Chapters: []Chapter{
				chapter("Pride and Prejudice", "The Project Gutenberg EBook of Pride and Prejudice\n\nTitle: Pride and Prejudice\n\n*** START OF THIS PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE ***\n\nProduced by Volunteers"),
				chapter("Chapter 1", "It is a truth universally acknowledged."),
				chapter("More Info", "More...", "About Project Gutenberg",
					"End of the Project Gutenberg EBook of Pride and Prejudice\n\n*** END OF THIS PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE ***\n\nThe licence."),
			}},
			"Pride and Prejudice: Produced by Volunteers / Chapter 1: It is a truth universally acknowledged. / More Info: More...", true},
		{"a licence chapter without an end marker",
			Document{Chapters: []Chapter{
				chapter("Chapter 1", "Call me Ishmael."),
				chapter("THE FULL PROJECT GUTENBERG LICENSE", "Section 1. General Terms of Use"),
			}},
			"Chapter 1: Call me Ishmael.", true},
		{"a header page without markers",
			Document{Chapters: []Chapter{
				chapter("Chapter 1", "Call me Ishmael."),
				chapter("Copyright Page", "The Project Gutenberg EBook of Moby-Dick; or The Whale, by Herman Melville", useSentence,
					"Title: Moby-Dick; or The Whale", "Author: Herman Melville", "Release Date: June, 2001", "Language: English", "Produced by Daniel Lazarus and Jonesey"),
			}},
			"Chapter 1: Call me Ishmael.", true},
		{"a book that quotes Project Gutenberg keeps it",
			Document{Chapters: []Chapter{
				chapter("Transcriber's Notes", "This text combines etexts, one from Project Gutenberg's archives.", useSentence+" So the notice says, and we agree."),
				chapter("Notes", useSentence, "We print this sentence to discuss it."),
				chapter("Fields", "Title: a poem", "It starts here and runs on."),
			}},
			"Transcriber's Notes: This text combines etexts, one from Project Gutenberg's archives. | " + useSentence + " So the notice says, and we agree. / " +
				"Notes: " + useSentence + " | We print this sentence to discuss it. / Fields: Title: a poem | It starts here and runs on.", false},
		{"no markers",
			Document{Chapters: []Chapter{chapter("One", "Text.")}},
			"One: Text.", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.doc
			if changed := d.DropGutenberg(); changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
			if got := outline(&d); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestDropGutenbergKeepsEmptyStructure leaves alone chapters and sections
// that had no text before: only what it empties goes.
func TestDropGutenbergKeepsEmptyStructure(t *testing.T) {
	d := Document{Chapters: []Chapter{
		chapter("Header", "*** START OF THE PROJECT GUTENBERG EBOOK X ***"),
		{Title: "Part One", Sections: []Section{{Title: "An empty heading"}, {Title: "Text", Blocks: []Block{para("Body.")}}}},
		chapter("Footer", "*** END OF THE PROJECT GUTENBERG EBOOK X ***"),
	}}
	d.DropGutenberg()
	if len(d.Chapters) != 1 || d.Chapters[0].Title != "Part One" || len(d.Chapters[0].Sections) != 2 {
		t.Errorf("%+v", d.Chapters)
	}
}

func FuzzDropGutenberg(f *testing.F) {
	f.Add("*** START OF THE PROJECT GUTENBERG EBOOK X ***\nbody\f*** END OF THE PROJECT GUTENBERG EBOOK X ***\nlicence")
	f.Add(useSentence + "\fTitle: X\fbody\fTHE FULL PROJECT GUTENBERG LICENSE")
	f.Add("\f\f*\n\n***\f")
	f.Fuzz(func(t *testing.T, s string) {
		// Form feeds part blocks, and a block "#…" starts a chapter.
		d := Document{}
		for _, b := range strings.Split(s, "\f") {
			if strings.HasPrefix(b, "#") || len(d.Chapters) == 0 {
				d.Chapters = append(d.Chapters, Chapter{Title: b, Sections: []Section{{}}})
			}
			c := &d.Chapters[len(d.Chapters)-1]
			c.Sections[0].Blocks = append(c.Sections[0].Blocks, para(b))
		}
		before := d.Text()
		changed := d.DropGutenberg()
		if !changed && d.Text() != before {
			t.Fatalf("unchanged, but the text differs")
		}
		for _, c := range d.Chapters {
			for _, sec := range c.Sections {
				for _, b := range sec.Blocks {
					if !strings.Contains(before, b.Text) {
						t.Fatalf("block %q is not text of the input", b.Text)
					}
				}
			}
		}
	})
}
