package text

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/htmlindex"
)

// ErrBinary reports input that is not text at all: an archive, an image,
// random bytes. Indexing it would fill the library with garbage, so it is
// refused instead.
var ErrBinary = errors.New("binary data, not text")

// Encoding names reported by Decode. A charset declared in a Project
// Gutenberg header is reported by its WHATWG name instead ("koi8-r").
const (
	encUTF8      = "utf-8"
	encUTF8Mixed = "utf-8+windows-1252"
	encUTF16LE   = "utf-16le"
	encUTF16BE   = "utf-16be"
	encUTF32LE   = "utf-32le"
	encUTF32BE   = "utf-32be"
	encCP1252    = "windows-1252"
)

// sniffLen is how far into the input a NUL is taken as proof of binary data,
// the same window git uses.
const sniffLen = 8000

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
	bomUTF32LE = []byte{0xFF, 0xFE, 0, 0}
	bomUTF32BE = []byte{0, 0, 0xFE, 0xFF}
)

// Decode turns the bytes of a text file into UTF-8 and reports the encoding
// it found: "utf-8", "utf-16le", "utf-16be", "utf-32le", "utf-32be",
// "windows-1252", "utf-8+windows-1252" (UTF-8 with stray single-byte
// characters), or the WHATWG name of a charset declared in a Project
// Gutenberg header.
//
// A byte-order mark decides when there is one. Otherwise valid UTF-8 is
// taken as UTF-8, BOM-less UTF-16 is recognised by its zero bytes, and
// anything else is read as Windows-1252, the superset of Latin-1 that
// real-world "Latin-1" files are written in, so every byte maps to a
// character and no U+FFFD is ever invented for decodable input.
//
// The result has no byte-order mark, "\r\n" and "\r" are normalised to "\n",
// and control characters other than tab, newline and form feed are removed.
// Input that looks binary (a NUL near the start, or more than 1% control
// characters) is refused with an error wrapping ErrBinary, and no encoding
// is reported. Empty input decodes to "" without error.
func Decode(data []byte) (text, encoding string, err error) {
	s, enc := toUTF8(data)
	if s, err = clean(s); err != nil {
		return "", "", err
	}
	return s, enc, nil
}

// toUTF8 picks the encoding and converts. It never fails: whether the result
// is text is for clean to judge.
func toUTF8(data []byte) (string, string) {
	switch {
	case bytes.HasPrefix(data, bomUTF32LE):
		return decodeUTF32(data[4:], false), encUTF32LE
	case bytes.HasPrefix(data, bomUTF32BE):
		return decodeUTF32(data[4:], true), encUTF32BE
	case bytes.HasPrefix(data, bomUTF8):
		data = data[3:]
		if utf8.Valid(data) {
			return string(data), encUTF8
		}
		// The mark says UTF-8, so the invalid bytes are strays from an
		// editor that saved some characters in the legacy code page.
		return decodeMixed(data), encUTF8Mixed
	case bytes.HasPrefix(data, bomUTF16LE):
		return decodeUTF16(data[2:], false), encUTF16LE
	case bytes.HasPrefix(data, bomUTF16BE):
		return decodeUTF16(data[2:], true), encUTF16BE
	}
	if bigEndian, ok := sniffUTF16(data); ok {
		if bigEndian {
			return decodeUTF16(data, true), encUTF16BE
		}
		return decodeUTF16(data, false), encUTF16LE
	}
	if bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0 {
		// Binary: let clean report it without decoding megabytes first.
		return string(data[:min(len(data), sniffLen)]), encUTF8
	}
	if utf8.Valid(data) {
		return string(data), encUTF8
	}
	if s, name, ok := decodeDeclared(data); ok {
		return s, name
	}
	multi, invalid := utf8Stats(data)
	if multi > invalid {
		return decodeMixed(data), encUTF8Mixed
	}
	return decodeWindows1252(data), encCP1252
}

// sniffUTF16 recognises UTF-16 without a byte-order mark by the zero high
// bytes of its Latin characters: one byte of every pair is almost always
// zero, the other almost never.
func sniffUTF16(data []byte) (bigEndian, ok bool) {
	n := min(len(data), 1024) &^ 1
	if n < 4 {
		return false, false
	}
	var even, odd int
	for i := 0; i < n; i += 2 {
		if data[i] == 0 {
			even++
		}
		if data[i+1] == 0 {
			odd++
		}
	}
	pairs := n / 2
	switch {
	case odd*10 >= pairs*4 && even*20 <= pairs:
		return false, true
	case even*10 >= pairs*4 && odd*20 <= pairs:
		return true, true
	}
	return false, false
}

func decodeUTF16(data []byte, bigEndian bool) string {
	var b strings.Builder
	b.Grow(len(data) + len(data)/2)
	unit := func(i int) rune {
		if bigEndian {
			return rune(data[i])<<8 | rune(data[i+1])
		}
		return rune(data[i+1])<<8 | rune(data[i])
	}
	i := 0
	for ; i+1 < len(data); i += 2 {
		r := unit(i)
		if utf16.IsSurrogate(r) {
			if i+3 < len(data) {
				if pair := utf16.DecodeRune(r, unit(i+2)); pair != utf8.RuneError {
					b.WriteRune(pair)
					i += 2
					continue
				}
			}
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	if i < len(data) {
		b.WriteRune(utf8.RuneError) // a dangling odd byte cannot be decoded
	}
	return b.String()
}

func decodeUTF32(data []byte, bigEndian bool) string {
	var b strings.Builder
	b.Grow(len(data) / 2)
	i := 0
	for ; i+3 < len(data); i += 4 {
		var r rune
		if bigEndian {
			r = rune(data[i])<<24 | rune(data[i+1])<<16 | rune(data[i+2])<<8 | rune(data[i+3])
		} else {
			r = rune(data[i+3])<<24 | rune(data[i+2])<<16 | rune(data[i+1])<<8 | rune(data[i])
		}
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	if i < len(data) {
		b.WriteRune(utf8.RuneError)
	}
	return b.String()
}

// cp1252 maps bytes 0x80–0x9F. The five bytes Windows-1252 leaves undefined
// map to the C1 controls of the same value, as the WHATWG decoder does, so
// clean counts them as control characters rather than hiding them as U+FFFD.
var cp1252 = [32]rune{
	'€', 0x81, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0x8D, 'Ž', 0x8F,
	0x90, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0x9D, 'ž', 'Ÿ',
}

func cp1252Rune(c byte) rune {
	if c >= 0x80 && c < 0xA0 {
		return cp1252[c-0x80]
	}
	return rune(c)
}

func decodeWindows1252(data []byte) string {
	var b strings.Builder
	b.Grow(len(data) + len(data)/8)
	start := 0
	for i, c := range data {
		if c < utf8.RuneSelf {
			continue
		}
		b.Write(data[start:i])
		b.WriteRune(cp1252Rune(c))
		start = i + 1
	}
	b.Write(data[start:])
	return b.String()
}

// decodeMixed reads UTF-8 and takes each byte that is not part of a valid
// sequence as Windows-1252.
func decodeMixed(data []byte) string {
	var b strings.Builder
	b.Grow(len(data) + len(data)/8)
	start := 0
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			b.Write(data[start:i])
			b.WriteRune(cp1252Rune(data[i]))
			start = i + 1
		}
		i += size
	}
	b.Write(data[start:])
	return b.String()
}

// utf8Stats counts valid multi-byte sequences and bytes that are not part of
// one. A legacy single-byte file has almost no valid sequences (its accented
// letters are followed by ASCII); a UTF-8 file with a few strays has many.
func utf8Stats(data []byte) (multi, invalid int) {
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			invalid++
		} else {
			multi++
		}
		i += size
	}
	return multi, invalid
}

var declaredMarker = []byte("character set encoding:")

// decodeDeclared honours the "Character set encoding:" line of a Project
// Gutenberg header, which names the legacy charsets (KOI8-R, ISO-8859-7, …)
// that no byte statistics could tell apart from Windows-1252. It is consulted
// only for input that is not valid UTF-8, so a header that claims UTF-8 for a
// file re-encoded later is ignored.
func decodeDeclared(data []byte) (string, string, bool) {
	head := bytes.ToLower(data[:min(len(data), 16<<10)])
	i := bytes.Index(head, declaredMarker)
	if i < 0 {
		return "", "", false
	}
	label := head[i+len(declaredMarker):]
	if j := bytes.IndexAny(label, "\r\n(;,"); j >= 0 {
		label = label[:j]
	}
	name := strings.TrimSpace(string(label))
	if name == "" || !isASCII(name) {
		return "", "", false
	}
	candidates := []string{name, strings.ReplaceAll(name, " ", "-"), strings.ReplaceAll(name, " ", "")}
	if strings.Contains(name, "latin-1") || strings.Contains(name, "latin1") {
		candidates = append(candidates, "iso-8859-1")
	}
	for _, c := range candidates {
		enc, err := htmlindex.Get(c)
		if err != nil {
			continue
		}
		canonical, err := htmlindex.Name(enc)
		if err != nil {
			continue
		}
		switch canonical {
		case "windows-1252":
			return decodeWindows1252(data), encCP1252, true
		case "utf-8", "utf-16le", "utf-16be", "replacement", "x-user-defined":
			// Wrong for bytes that are not valid UTF-8 and carry no mark;
			// let the statistics decide instead.
			return "", "", false
		}
		out, err := enc.NewDecoder().Bytes(data)
		if err != nil || !utf8.Valid(out) {
			return "", "", false
		}
		return string(out), canonical, true
	}
	return "", "", false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// clean normalises line endings, drops byte-order marks and control
// characters, and refuses text that is really binary. The scan is a tight
// loop over printable ASCII; the rewrites only run when there is something
// to rewrite.
func clean(s string) (string, error) {
	controls, marks := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c >= 0x20 && c < 0x7F) || c == '\n' || c == '\r' || c == '\t' || c == '\f' {
			continue
		}
		switch {
		case c == 0:
			if i < sniffLen {
				return "", fmt.Errorf("%w: it contains NUL bytes (an archive or image with a text file's name?)", ErrBinary)
			}
			controls++
		case c < 0x20 || c == 0x7F:
			controls++
		// s is valid UTF-8 here, so lead bytes identify U+FEFF (EF BB BF)
		// and the C1 controls (C2 80–C2 9F) without decoding.
		case c == 0xEF && i+2 < len(s) && s[i+1] == 0xBB && s[i+2] == 0xBF:
			marks = true
		case c == 0xC2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] < 0xA0:
			controls++
		}
	}
	if controls > 0 {
		if runes := utf8.RuneCountInString(s); controls*100 > runes {
			return "", fmt.Errorf("%w: %d of its %d characters are control characters (an archive or image with a text file's name?)", ErrBinary, controls, runes)
		}
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	if controls > 0 || marks {
		s = strings.Map(func(r rune) rune {
			switch {
			case r == '\n' || r == '\t' || r == '\f':
				return r
			case r < 0x20 || (r >= 0x7F && r < 0xA0) || r == '\uFEFF':
				return -1
			}
			return r
		}, s)
	}
	return s, nil
}
