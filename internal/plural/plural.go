// Package plural says how many of a thing there are in English words: "1
// book", "3 books", "2 queries", for every message that counts.
package plural

import (
	"strconv"
	"strings"
)

// Count says n of noun, in the singular for exactly one: "1 book",
// "0 books", "3 queries". It knows the regular English plurals, which are
// all grimoire prints.
func Count(n int, noun string) string {
	count := strconv.Itoa(n) + " "
	if n == 1 {
		return count + noun
	}
	if stem, ok := strings.CutSuffix(noun, "y"); ok && stem != "" && !strings.ContainsRune("aeiou", rune(stem[len(stem)-1])) {
		return count + stem + "ies"
	}
	return count + noun + "s"
}
