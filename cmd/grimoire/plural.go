package main

import nouns "github.com/grimoire-search/grimoire/internal/plural"

// plural says n of noun, in the singular for exactly one: "1 book",
// "0 books", "3 queries", "1,204 chunks".
func plural(n int, noun string) string { return nouns.Count(n, noun) }

// grouped writes n with its digits in groups of three: "1,204".
func grouped(n int) string { return nouns.Grouped(n) }
