// Package roman reads and writes Roman numerals, as books number their
// parts, chapters and front-matter pages.
package roman

import "strings"

// Value parses a well-formed Roman numeral written in one case; 0 means it
// is not one, so "IIII", "Ii" and "civil" are rejected.
func Value(s string) int {
	if s == "" || len(s) > 15 {
		return 0
	}
	var buf [15]byte
	lower := s[0] >= 'a'
	for i := 0; i < len(s); i++ {
		c := s[i]
		if lower {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	u := buf[:len(s)]
	m := 0
	for m < 3 && m < len(u) && u[m] == 'M' {
		m++
	}
	h, u := digit(u[m:], 'C', 'D', 'M')
	t, u := digit(u, 'X', 'L', 'C')
	o, u := digit(u, 'I', 'V', 'X')
	if len(u) > 0 {
		return 0
	}
	return m*1000 + h*100 + t*10 + o
}

// digit reads one decimal digit of a Roman numeral from the symbols for
// one, five and ten of its place: "", I, II, III, IV, V, VI, VII, VIII, IX.
func digit(u []byte, one, five, ten byte) (int, []byte) {
	if len(u) >= 2 && u[0] == one && (u[1] == five || u[1] == ten) {
		if u[1] == ten {
			return 9, u[2:]
		}
		return 4, u[2:]
	}
	n := 0
	if len(u) > 0 && u[0] == five {
		n, u = 5, u[1:]
	}
	k := 0
	for k < 3 && k < len(u) && u[k] == one {
		k++
	}
	return n + k, u[k:]
}

// Format writes n (1 to 3999) in upper-case Roman numerals; "" for any
// other n, which they cannot write.
func Format(n int) string {
	if n < 1 || n > 3999 {
		return ""
	}
	var b strings.Builder
	for _, s := range []struct {
		v int
		s string
	}{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}} {
		for n >= s.v {
			b.WriteString(s.s)
			n -= s.v
		}
	}
	return b.String()
}
