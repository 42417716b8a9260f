package mdbook

import (
	"bytes"
	"strings"
)

// Summary is a SUMMARY.md as mdBook reads it: an optional title, then the
// book's entries in order.
type Summary struct {
	// Title is the heading that opens the file, if any ("Summary" in most
	// books, the book's name in some).
	Title string
	Items []Item
}

// Item is one entry of a SUMMARY.md: a chapter link, a draft chapter
// (a link without a target), or a part title.
type Item struct {
	Title string
	// Link is the target as written, without its fragment; "" for a draft
	// chapter or a part title.
	Link string
	// Level is the list nesting: 0 for prefix, suffix and top-level
	// numbered chapters, 1 for their sub-chapters, and so on.
	Level int
	// Part: a part title ("# Part I"), which heads the chapters after it.
	Part bool
}

// Limits on what a SUMMARY.md may ask of a reader. Real books list a few
// hundred entries nested a few levels.
const (
	// MaxItems is the number of entries read; later ones are dropped.
	MaxItems = 10_000
	// MaxLevel is the deepest nesting kept; deeper entries are read at
	// this level.
	MaxLevel = 16
)

// ParseSummary reads a SUMMARY.md. Any input parses: lines that are no
// entry (prose, code, HTML comments) are passed over, as are entries past
// MaxItems.
func ParseSummary(data []byte) Summary {
	var s Summary
	var indents []int // the indents of the open list levels
	inComment := false
	started := false
	for len(data) > 0 && len(s.Items) < MaxItems {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		text := string(bytes.TrimRight(line, " \t\r"))
		if inComment || strings.Contains(text, "<!--") {
			text, inComment = dropComments(text, inComment)
		}
		trimmed := strings.TrimSpace(text)
		switch {
		case trimmed == "":
			continue
		case isRule(trimmed):
			indents = indents[:0]
			continue
		case strings.HasPrefix(trimmed, "#"):
			title, ok := heading(trimmed)
			if !ok {
				continue
			}
			indents = indents[:0]
			if !started {
				s.Title = title
			} else {
				s.Items = append(s.Items, Item{Title: title, Part: true})
			}
			started = true
			continue
		}
		indent, rest, isItem := listItem(text)
		if !isItem {
			// A link alone on its line is a prefix or suffix chapter.
			title, link, ok := parseLink(trimmed)
			if !ok {
				continue
			}
			indents = indents[:0]
			s.Items = append(s.Items, Item{Title: title, Link: link})
			started = true
			continue
		}
		for len(indents) > 0 && indents[len(indents)-1] >= indent {
			indents = indents[:len(indents)-1]
		}
		level := min(len(indents), MaxLevel)
		indents = append(indents, indent)
		title, link, ok := parseLink(rest)
		if !ok {
			// A list item without a link names a chapter not written yet.
			title, link = cleanTitle(rest), ""
		}
		if title == "" && link == "" {
			continue
		}
		s.Items = append(s.Items, Item{Title: title, Link: link, Level: level})
		started = true
	}
	return s
}

// dropComments removes the HTML comments of a line, given whether the line
// starts inside one, and tells whether it ends inside one.
func dropComments(line string, inside bool) (string, bool) {
	var b strings.Builder
	for line != "" {
		if inside {
			end := strings.Index(line, "-->")
			if end < 0 {
				return b.String(), true
			}
			line, inside = line[end+3:], false
			continue
		}
		start := strings.Index(line, "<!--")
		if start < 0 {
			b.WriteString(line)
			break
		}
		b.WriteString(line[:start])
		line, inside = line[start+4:], true
	}
	return b.String(), inside
}

// isRule reports a separator line ("---", "***", "___").
func isRule(s string) bool {
	if len(s) < 3 {
		return false
	}
	c := s[0]
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// heading reads an ATX heading line ("## Part II").
func heading(s string) (string, bool) {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n > 6 || n == len(s) || (s[n] != ' ' && s[n] != '\t') {
		return "", false
	}
	title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[n:]), "#"))
	title = cleanTitle(title)
	return title, title != ""
}

// listItem reads a list item's indent (tabs count four) and what follows
// its marker ("- ", "* ", "+ ", "1. ").
func listItem(line string) (indent int, rest string, ok bool) {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		if line[i] == '\t' {
			indent += 4 - indent%4
		} else {
			indent++
		}
		i++
	}
	s := line[i:]
	switch {
	case len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t'):
		return indent, strings.TrimSpace(s[2:]), true
	default:
		k := 0
		for k < len(s) && k < 9 && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > 0 && k+1 < len(s) && (s[k] == '.' || s[k] == ')') && (s[k+1] == ' ' || s[k+1] == '\t') {
			return indent, strings.TrimSpace(s[k+2:]), true
		}
	}
	return 0, "", false
}

// parseLink reads "[Title](target)" at the start of s. The target loses
// its fragment and any link title; a draft's target is "".
func parseLink(s string) (title, link string, ok bool) {
	if !strings.HasPrefix(s, "[") {
		return "", "", false
	}
	end := closing(s, 0, '[', ']')
	if end < 0 || end+1 >= len(s) || s[end+1] != '(' {
		return "", "", false
	}
	close := closing(s, end+1, '(', ')')
	if close < 0 {
		return "", "", false
	}
	title = cleanTitle(s[1:end])
	dest := strings.TrimSpace(s[end+2 : close])
	if strings.HasPrefix(dest, "<") {
		if i := strings.IndexByte(dest, '>'); i > 0 {
			dest = dest[1:i]
		}
	} else if i := strings.IndexAny(dest, " \t"); i >= 0 {
		dest = dest[:i] // a link title follows
	}
	if i := strings.IndexAny(dest, "#?"); i >= 0 {
		dest = dest[:i]
	}
	return title, dest, true
}

// closing returns the index of the bracket that closes the one at s[at],
// skipping escaped characters and code spans, or -1.
func closing(s string, at int, open, close byte) int {
	depth := 0
	for i := at; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '`':
			if j := strings.IndexByte(s[i+1:], '`'); j >= 0 {
				i += j + 1
			}
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// cleanTitle turns an entry's Markdown text into plain text: code spans
// and emphasis lose their marks, escapes their backslash.
func cleanTitle(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '`':
		case '*', '_':
			// Emphasis marks, but not a snake_case word's underscore.
			if c == '_' && i > 0 && i+1 < len(s) && isWord(s[i-1]) && isWord(s[i+1]) {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
