package xhtml

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// inline gathers the text of one block as it streams past: runs of white
// space collapse to one space (except in preformatted text), and the block
// remembers the element id that was current when its first visible
// character arrived, which is where a citation of the block should point.
type inline struct {
	// buf is reused from block to block; take copies the text out.
	buf []byte
	// space is set when white space was seen since the last character; it
	// becomes one space before the next one.
	space bool
	// newlines counts the line breaks at the end of buf, so that <br/> runs
	// give at most one blank line.
	newlines int
	anchor   string
	started  bool
	// pre is set inside <pre>: white space is kept as it is.
	pre bool
	// dropLF drops the newline that directly follows <pre>, as HTML does.
	dropLF bool
}

// write appends text. anchor is the id current at this point of the
// document.
func (t *inline) write(text []byte, anchor string) {
	for i := 0; i < len(text); {
		if c := text[i]; !t.pre && c > ' ' && c < 0x7f {
			// Most text is runs of printable ASCII: copy them whole.
			j := i + 1
			for j < len(text) && text[j] > ' ' && text[j] < 0x7f {
				j++
			}
			t.visible(anchor)
			t.buf = append(t.buf, text[i:j]...)
			i = j
			continue
		}
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(text[i:])
		}
		i += size
		t.writeRune(r, anchor)
	}
}

func (t *inline) writeString(s, anchor string) {
	for _, r := range s {
		t.writeRune(r, anchor)
	}
}

func (t *inline) writeRune(r rune, anchor string) {
	if t.pre {
		t.writePre(r, anchor)
		return
	}
	switch {
	case unicode.IsSpace(r):
		// Also no-break, ideographic and line-separator spaces: for
		// search they separate words like any other.
		t.space = true
		return
	case invisible(r):
		return
	}
	t.visible(anchor)
	t.buf = utf8.AppendRune(t.buf, r)
}

// visible prepares for a visible character: the pending space, and the
// anchor of the block if this is its first character.
func (t *inline) visible(anchor string) {
	if !t.started {
		t.started, t.anchor = true, anchor
	}
	if t.space && len(t.buf) > 0 && t.newlines == 0 {
		t.buf = append(t.buf, ' ')
	}
	t.space, t.newlines = false, 0
}

func (t *inline) writePre(r rune, anchor string) {
	if r == '\r' {
		return // CRLF is a line break, and a lone CR is too rare to matter
	}
	if t.dropLF {
		t.dropLF = false
		if r == '\n' {
			return
		}
	}
	switch {
	case r == '\n' || r == '\t' || r == ' ':
		t.buf = append(t.buf, byte(r))
	case unicode.IsSpace(r):
		t.buf = append(t.buf, ' ')
	case invisible(r):
	default:
		if !t.started {
			t.started, t.anchor = true, anchor
		}
		t.buf = utf8.AppendRune(t.buf, r)
	}
}

// lineBreak is <br/>: a new line within the block.
func (t *inline) lineBreak() {
	if t.pre {
		t.buf = append(t.buf, '\n')
		return
	}
	if len(t.buf) == 0 || t.newlines >= 2 {
		return
	}
	t.buf = append(t.buf, '\n')
	t.newlines++
	t.space = false
}

// soft is a boundary that separates words without ending the block, such
// as the end of a table cell's paragraph.
func (t *inline) soft() {
	if !t.pre {
		t.space = true
	}
}

// take returns the gathered text and the anchor of its first character, and
// empties the buffer.
func (t *inline) take() (text, anchor string) {
	if t.started {
		b := t.buf
		if t.pre {
			b = trimPre(b)
		} else {
			b = bytes.TrimRight(b, "\n")
		}
		text, anchor = string(b), t.anchor
	}
	*t = inline{buf: t.buf[:0], pre: t.pre}
	return text, anchor
}

// trimPre drops blank lines around preformatted text and the white space
// at the ends of its lines, keeping the indentation.
func trimPre(b []byte) []byte {
	lines := bytes.Split(b, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimRight(l, " \t")
	}
	for len(lines) > 0 && len(lines[0]) == 0 {
		lines = lines[1:]
	}
	for len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return bytes.Join(lines, []byte("\n"))
}

// invisible reports characters that carry nothing for search and would
// only split words: controls, soft hyphens, byte order marks, and MathML's
// invisible operators.
func invisible(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r == '\u00ad', r == '\ufeff', r >= '\u2061' && r <= '\u2064':
		return true
	}
	return false
}
