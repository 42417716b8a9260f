package outline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// render shows chapters one per line ("# title"), sections under them
// ("## title"), and each block's kind and text ("  p: text"), lines of a
// block joined with "⏎".
func render(chs []doc.Chapter) string {
	var sb strings.Builder
	for _, ch := range chs {
		fmt.Fprintf(&sb, "# %s\n", ch.Title)
		for _, s := range ch.Sections {
			if s.Title != "" {
				fmt.Fprintf(&sb, "## %s\n", s.Title)
			}
			for _, b := range s.Blocks {
				fmt.Fprintf(&sb, "  %s: %s\n", b.Kind, strings.ReplaceAll(b.Text, "\n", "⏎"))
			}
		}
	}
	return sb.String()
}

// script feeds a builder from lines: "h<level> title" is a heading ("h2"
// alone an untitled one), "li text", "code text", "quote text" and
// "note text" are lines of those kinds, anything else a paragraph.
func script(lines ...string) *Builder {
	var b Builder
	for _, l := range lines {
		word, rest, _ := strings.Cut(l, " ")
		switch {
		case len(word) == 2 && word[0] == 'h' && word[1] >= '0' && word[1] <= '9':
			b.Heading(int(word[1]-'0'), rest, "")
		case word == "li":
			b.Line(doc.List, "- "+rest, "")
		case word == "code":
			b.Line(doc.Code, rest, "")
		case word == "quote":
			b.Line(doc.Quote, rest, "")
		case word == "note":
			b.Note(rest, "")
		default:
			b.Line(doc.Paragraph, l, "")
		}
	}
	return &b
}

func TestChapters(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("Many words of the main story. ", 40))
	tests := []struct {
		name     string
		lines    []string
		preamble string
		want     string
	}{
		{
			name:     "no headings: one chapter named by the preamble",
			lines:    []string{"One.", "Two."},
			preamble: "A Memo",
			want:     "# A Memo\n  paragraph: One.\n  paragraph: Two.\n",
		},
		{
			name:  "chapters, sections, deeper headings as text",
			lines: []string{"h1 One", "a", "h2 S1", "b", "h3 Deep", "c", "h1 Two", "d"},
			want:  "# One\n  paragraph: a\n## S1\n  paragraph: b\n  paragraph: Deep\n  paragraph: c\n# Two\n  paragraph: d\n",
		},
		{
			name:  "a title over everything gives way, keeping its lead-in",
			lines: []string{"h0 The Book", "by Someone", "h1 One", "a", "h2 S", "b", "h1 Two", "c", "h2 T", "d"},
			want:  "# The Book\n  paragraph: by Someone\n# One\n  paragraph: a\n## S\n  paragraph: b\n# Two\n  paragraph: c\n## T\n  paragraph: d\n",
		},
		{
			name: "a contents heading beside the book's title: the book gives way",
			lines: []string{"h1 Table of Contents", "I. Bohemia", "h1 The Adventures", "h2 by A. Author",
				"h2 I. Bohemia", "h3 I.", long, "h3 II.", "e", "h2 II. League", "f"},
			want: "# Table of Contents\n  paragraph: I. Bohemia\n# The Adventures\n  paragraph: The Adventures\n" +
				"# by A. Author\n  paragraph: by A. Author\n# I. Bohemia\n## I.\n  paragraph: " + long + "\n## II.\n  paragraph: e\n# II. League\n  paragraph: f\n",
		},
		{
			name:  "one small chapter with sections among plain ones keeps its place",
			lines: []string{"h1 A", long, "h1 B", "b", "h2 B1", "x", "h1 C", long},
			want:  "# A\n  paragraph: " + long + "\n# B\n  paragraph: b\n## B1\n  paragraph: x\n# C\n  paragraph: " + long + "\n",
		},
		{
			name:  "a heading with nothing under it is text of the section before",
			lines: []string{"h1 One", "h2 S", "a", "h2 Byline", "h2 T", "b", "h1 Two", "c"},
			want:  "# One\n## S\n  paragraph: a\n  paragraph: Byline\n## T\n  paragraph: b\n# Two\n  paragraph: c\n",
		},
		{
			name:  "irregular levels: whatever is under a chapter is its sections",
			lines: []string{"h1 One", "h3 Deep first", "a", "h2 Then", "b", "h1 Two", "c"},
			want:  "# One\n## Deep first\n  paragraph: a\n## Then\n  paragraph: b\n# Two\n  paragraph: c\n",
		},
		{
			name:     "text before the first heading is the preamble",
			lines:    []string{"front", "h1 One", "a"},
			preamble: "Book",
			want:     "# Book\n  paragraph: front\n# One\n  paragraph: a\n",
		},
		{
			name:  "untitled divisions take a short first line as title",
			lines: []string{"h1", "Chapter 7", "text", "h1", long, "h1"},
			want:  "# Chapter 7\n  paragraph: text\n# \n  paragraph: " + long + "\n",
		},
		{
			name:  "an untitled division deeper than a section keeps its first line",
			lines: []string{"h1 A", "a", "h1 B", "h2 S", "s", "h3", "Deep line", "d"},
			want:  "# A\n  paragraph: a\n# B\n## S\n  paragraph: s\n  paragraph: Deep line\n  paragraph: d\n",
		},
		{
			name:  "a preamble without a name takes its first short line",
			lines: []string{"MEMORANDUM", "To all staff.", "h1 One", "a", "h1 Two", "b"},
			want:  "# MEMORANDUM\n  paragraph: To all staff.\n# One\n  paragraph: a\n# Two\n  paragraph: b\n",
		},
		{
			name:  "lines of a kind join, code keeps blank lines, paragraphs stand alone",
			lines: []string{"li one", "li two", "code a", "code ", "code b", "quote q1", "quote q2", "p1", "p2", "li three"},
			want:  "# \n  list: - one⏎- two\n  code: a⏎⏎b\n  quote: q1⏎q2\n  paragraph: p1\n  paragraph: p2\n  list: - three\n",
		},
		{
			name:  "notes close the division that refers to them",
			lines: []string{"h1 One", "a", "note [1] The note.", "b", "h1 Two", "c", "note [2] Last."},
			want:  "# One\n  paragraph: a\n  paragraph: b\n  paragraph: [1] The note.\n# Two\n  paragraph: c\n  paragraph: [2] Last.\n",
		},
		{
			name:  "empty headings and blocks leave nothing",
			lines: []string{"h1", "h2", "h1 Only title"},
			want:  "# Only title\n  paragraph: Only title\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := render(script(tc.lines...).Chapters(tc.preamble))
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestDeepNesting checks that headings nested far past MaxLevel cost no
// deep recursion and lose no text.
func TestDeepNesting(t *testing.T) {
	var b Builder
	const n = 100000
	for i := range n {
		b.Heading(i, fmt.Sprintf("L%d", i), "")
		b.Line(doc.Paragraph, fmt.Sprintf("t%d", i), "")
	}
	chs := b.Chapters("")
	words := 0
	for _, ch := range chs {
		for _, s := range ch.Sections {
			for _, blk := range s.Blocks {
				if strings.HasPrefix(blk.Text, "t") {
					words++
				}
			}
		}
	}
	if words != n {
		t.Errorf("%d of %d blocks kept", words, n)
	}
}

func TestName(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		want  string
	}{
		{[]string{"h1 Name", "h2 A", "a", "h2 B", "b"}, "Name"},
		{[]string{"front", "h0 Title", "h1 A", "a"}, "Title"},
		{[]string{"h1 A", "a", "h1 B", "b"}, ""},
		{[]string{"h1 Alone", "text"}, ""},
	} {
		b := script(tc.lines...)
		b.Chapters("")
		if got := b.Name(); got != tc.want {
			t.Errorf("%q: name %q, want %q", tc.lines, got, tc.want)
		}
	}
}

func TestNoText(t *testing.T) {
	var b Builder
	b.Heading(1, "", "")
	b.Block(doc.Block{Text: "  "})
	if chs := b.Chapters("Title"); len(chs) != 0 {
		t.Errorf("chapters %s", render(chs))
	}
}
