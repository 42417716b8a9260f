package ingest

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// licenceWords are phrases only a Project Gutenberg header or licence holds.
var licenceWords = []string{
	"project gutenberg license", "project gutenberg™ license", "general terms of use",
	"this ebook is for the use of anyone anywhere", "*** start of", "*** end of",
	"gutenberg literary archive foundation", "start: full license",
}

func checkNoLicence(t *testing.T, d *doc.Document) {
	t.Helper()
	for _, c := range d.Chapters {
		for _, s := range c.Sections {
			for _, b := range s.Blocks {
				for _, text := range []string{c.Title, s.Title, b.Text} {
					lower := strings.ToLower(text)
					for _, w := range licenceWords {
						if strings.Contains(lower, w) {
							t.Errorf("%q left in %q › %q: %.120q", w, c.Title, s.Title, text)
						}
					}
				}
			}
		}
	}
}

// TestGutenbergLeftOut parses the corpus's Project Gutenberg books, in
// every format they come in, as ingest does: the story is whole, from its
// first sentence to its last, and no header or licence is left.
func TestGutenbergLeftOut(t *testing.T) {
	tests := []struct {
		typ         string
		path        []string
		first, last string
		// The story's first sentence starts within the first before
		// characters, and its last ends within the last after: what is
		// outside is the book's own front and back matter, no more.
		before, after int
		// keep is text about Project Gutenberg that belongs to the book.
		keep string
	}{
		{doc.EPUB, []string{"books", "epub", "pg11.epub"}, "Alice was beginning to get very tired", "and the happy summer days", 1000, 100, ""},
		{doc.Text, []string{"books", "text", "11-0.txt"}, "Alice was beginning to get very tired", "and the happy summer days", 200, 100, ""},
		{doc.EPUB, []string{"books", "epub", "pg1342.epub"}, "It is a truth universally acknowledged", "the means of uniting them", 1000, 100, ""},
		{doc.EPUB, []string{"books", "epub", "pg1661.epub"}, "To Sherlock Holmes she is always", "private school at Walsall", 1000, 100, ""},
		// Moby-Dick has 22,000 characters of etymology and extracts
		// before the first chapter, and its contents after the last.
		{doc.EPUB, []string{"books", "epub", "moby-dick.epub"}, "Call me Ishmael", "only found another orphan", 23000, 5000, "one from Project Gutenberg"},
		// The same books in the formats calibre converts EPUBs to.
		{doc.FB2, []string{"books", "fb2", "pg1342.fb2"}, "It is a truth universally acknowledged", "the means of uniting them", 1000, 100, ""},
		{doc.DOCX, []string{"books", "docx", "pg1661.docx"}, "To Sherlock Holmes she is always", "private school at Walsall", 1000, 100, ""},
		{doc.HTML, []string{"books", "html", "pg1342.html"}, "It is a truth universally acknowledged", "the means of uniting them", 1000, 100, ""},
		{doc.HTMLZ, []string{"books", "html", "pg1342.htmlz"}, "It is a truth universally acknowledged", "the means of uniting them", 1000, 100, ""},
		{doc.Text, []string{"books", "text", "2591-0.txt"}, "", "", 0, 0, ""},
		{doc.Text, []string{"books", "text", "Candide.txt"}, "", "", 0, 0, ""},
		{doc.Text, []string{"books", "text", "pg84.txt"}, "", "", 0, 0, ""},
	}
	ps := NewParsers(nil)
	defer ps.Close()
	for _, tc := range tests {
		t.Run(tc.path[len(tc.path)-1], func(t *testing.T) {
			data, err := os.ReadFile(testcorpus.Path(t, tc.path...))
			if err != nil {
				t.Fatal(err)
			}
			d, err := ps.Parse(context.Background(), tc.typ, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkNoLicence(t, d)
			text := d.Text()
			for _, s := range []string{tc.first, tc.last, tc.keep} {
				if !strings.Contains(text, s) {
					t.Errorf("%q is missing", s)
				}
			}
			if i := strings.Index(text, tc.first); tc.first != "" && i > tc.before {
				t.Errorf("%q starts at %d", tc.first, i)
			}
			if i := strings.LastIndex(text, tc.last); tc.last != "" && len(text)-i-len(tc.last) > tc.after {
				t.Errorf("%q ends %d characters before the end", tc.last, len(text)-i-len(tc.last))
			}
		})
	}
}

// TestGutenbergLeftOutOfMarkdown: a Markdown conversion of a Gutenberg book
// loses its header and licence like the other formats, and a Markdown book
// that talks about Project Gutenberg keeps every word.
func TestGutenbergLeftOutOfMarkdown(t *testing.T) {
	ps := NewParsers(nil)
	defer ps.Close()
	framed := `# The Project Gutenberg eBook of A Tale

This eBook is for the use of anyone anywhere in the United States and most other parts of the world at no cost.

Title: A Tale

\*\*\* START OF THE PROJECT GUTENBERG EBOOK A TALE \*\*\*

# Chapter One

Once upon a time a tale began, and it went on for a while.

\*\*\* END OF THE PROJECT GUTENBERG EBOOK A TALE \*\*\*

# THE FULL PROJECT GUTENBERG LICENSE

Section 1. General Terms of Use and Redistributing Project Gutenberg electronic works.
`
	d, err := ps.Parse(context.Background(), doc.Markdown, []byte(framed), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkNoLicence(t, d)
	if len(d.Chapters) != 1 || d.Chapters[0].Title != "Chapter One" || !strings.Contains(d.Text(), "Once upon a time") {
		t.Errorf("%+v", d.Chapters)
	}

	about := `# Digitising books

Project Gutenberg began in 1971. Its licence says: "This eBook is for the use of anyone anywhere."

Every file ends with *** END OF THE PROJECT GUTENBERG EBOOK, which readers learn to skip.
`
	d, err = ps.Parse(context.Background(), doc.Markdown, []byte(about), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Project Gutenberg began in 1971", "This eBook is for the use of anyone anywhere", "Every file ends with"} {
		if !strings.Contains(d.Text(), s) {
			t.Errorf("%q was removed: %q", s, d.Text())
		}
	}
}

// TestGutenbergOnlyIsNoText: a file that holds a header and a licence and
// nothing between them fails as a book without text.
func TestGutenbergOnlyIsNoText(t *testing.T) {
	ps := NewParsers(nil)
	defer ps.Close()
	only := "# Header\n\n\\*\\*\\* START OF THE PROJECT GUTENBERG EBOOK X \\*\\*\\*\n\n\\*\\*\\* END OF THE PROJECT GUTENBERG EBOOK X \\*\\*\\*\n\nThe licence.\n"
	if _, err := ps.Parse(context.Background(), doc.Markdown, []byte(only), nil); err == nil || !strings.Contains(err.Error(), "no text") {
		t.Errorf("err = %v", err)
	}
}
