package xhtml

import (
	"strings"
	"unicode"
)

// CleanText collapses runs of white space (metadata is pretty-printed) and
// drops control characters.
func CleanText(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// Collapse returns text as a run of words: white space of any kind
// collapses to one space, characters that carry nothing for search and
// would only split words (controls, soft hyphens, byte order marks) are
// dropped, and the ends are trimmed.
func Collapse(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case invisible(r):
			continue
		}
		if space && sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteRune(r)
	}
	return sb.String()
}

// CollapseLines is Collapse for each line of text: line breaks stay, runs
// of them give at most one blank line, and blank lines at the ends go.
func CollapseLines(s string) string {
	if !strings.Contains(s, "\n") {
		return Collapse(s)
	}
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = Collapse(l)
		if l == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}
