package main

import (
	"strconv"
	"strings"
)

// plural says n of noun, in the singular for exactly one: "1 book",
// "0 books", "3 queries". It knows the regular English plurals, which are
// all the CLI prints.
func plural(n int, noun string) string {
	count := strconv.Itoa(n) + " "
	if n == 1 {
		return count + noun
	}
	if stem, ok := strings.CutSuffix(noun, "y"); ok && stem != "" && !strings.ContainsRune("aeiou", rune(stem[len(stem)-1])) {
		return count + stem + "ies"
	}
	return count + noun + "s"
}
