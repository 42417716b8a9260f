package text

import (
	"slices"
	"strings"
	"testing"
)

func TestHeaderFields(t *testing.T) {
	header := strings.Split(lines(
		"The Project Gutenberg eBook of Something",
		"",
		"Title: The Strange Case of Dr. Jekyll and",
		"       Mr. Hyde",
		"",
		"Author: Karl Marx",
		"        Friedrich Engels",
		"",
		"Release date: October 1, 1993 [eBook #84]",
		"                Most recently updated: December 2, 2022",
		"",
		"Language: French",
		"",
		"Credits: Somebody",
	), "\n")
	m := headerFields(header)
	if m.title != "The Strange Case of Dr. Jekyll and Mr. Hyde" {
		t.Errorf("title = %q", m.title)
	}
	if want := []string{"Karl Marx", "Friedrich Engels"}; !slices.Equal(m.authors, want) {
		t.Errorf("authors = %q, want %q", m.authors, want)
	}
	if m.language != "fr" {
		t.Errorf("language = %q", m.language)
	}
}

func TestSplitAuthors(t *testing.T) {
	tests := map[string][]string{
		"Lewis Carroll":                       {"Lewis Carroll"},
		"The Brothers Grimm":                  {"The Brothers Grimm"},
		"Jacob and Wilhelm Grimm":             {"Jacob and Wilhelm Grimm"},
		"Karl Marx and Friedrich Engels":      {"Karl Marx", "Friedrich Engels"},
		"William Strunk; E. B. White":         {"William Strunk", "E. B. White"},
		"Mary Wollstonecraft   Shelley":       {"Mary Wollstonecraft Shelley"},
		"Voltaire":                            {"Voltaire"},
		"Charles Nordhoff & James Hall":       {"Charles Nordhoff", "James Hall"},
		"A. Conan Doyle and Voltaire":         {"A. Conan Doyle and Voltaire"},
		"":                                    nil,
		"Harriet Beecher Stowe, Ann Jones":    {"Harriet Beecher Stowe, Ann Jones"},
		"Gilbert K. Chesterton and H. Belloc": {"Gilbert K. Chesterton", "H. Belloc"},
	}
	for in, want := range tests {
		if got := splitAuthors(in); !slices.Equal(got, want) {
			t.Errorf("splitAuthors(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLanguageTag(t *testing.T) {
	tests := map[string]string{
		"English": "en", "French": "fr", "german": "de", "Spanish": "es", "en": "en",
		"EN": "en", "pt-BR": "pt-br", "English, French": "en", "English and Latin": "en",
		"Klingon": "", "": "", "12": "", "e": "",
	}
	for in, want := range tests {
		if got := languageTag(in); got != want {
			t.Errorf("languageTag(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFindGutenberg(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		first   string // first body line
		last    string // last body line
		title   string
		authors []string
		found   bool
	}{
		{
			name: "this ebook",
			text: lines("Title: A", "Author: B C", "", "*** START OF THIS PROJECT GUTENBERG EBOOK A ***", "body 1", "body 2",
				"*** END OF THIS PROJECT GUTENBERG EBOOK A ***", "licence"),
			first: "body 1", last: "body 2", title: "A", authors: []string{"B C"}, found: true,
		},
		{
			name: "the ebook, end-of line first",
			text: lines("Title: A", "", "*** START OF THE PROJECT GUTENBERG EBOOK A ***", "body", "",
				"End of the Project Gutenberg EBook of A, by B", "", "*** END OF THE PROJECT GUTENBERG EBOOK A ***"),
			first: "body", last: "", title: "A", found: true,
		},
		{
			name: "small print header",
			text: lines("The Project Gutenberg Etext of Old Book, by Some One", "legal stuff",
				"*END*THE SMALL PRINT! FOR PUBLIC DOMAIN ETEXTS*Ver.04.29.93*END*", "body", "",
				"End of Project Gutenberg's Etext of Old Book"),
			first: "body", last: "", title: "Old Book", authors: []string{"Some One"}, found: true,
		},
		{
			name:  "wrapped start marker",
			text:  lines("Title: Long", "*** START OF THE PROJECT GUTENBERG EBOOK A VERY LONG", "TITLE INDEED ***", "body"),
			first: "body", last: "", title: "Long", found: true,
		},
		{
			name:  "no markers",
			text:  lines("just text", "more"),
			first: "just text", last: "", found: false,
		},
		{
			name:  "no space after stars",
			text:  lines("***START OF THE PROJECT GUTENBERG EBOOK X***", "body", "***END OF THE PROJECT GUTENBERG EBOOK X***"),
			first: "body", last: "body", found: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ls := strings.Split(tc.text, "\n")
			g := findGutenberg(ls)
			if g.found != tc.found {
				t.Fatalf("found = %v", g.found)
			}
			body := ls[g.start:g.end]
			if len(body) == 0 || body[0] != tc.first {
				t.Errorf("body starts %q, want %q", body, tc.first)
			}
			if len(body) > 0 && body[len(body)-1] != tc.last {
				t.Errorf("body ends %q, want %q", body[len(body)-1], tc.last)
			}
			if g.meta.title != tc.title {
				t.Errorf("title = %q, want %q", g.meta.title, tc.title)
			}
			if !slices.Equal(g.meta.authors, tc.authors) {
				t.Errorf("authors = %q, want %q", g.meta.authors, tc.authors)
			}
		})
	}
}
