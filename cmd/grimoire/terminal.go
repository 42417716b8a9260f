package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// terminalWriter passes human output on with its control characters made
// visible (\x1b, \u202e): a file name or a book's title may hold escape
// sequences that recolour, retitle or rewrite the user's terminal, or
// bidirectional overrides that make one name read as another. Newlines and
// tabs pass, being the output's own layout; single-line fields go through
// field first. JSON and the MCP protocol never go through it: they are
// exact, and JSON escapes control characters itself.
type terminalWriter struct{ w io.Writer }

func (t terminalWriter) Write(p []byte) (int, error) {
	if !needsEscape(p) {
		return t.w.Write(p)
	}
	if _, err := io.WriteString(t.w, escapeControls(string(p), "\n\t")); err != nil {
		return 0, err
	}
	return len(p), nil
}

func needsEscape(p []byte) bool {
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		if hidden(r) || r == utf8.RuneError && n == 1 {
			return true
		}
		i += n
	}
	return false
}

// hidden reports whether a rune changes how a terminal shows what follows
// rather than showing itself: C0 and C1 controls, DEL, and the
// bidirectional embeddings, overrides and isolates.
func hidden(r rune) bool {
	return r < 0x20 || r >= 0x7f && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// escapeControls writes the hidden runes of s, and bytes that are not
// UTF-8, as Go escapes, except those in keep.
func escapeControls(s string, keep string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r) && !strings.ContainsRune(keep, r):
			q := strconv.QuoteRune(r) // '\x1b', '\n', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// field makes a value from the library (a path, a title) safe to print as
// one line: its newlines and tabs are escaped too.
func field(s string) string { return escapeControls(s, "") }
