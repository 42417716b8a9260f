package pdf

import (
	"encoding/hex"
	"unicode/utf16"
)

// parseToUnicode reads the bfchar and bfrange entries of a ToUnicode CMap.
// It is deliberately lenient where PDFium is strict: it ignores the entry
// counts before beginbfchar and beginbfrange (some producers write 25 and
// list 24, and PDFium then drops the whole block) and keeps going past
// anything it does not understand.
func parseToUnicode(data []byte, into map[uint32]string) {
	t := cmapTokens{data: data}
	const maxEntries = 1 << 16
	for len(into) < maxEntries {
		tok, ok := t.next()
		if !ok {
			return
		}
		switch tok.kind {
		case tokKeyword:
			switch tok.text {
			case "beginbfchar":
				for len(into) < maxEntries {
					src, ok := t.next()
					if !ok || src.kind != tokHex {
						break
					}
					dst, ok := t.next()
					if !ok || dst.kind != tokHex {
						break
					}
					if code, ok := hexCode(src.text); ok {
						if s := utf16Text(dst.text); s != "" {
							into[code] = s
						}
					}
				}
			case "beginbfrange":
				for len(into) < maxEntries {
					lo, ok := t.next()
					if !ok || lo.kind != tokHex {
						break
					}
					hi, ok := t.next()
					if !ok || hi.kind != tokHex {
						break
					}
					dst, ok := t.next()
					if !ok {
						break
					}
					a, ok1 := hexCode(lo.text)
					b, ok2 := hexCode(hi.text)
					if !ok1 || !ok2 || b < a || b-a > 0xFFFF {
						continue
					}
					switch dst.kind {
					case tokHex:
						base := []byte(dst.text)
						for c := a; c <= b && len(into) < maxEntries; c++ {
							if s := utf16Text(string(incremented(base, int(c-a)))); s != "" {
								into[c] = s
							}
						}
					case tokArray:
						for i, d := range dst.items {
							if c := a + uint32(i); c <= b {
								if s := utf16Text(d); s != "" {
									into[c] = s
								}
							}
						}
					}
				}
			}
		}
	}
}

// incremented adds n to the last two bytes of a UTF-16BE destination, as
// a bfrange asks.
func incremented(b []byte, n int) []byte {
	out := append([]byte(nil), b...)
	if len(out) < 2 {
		return out
	}
	v := int(out[len(out)-2])<<8 | int(out[len(out)-1])
	v += n
	out[len(out)-2], out[len(out)-1] = byte(v>>8), byte(v)
	return out
}

func hexCode(b string) (uint32, bool) {
	if len(b) == 0 || len(b) > 4 {
		return 0, false
	}
	var v uint32
	for i := 0; i < len(b); i++ {
		v = v<<8 | uint32(b[i])
	}
	return v, true
}

// utf16Text decodes a UTF-16BE destination, refusing controls and the
// replacement character (a mapping to those is no mapping).
func utf16Text(b string) string {
	if len(b) < 2 || len(b)%2 != 0 {
		return ""
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	rs := utf16.Decode(u)
	for _, r := range rs {
		if !textRune(r) || r == 0xFFFD {
			return ""
		}
	}
	return string(rs)
}

type tokKind int

const (
	tokHex tokKind = iota
	tokKeyword
	tokArray
	tokOther
)

type cmapToken struct {
	kind  tokKind
	text  string   // decoded bytes of a hex string; a keyword's name
	items []string // an array's hex strings
}

// cmapTokens splits a CMap into the few token kinds ToUnicode needs.
type cmapTokens struct {
	data []byte
	pos  int
}

func (t *cmapTokens) next() (cmapToken, bool) {
	d := t.data
	for t.pos < len(d) {
		c := d[t.pos]
		switch {
		case c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0:
			t.pos++
		case c == '%':
			for t.pos < len(d) && d[t.pos] != '\n' && d[t.pos] != '\r' {
				t.pos++
			}
		case c == '<':
			if t.pos+1 < len(d) && d[t.pos+1] == '<' {
				t.pos += 2
				return cmapToken{kind: tokOther}, true
			}
			return cmapToken{kind: tokHex, text: t.hex()}, true
		case c == '[':
			t.pos++
			var items []string
			for t.pos < len(d) && d[t.pos] != ']' {
				if d[t.pos] == '<' {
					items = append(items, t.hex())
					continue
				}
				t.pos++
			}
			t.pos++
			return cmapToken{kind: tokArray, items: items}, true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			start := t.pos
			for t.pos < len(d) && (d[t.pos] >= 'a' && d[t.pos] <= 'z' || d[t.pos] >= 'A' && d[t.pos] <= 'Z') {
				t.pos++
			}
			return cmapToken{kind: tokKeyword, text: string(d[start:t.pos])}, true
		default:
			t.pos++
			return cmapToken{kind: tokOther}, true
		}
	}
	return cmapToken{}, false
}

// hex reads <...> at pos, skipping whitespace inside.
func (t *cmapTokens) hex() string {
	d := t.data
	t.pos++ // '<'
	var digits []byte
	for t.pos < len(d) && d[t.pos] != '>' {
		c := d[t.pos]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
			digits = append(digits, c)
		}
		t.pos++
	}
	t.pos++
	if len(digits)%2 != 0 {
		digits = append(digits, '0')
	}
	b, err := hex.DecodeString(string(digits))
	if err != nil {
		return ""
	}
	return string(b)
}
