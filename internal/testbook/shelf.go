package testbook

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Write writes content to path, making its folders.
func Write(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Shelf returns a new folder holding three small Markdown books, owls.md,
// tides.md and knots.md, titled Owls, Tides and Knots. Their files are
// dated an hour back, so that no scan finds them too fresh to trust and
// hashes them again.
func Shelf(tb testing.TB) string {
	tb.Helper()
	lib := tb.TempDir()
	books := map[string]string{
		"owls.md":  "# Owls\n\nOwls hunt at night and swallow their prey whole.\n",
		"tides.md": "# Tides\n\nSpring tides follow the full and the new moon.\n",
		"knots.md": "# Knots\n\nThe bowline makes a fixed loop that does not slip.\n",
	}
	old := time.Now().Add(-time.Hour)
	for name, text := range books {
		p := filepath.Join(lib, name)
		Write(tb, p, text)
		if err := os.Chtimes(p, old, old); err != nil {
			tb.Fatal(err)
		}
	}
	return lib
}
