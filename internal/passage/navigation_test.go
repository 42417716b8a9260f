package passage

import (
	"strings"
	"testing"
)

func TestIsContentsTitle(t *testing.T) {
	for title, want := range map[string]bool{
		"Contents": true, "THE CONTENTS": true, "Brief Contents": true, "Table of Contents": true,
		"Table des matières": true, "Inhaltsverzeichnis": true, "INDEX": true, "List of Figures": true,
		"Figures": false, "Chapter 1. Contents of a File": false, "The contents of the hold": false,
		"Indexing a slice": false, "": false,
	} {
		if got := isContentsTitle(title); got != want {
			t.Errorf("%q: %v, want %v", title, got, want)
		}
	}
}

func TestListsUnder(t *testing.T) {
	for _, tc := range []struct {
		title, text string
		want        bool
	}{
		{"Contents", "I. A Scandal in Bohemia II. The Red-Headed League", true},
		{"Index", "artist remuneration in, 52, 58–59, 74, 195, 196–97, 199 blogs on, 41, 42–45", true},
		// The outline puts the book's last pages under its index.
		{"INDEX", "LAWRENCE LESSIG, professor of law and founder of the Center for Internet and Society, is the author of Code and The Future of Ideas.", false},
		{"Chapter 3", "artist remuneration in, 52, 58–59, 74", false},
	} {
		if got := listsUnder(tc.title, tc.text); got != tc.want {
			t.Errorf("%q under %q: %v, want %v", tc.text, tc.title, got, tc.want)
		}
	}
}

func TestListsPages(t *testing.T) {
	for text, want := range map[string]bool{
		"1 Introduction ........ 1 1.1 History ........ 2 2 Tenets ........ 4":      true,
		"Preface . . . . . . . xiii Introduction . . . . . . 1 Piracy . . . . . 15": true,
		// A table of contents cut into passages leaves a line in one.
		"29 5.4 Visibility on the Network.......................................... 29": true,
		"Introduction………………… 1 The Trial………………… 17 The Verdict………………… 40":               true,
		"Préface · · · · · · 7 Le procès · · · · · · 19 Le verdict · · · · · · 40":      true,
		"Name: .................... Date: ....................":                         false,
		// Amounts, and numbers out of order, are no pages.
		"Revenue ........ 12,345 Cost of sales ........ 6,789 Gross profit ........ 5,556":                                    false,
		"Coffee ........ 3.50 Tea ........ 2.75 Cake ........ 4.00":                                                           false,
		"Soup ........ 8 Steak ........ 24 Salad ........ 9":                                                                  false,
		"He paused.... 3 men came in, then... 2 more. It was late.... 1 by 1 they left, and the night went on and on and on.": false,
		"It was a dark night.": false,
	} {
		if got := listsPages(text); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}

func TestSaysLittle(t *testing.T) {
	hit := func(chapter, section, text string) Passage {
		return Passage{
			Text:      text,
			BookTitle: "Alice's Adventures in Wonderland", Authors: []string{"Lewis Carroll"},
			ChapterTitle: chapter, SectionTitle: section,
		}
	}
	for _, tc := range []struct {
		h    Passage
		want bool
	}{
		{hit("Cover", "Cover", "Cover Image"), true},
		{hit("Alice's Adventures in Wonderland", "Alice's Adventures in Wonderland", "by Lewis Carroll"), true},
		{hit("192 THE REAL PRINCESS", "192 THE REAL PRINCESS", "192"), true},
		{hit("Front matter", "Front matter", "Brian Lonsdorf\n\nTable of Contents"), true},
		{hit("CHAPTER V", "CHAPTER V", "it."), true},
		// An untitled section is named by its first words.
		{hit("CHAPTER X. The Lobster Quadrille", "“Soo—oop of the e—e—evening, Beautiful, beautiful Soup!”", "“Soo—oop of the e—e—evening, Beautiful, beautiful Soup!”"), false},
		{hit("CHAPTER X", "Beautiful Soup, so rich and green…", "Beautiful Soup, so rich and green, waiting in a hot tureen!"), false},
		// A section that asks a question is answered by a word.
		{hit("FAQ", "Can I monitor machines?", "Yes."), false},
		{hit("FAQ", "How does Prometheus compare?", "See the comparison page."), false},
		// Scripts without spaces write a sentence as one token.
		{hit("Windows専用", "Windows専用", "これらはWindows用の項目です。"), false},
		{hit("Chapter 1", "Chapter 1", "Alice was beginning to get very tired of sitting by her sister."), false},
	} {
		if got := saysLittle(tc.h); got != tc.want {
			t.Errorf("%q under %q: %v, want %v", tc.h.Text, tc.h.SectionTitle, got, tc.want)
		}
	}
}

func FuzzNavigation(f *testing.F) {
	f.Add("1 Introduction ........ 1 1.1 History . . . . . ii", "Contents")
	f.Add("Cover Image", "The Contents")
	f.Add("....x.... 9 .... ", "Soup…")
	f.Add("Introduction……… 1 · · · · ii", "Index")
	f.Fuzz(func(t *testing.T, text, title string) {
		n, dots, _ := dotLeaders(text)
		if marks := strings.Count(text, ".") + 3*strings.Count(text, "…") + strings.Count(text, "·"); dots < 4*n || dots > marks {
			t.Errorf("%q: %d leaders of %d dots", text, n, dots)
		}
		listsUnder(title, text)
		listsDivisions(text)
		h := Passage{Text: text, BookTitle: title, ChapterTitle: title, SectionTitle: title}
		if saysLittle(h) && len(text) > saysLittleBytes {
			t.Errorf("a text of %d bytes says little", len(text))
		}
	})
}

func TestListsDivisions(t *testing.T) {
	for text, want := range map[string]bool{
		"Sec. 217. Interception of computer trespasser communications. Sec. 218. Foreign intelligence information. Sec. 219. Single-jurisdiction search warrants for terrorism. Sec. 220. Nationwide service of search warrants. Sec. 221. Trade sanctions. Sec. 222. Assistance to law enforcement agencies.": true,
		"CHAPTER I. | Down the Rabbit-Hole CHAPTER II. | The Pool of Tears CHAPTER III. | A Caucus-Race CHAPTER IV. | The Rabbit Sends in a Little Bill CHAPTER V. | Advice from a Caterpillar CHAPTER VI. | Pig and Pepper":                                                                                   true,
		"CONTENTS Chapter 1 Chapter 2 Chapter 3 Chapter 4 Chapter 5 Chapter 6 Chapter 7": true,
		// A book's overview of its chapters says more of each.
		"Chapter 1 is about installing the toolchain on your machine, writing a first small program, and building it with the package manager. " +
			"Chapter 2 is a hands-on introduction to writing a whole program, a guessing game that reads input and compares numbers. " +
			"Chapter 3 covers the features that are similar to those of other languages, such as variables, types and loops. " +
			"Chapter 4 explains ownership, the idea that sets the language apart, and how it keeps memory safe without a collector. " +
			"Chapter 5 discusses structs and methods, the way to group related data and the behaviour that goes with it. " +
			"Chapter 6 covers enums and pattern matching, which let a value be one of several kinds and code handle each.": false,
		// A law citing others numbers them out of order.
		"Section 2331 of title 18 is amended; section 1 of chapter 113B, section 3 of title 50, section 2 of title 18, section 1 of part 4, and section 5 of title 12 apply.": false,
		"Part of the book was lost.": false,
	} {
		if got := listsDivisions(text); got != want {
			t.Errorf("%.60q: %v, want %v", text, got, want)
		}
	}
}
