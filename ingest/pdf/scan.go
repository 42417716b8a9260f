package pdf

// contentScanner reads a content stream as it is inflated, for the
// resources it uses: the XObjects it draws (Do, counted) and the fonts it
// sets (Tf). It looks only at what that needs: names, the three operators
// Do, Tf and ID, and the strings, comments and inline image data to skip;
// everything else (numbers, other operators) it passes over a byte at a
// time without tokenizing, which keeps it near the speed of inflating.
// Misreading hostile bytes can only make it see more uses, never fewer of
// the real ones: it always resynchronises on the next delimiter.
type contentScanner struct {
	state scanState
	tok   []byte
	// last is the last name seen, the operand that Do and Tf take.
	last  string
	prev  byte // the byte before the current Write
	depth int  // nesting of a literal string
	esc   bool // after a backslash in a literal string
	ei    int  // progress through "<space>EI<space>" in inline image data
	draws map[string]int
	fonts map[string]bool
}

type scanState uint8

const (
	scanSpace   scanState = iota // between tokens, or in one of no interest
	scanName                     // a name, collected
	scanWord                     // an operator that may be Do, Tf or ID, collected
	scanString                   // a literal string
	scanAngle                    // after '<': a dictionary or a hex string
	scanHex                      // a hex string
	scanComment                  // a comment
	scanInline                   // inline image data
)

// maxToken bounds a name or operator kept; longer ones name nothing.
const maxToken = 127

func newContentScanner() *contentScanner {
	return &contentScanner{prev: ' ', draws: map[string]int{}, fonts: map[string]bool{}}
}

// Byte classes of PDF syntax, and the bytes the scanner stops at between
// tokens.
const (
	regular = iota
	space
	delim
)

// classes, hot and stringHot are never written to.
var (
	classes = func() (t [256]uint8) {
		for _, c := range []byte(" \n\r\t\f\x00") {
			t[c] = space
		}
		for _, c := range []byte("()<>[]{}/%") {
			t[c] = delim
		}
		return t
	}()
	hot = func() (t [256]bool) {
		for _, c := range []byte("/(<%DTI") {
			t[c] = true
		}
		return t
	}()
	stringHot = func() (t [256]bool) {
		for _, c := range []byte("()\\") {
			t[c] = true
		}
		return t
	}()
)

func (s *contentScanner) Write(p []byte) (int, error) {
	i := 0
	for i < len(p) {
		switch s.state {
		case scanSpace:
			for i < len(p) && !hot[p[i]] {
				i++
			}
			if i == len(p) {
				break
			}
			c := p[i]
			before := s.prev
			if i > 0 {
				before = p[i-1]
			}
			i++
			switch c {
			case '/':
				s.state, s.tok = scanName, s.tok[:0]
			case '(':
				s.state, s.depth = scanString, 1
			case '<':
				s.state = scanAngle
			case '%':
				s.state = scanComment
			default: // D, T or I
				if classes[before] != regular {
					s.state, s.tok = scanWord, append(s.tok[:0], c)
				}
			}
		case scanName, scanWord:
			j := i
			for j < len(p) && classes[p[j]] == regular {
				j++
			}
			s.tok = append(s.tok, p[i:min(j, i+maxToken-len(s.tok))]...)
			i = j
			if i < len(p) {
				// The delimiter is read again, from between tokens.
				s.endToken()
			}
		case scanString:
			if !s.esc {
				for i < len(p) && !stringHot[p[i]] {
					i++
				}
				if i == len(p) {
					break
				}
			}
			c := p[i]
			i++
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '(':
				s.depth++
			case c == ')':
				if s.depth--; s.depth == 0 {
					s.state = scanSpace
				}
			}
		case scanAngle:
			if p[i] == '<' {
				s.state = scanSpace // a dictionary
				i++
				continue
			}
			s.state = scanHex
		case scanHex:
			for i < len(p) && p[i] != '>' {
				i++
			}
			if i < len(p) {
				s.state = scanSpace
				i++
			}
		case scanComment:
			for i < len(p) && p[i] != '\n' && p[i] != '\r' {
				i++
			}
			if i < len(p) {
				s.state = scanSpace
			}
		case scanInline:
			if !s.inline(p[i]) {
				i++
			}
		}
	}
	if len(p) > 0 {
		s.prev = p[len(p)-1]
	}
	return len(p), nil
}

// end marks the end of a stream: PDFium joins a page's streams with a
// space between them, which ends a name or operator left open.
func (s *contentScanner) end() { s.Write([]byte{' '}) }

func (s *contentScanner) endToken() {
	state := s.state
	s.state = scanSpace
	if state == scanName {
		s.last = decodeName(s.tok)
		return
	}
	switch string(s.tok) {
	case "Do":
		if s.last != "" {
			s.draws[s.last]++
		}
	case "Tf":
		if s.last != "" {
			s.fonts[s.last] = true
		}
	case "ID":
		// Binary data follows, up to "EI" between white space.
		s.state, s.ei = scanInline, 0
	}
}

// inline reads a byte of inline image data; it reports the end of the
// data, at the byte after "EI", which is then read again between tokens.
func (s *contentScanner) inline(c byte) bool {
	switch {
	case s.ei == 3 && classes[c] != regular:
		s.state = scanSpace
		return true
	case classes[c] == space:
		s.ei = 1
	case s.ei == 1 && c == 'E':
		s.ei = 2
	case s.ei == 2 && c == 'I':
		s.ei = 3
	default:
		s.ei = 0
	}
	return false
}

// decodeName undoes the #xx escapes of a name.
func decodeName(b []byte) string {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			if hi, lo := unhex(b[i+1]), unhex(b[i+2]); hi >= 0 && lo >= 0 {
				out = append(out, byte(hi<<4|lo))
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return string(out)
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
