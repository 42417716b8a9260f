// Package golden helps tests compare output with golden files.
package golden

import (
	"fmt"
	"strings"
)

// LineDiff shows the first ten lines where two texts differ, enough to see
// what changed without a diff library.
func LineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var sb strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			fmt.Fprintf(&sb, "line %d:\n  want %q\n  got  %q\n", i+1, a, b)
			shown++
		}
	}
	return sb.String()
}
