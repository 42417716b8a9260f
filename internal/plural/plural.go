// Package plural says how many of a thing there are in English words: "1
// book", "3 books", "2 queries", "1,204 chunks", for every message that
// counts.
package plural

import (
	"strconv"
	"strings"
)

// Count says n of noun, in the singular for exactly one: "1 book",
// "0 books", "3 queries", "1,204 chunks". It knows the regular English
// plurals, which are all grimoire prints.
func Count(n int, noun string) string {
	count := Grouped(n) + " "
	if n == 1 {
		return count + noun
	}
	if stem, ok := strings.CutSuffix(noun, "y"); ok && stem != "" && !strings.ContainsRune("aeiou", rune(stem[len(stem)-1])) {
		return count + stem + "ies"
	}
	return count + noun + "s"
}

// Grouped writes n with its digits in groups of three: "1,204".
func Grouped(n int) string {
	s := strconv.Itoa(n)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}
