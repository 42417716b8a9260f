package mdbook

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// render lists items one a line: level, part mark, title and link.
func render(s Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title %q\n", s.Title)
	for _, it := range s.Items {
		mark := "-"
		if it.Part {
			mark = "#"
		}
		fmt.Fprintf(&b, "%d %s %s (%s)\n", it.Level, mark, it.Title, it.Link)
	}
	return b.String()
}

func TestParseSummary(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"mdBook's layout", `# Summary

[Introduction](README.md)

---

# User Guide

- [Installation](guide/installation.md)
    - [Reading Books](guide/reading.md "Reading")
    - [Draft]()
- [Creating a Book](guide/creating.md)

# Reference

1. [Formats](format/README.md)
   1. [SUMMARY.md](format/summary.md)

[Contributors](misc/contributors.md)
`, `title "Summary"
0 - Introduction (README.md)
0 # User Guide ()
0 - Installation (guide/installation.md)
1 - Reading Books (guide/reading.md)
1 - Draft ()
0 - Creating a Book (guide/creating.md)
0 # Reference ()
0 - Formats (format/README.md)
1 - SUMMARY.md (format/summary.md)
0 - Contributors (misc/contributors.md)
`},
		{"GitBook anchors and star bullets", "# Summary\n\n* [Chapter 01](ch01.md)\n  * [Intro](ch01.md#introductions)\n", `title "Summary"
0 - Chapter 01 (ch01.md)
1 - Intro (ch01.md)
`},
		{"titles lose their marks", "- [The `match` Construct](ch06.md)\n- [*Rc<T>*, \\[counted\\]](rc.md)\n- [snake_case and _emphasis_](s.md)\n", `title ""
0 - The match Construct (ch06.md)
0 - Rc<T>, [counted] (rc.md)
0 - snake_case and emphasis (s.md)
`},
		{"tabs and odd indents nest by position", "- [A](a.md)\n\t- [B](b.md)\n\t\t- [C](c.md)\n   - [D](d.md)\n- [E](e.md)\n", `title ""
0 - A (a.md)
1 - B (b.md)
2 - C (c.md)
1 - D (d.md)
0 - E (e.md)
`},
		{"comments and prose are passed over", "<!-- - [Hidden](h.md) -->\nSome prose.\n<!--\n- [Also hidden](x.md)\n-->\n- [Shown](s.md) <!-- note -->\n", `title ""
0 - Shown (s.md)
`},
		{"escaped and angle targets", "- [Space](<my chapter.md>)\n- [Pct](my%20chapter.md?x=1)\n", `title ""
0 - Space (my chapter.md)
0 - Pct (my%20chapter.md)
`},
		{"an item without a link is a draft", "- Coming soon\n", `title ""
0 - Coming soon ()
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := render(ParseSummary([]byte(tc.src))); got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestParseSummaryLimits(t *testing.T) {
	var b strings.Builder
	for i := range MaxItems + 50 {
		b.WriteString(strings.Repeat(" ", i%200) + "- [x](x.md)\n")
	}
	s := ParseSummary([]byte(b.String()))
	if len(s.Items) != MaxItems {
		t.Errorf("%d items, want %d", len(s.Items), MaxItems)
	}
	for _, it := range s.Items {
		if it.Level > MaxLevel {
			t.Fatalf("level %d past %d", it.Level, MaxLevel)
		}
	}
}

func TestChapterFile(t *testing.T) {
	for _, tc := range []struct {
		link, want string
		ok         bool
	}{
		{"ch01.md", "ch01.md", true},
		{"./guide/../ch01.md", "ch01.md", true},
		{"sub/Ch.MARKDOWN", "sub/Ch.MARKDOWN", true},
		{"my%20chapter.md", "my chapter.md", true},
		{"../outside.md", "", false},
		{"sub/../../outside.md", "", false},
		{"%2e%2e/outside.md", "", false},
		{"/etc/passwd.md", "", false},
		{"https://example.com/a.md", "", false},
		{"C:/x.md", "", false},
		{`sub\x.md`, "", false},
		{"SUMMARY.md", "", false},
		{"image.png", "", false},
		{"", "", false},
	} {
		got, ok := chapterFile(tc.link)
		if got != tc.want || ok != tc.ok {
			t.Errorf("chapterFile(%q) = %q, %v; want %q, %v", tc.link, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPrune(t *testing.T) {
	in := []Entry{
		{Title: "Part A", Part: true},
		{Title: "Missing head", Level: 0},
		{Title: "Kept child", Level: 1, File: "c.md"},
		{Title: "Missing leaf", Level: 1},
		{Title: "Part B", Part: true},
		{Title: "Nothing here", Level: 0},
		{Title: "Top", Level: 0, File: "t.md"},
		{Title: "Part C", Part: true},
		{Title: "Draft", Level: 0},
	}
	var got []string
	for _, e := range prune(in) {
		got = append(got, e.Title)
	}
	want := "Part A|Missing head|Kept child|Part B|Top"
	if strings.Join(got, "|") != want {
		t.Errorf("prune = %q, want %q", strings.Join(got, "|"), want)
	}
}

// FuzzParseSummary checks that any input parses, within the limits, into
// titles of valid text and links without a fragment.
func FuzzParseSummary(f *testing.F) {
	for _, s := range []string{
		"# Summary\n\n[Intro](README.md)\n\n# Part\n\n- [A](a.md)\n  - [B](b.md#x)\n- [Draft]()\n",
		"* [a](<b c.md> \"t\")\n\t* [`x]`](y.md)\n",
		"<!-- x\n- [a](a.md)\n-->",
		"- [[[[(((((",
		"1. [a](a.md)\n   2) [b](b.md)\n",
		"\xff\xfe- [\x00](\x00)",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := ParseSummary(data)
		if len(s.Items) > MaxItems {
			t.Fatalf("%d items", len(s.Items))
		}
		for _, it := range s.Items {
			if it.Level < 0 || it.Level > MaxLevel || strings.ContainsAny(it.Link, "#?") {
				t.Fatalf("item %+v", it)
			}
			if utf8.Valid(data) && !utf8.ValidString(it.Title) {
				t.Fatalf("title %q is not valid text", it.Title)
			}
			if rel, ok := chapterFile(it.Link); ok && (strings.HasPrefix(rel, "..") || strings.HasPrefix(rel, "/")) {
				t.Fatalf("link %q gives %q outside the folder", it.Link, rel)
			}
		}
	})
}
