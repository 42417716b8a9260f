// Package suggest finds the names nearest to a mistyped one, for the "did
// you mean" of an error. It imports nothing of grimoire's, so that index
// and the command line can share one rule.
package suggest

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxRunes and maxNameRunes bound the parts of a typo and of a name that
// are compared: suggestions are made on an error path, and a pasted
// paragraph must not cost seconds.
const (
	maxRunes     = 64
	maxNameRunes = 256
)

// Closest returns up to n of names nearest to typo, nearest first (then
// shorter, then in byte order), each once. A name is near when typo, or
// something within a few edits of it, appears in the name at the start of
// one of its words ("wonderlnd" is near "alice-in-wonderland"), or
// anywhere in it for a typo of three runes or more. The edits allowed grow
// with typo's length: a third of its runes, and none below three.
func Closest(typo string, names []string, n int) []string {
	t := []rune(typo)
	if len(t) == 0 || n <= 0 {
		return nil
	}
	if len(t) > maxRunes {
		t = t[:maxRunes]
	}
	limit := len(t) / 3
	type scored struct {
		name string
		d    int
	}
	var near []scored
	seen := make(map[string]bool)
	for _, name := range names {
		if seen[name] || !utf8.ValidString(name) {
			continue
		}
		seen[name] = true
		if d := nearness(t, name, limit); d <= limit {
			near = append(near, scored{name, d})
		}
	}
	slices.SortFunc(near, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(len(a.name), len(b.name)), strings.Compare(a.name, b.name))
	})
	out := make([]string, 0, min(n, len(near)))
	for _, s := range near[:min(n, len(near))] {
		out = append(out, s.name)
	}
	return out
}

// nearness is the fewest edits that turn typo into the whole name or into
// a stretch of it that starts a word; 0 when the name holds typo whole
// (three runes or more). Above limit it may stop early and return limit+1.
func nearness(typo []rune, name string, limit int) int {
	if len(typo) >= 3 && strings.Contains(name, string(typo)) {
		return 0
	}
	r := []rune(name)
	if len(r) > maxNameRunes {
		r = r[:maxNameRunes]
	}
	best := Distance(typo, r)
	for i := range r {
		if i > 0 && !isSeparator(r[i-1]) {
			continue
		}
		// A stretch one rune shorter or longer than typo catches a
		// dropped or doubled letter near its end.
		for _, l := range []int{len(typo) - 1, len(typo), len(typo) + 1} {
			if l <= 0 || i+l > len(r) {
				continue
			}
			best = min(best, Distance(typo, r[i:i+l]))
		}
		if best == 0 {
			return 0
		}
	}
	return min(best, limit+1)
}

func isSeparator(r rune) bool {
	return r == '-' || r == '_' || r == '.' || r == ' '
}

// Distance is the optimal string alignment distance between a and b: the
// fewest insertions, deletions, substitutions and swaps of two adjacent
// runes, a swap being the commonest typing slip.
func Distance(a, b []rune) int {
	// Three rows: the one being filled, and the two before it (a swap
	// looks two back).
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// List renders names for a sentence: "a", "a" or "b", "a", "b" or "c".
func List(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
