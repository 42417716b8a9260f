package markdown

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

// inline flattens the inline content of a block node to plain text: markup
// goes, the words stay. Soft line breaks become spaces (paragraphs are prose
// to be split at sentences, not at the author's wrapping), hard breaks stay
// newlines.
func (c *converter) inline(n ast.Node) string {
	w := inlineWriter{src: c.src}
	if n.Type() == ast.TypeBlock {
		// The source length is a close upper bound of the text's, so one
		// allocation usually suffices.
		size := 0
		for i, lines := 0, n.Lines(); i < lines.Len(); i++ {
			seg := lines.At(i)
			size += seg.Len()
		}
		w.buf = make([]byte, 0, size)
	}
	w.children(n)
	return string(w.buf)
}

type inlineWriter struct {
	src  []byte
	buf  []byte
	soft bool // a soft line break waits to be written as a space, or as nothing
}

func (w *inlineWriter) children(n ast.Node) {
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		w.node(ch)
	}
}

func (w *inlineWriter) node(n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(w.src)
		if n.IsRaw() {
			w.raw(v)
		} else {
			w.resolved(v)
		}
		switch {
		case n.HardLineBreak():
			w.hard()
		case n.SoftLineBreak():
			w.soft = true
		}
	case *ast.String:
		if n.IsCode() || n.IsRaw() {
			w.raw(n.Value)
		} else {
			w.resolved(n.Value)
		}
	case *ast.CodeSpan:
		w.codeSpan(n)
	case *ast.AutoLink:
		w.raw(n.Label(w.src))
	case *ast.RawHTML:
		var sb strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			sb.Write(seg.Value(w.src))
		}
		w.html(htmlText(sb.String(), true))
	default:
		// Emphasis, links (their text), images (their alt text),
		// strikethrough and anything an extension adds: the children carry
		// the words.
		w.children(n)
	}
}

// codeSpan keeps the code's text as written; line endings inside a code span
// are spaces, as CommonMark says.
func (w *inlineWriter) codeSpan(n *ast.CodeSpan) {
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		var v []byte
		switch t := ch.(type) {
		case *ast.Text:
			v = t.Segment.Value(w.src)
		case *ast.String:
			v = t.Value
		default:
			continue
		}
		if bytes.IndexByte(v, '\n') >= 0 {
			v = bytes.ReplaceAll(v, []byte{'\n'}, []byte{' '})
		}
		w.raw(v)
	}
}

// html writes text recovered from inline HTML, where "\n" came from <br>.
func (w *inlineWriter) html(s string) {
	for i, part := range strings.Split(s, "\n") {
		if i > 0 {
			w.hard()
		}
		w.raw([]byte(part))
	}
}

// raw writes v as it is.
func (w *inlineWriter) raw(v []byte) {
	if len(v) == 0 {
		return
	}
	w.flushSoft(v)
	w.buf = append(w.buf, v...)
}

// resolved writes v with backslash escapes and character references
// resolved.
func (w *inlineWriter) resolved(v []byte) {
	if len(v) == 0 {
		return
	}
	w.flushSoft(v)
	w.buf = appendResolved(w.buf, v)
}

// flushSoft writes a pending soft break before next. Between two CJK
// characters it writes nothing: Chinese and Japanese put no space between
// words, so a wrapped line must join without one.
func (w *inlineWriter) flushSoft(next []byte) {
	if !w.soft {
		return
	}
	w.soft = false
	w.buf = bytes.TrimRight(w.buf, " \t")
	if len(w.buf) == 0 || w.buf[len(w.buf)-1] == '\n' {
		return
	}
	prev, _ := utf8.DecodeLastRune(w.buf)
	first, _ := utf8.DecodeRune(next)
	if isCJK(prev) && isCJK(first) {
		return
	}
	w.buf = append(w.buf, ' ')
}

func (w *inlineWriter) hard() {
	w.soft = false
	w.buf = bytes.TrimRight(w.buf, " \t")
	w.buf = append(w.buf, '\n')
}

// isCJK reports whether r belongs to a script written without spaces between
// words (Han, kana) or is CJK punctuation.
func isCJK(r rune) bool {
	switch {
	case r >= 0x3000 && r <= 0x303F, // CJK symbols and punctuation
		r >= 0xFF00 && r <= 0xFFEF: // half- and full-width forms
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// appendResolved appends v to dst with CommonMark backslash escapes and HTML
// character references (named, decimal, hexadecimal) resolved.
func appendResolved(dst, v []byte) []byte {
	if bytes.IndexByte(v, '\\') < 0 && bytes.IndexByte(v, '&') < 0 {
		return append(dst, v...)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '\\' && i+1 < len(v) && isASCIIPunct(v[i+1]):
			dst = append(dst, v[i+1])
			i++
		case c == '&':
			if r, n := charRef(v[i:]); n > 0 {
				dst = append(dst, r...)
				i += n - 1
			} else {
				dst = append(dst, c)
			}
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// isASCIIPunct reports whether c may be backslash-escaped in CommonMark.
func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

// charRef decodes the character reference at the start of v ("&amp;",
// "&#233;", "&#xE9;") and returns its text and length, or n == 0 when v does
// not start with a valid one.
func charRef(v []byte) (text []byte, n int) {
	if len(v) < 3 || v[0] != '&' {
		return nil, 0
	}
	if v[1] == '#' {
		digits, base := v[2:], 10
		if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
			digits, base = digits[1:], 16
		}
		limit := 7 // CommonMark: up to 7 decimal or 6 hexadecimal digits
		if base == 16 {
			limit = 6
		}
		end := 0
		for end < len(digits) && end < limit && isDigit(digits[end], base) {
			end++
		}
		if end == 0 || end >= len(digits) || digits[end] != ';' {
			return nil, 0
		}
		cp, err := strconv.ParseUint(string(digits[:end]), base, 32)
		r := rune(cp)
		if err != nil || r == 0 || !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		return utf8.AppendRune(nil, r), len(v) - len(digits) + end + 1
	}
	end := 1
	for end < len(v) && end <= 32 && isAlnum(v[end]) {
		end++
	}
	if end == 1 || end >= len(v) || v[end] != ';' {
		return nil, 0
	}
	e, ok := util.LookUpHTML5EntityByName(string(v[1:end]))
	if !ok {
		return nil, 0
	}
	return e.Characters, end + 1
}

func isDigit(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '9':
		return true
	case base == 16:
		return c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
