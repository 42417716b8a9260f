// Package golden helps tests compare output with golden files.
package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// Check compares got with the golden file at path, or, with update (the
// tests' -update flag), rewrites the file from got. what names what the
// file holds, for the failure.
func Check(t testing.TB, path, got, what string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed; run go test -update if intended:\n%s", what, LineDiff(string(want), got))
	}
}
