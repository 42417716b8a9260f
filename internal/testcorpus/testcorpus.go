// Package testcorpus finds the shared corpus of real books that integration
// tests and benchmarks use. The corpus lives beside the repository, never in
// it; tests that need it skip with a message where it is absent.
package testcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Env overrides where the corpus is looked for.
const Env = "GRIMOIRE_TEST_CORPUS"

// Dir returns the corpus directory, or skips the test when there is none.
func Dir(tb testing.TB) string {
	tb.Helper()
	if d, ok := Find(); ok {
		return d
	}
	tb.Skipf("shared corpus not found (looked for ../shared/corpus beside the repository, or $%s); skipping", Env)
	return ""
}

// Path returns a file or directory inside the corpus, skipping the test when
// the corpus or that entry is absent.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Dir(tb)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("corpus entry %s not found; skipping", filepath.Join(elem...))
	}
	return p
}

// Find looks for the corpus without a testing.TB, for benchmarks run as
// programs.
func Find() (string, bool) {
	if d := os.Getenv(Env); d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d, true
		}
		return "", false
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			c := filepath.Join(dir, "..", "shared", "corpus")
			if st, err := os.Stat(c); err == nil && st.IsDir() {
				return filepath.Clean(c), true
			}
			return "", false
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}
