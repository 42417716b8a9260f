// Command writebooks writes books that cost far more than their size
// once read, for bench/hostile.sh:
//
//	go run ./internal/bomb/writebooks DIR
//
// Books of one long word (no title, no space) in text and EPUB, at 1 and
// 2 MB of text, and books that inflate past grimoire's cap on a book's
// text: an EPUB of 8 chapters of 62 MB each, a Word document of 2 × 40 MB.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/grimoire-search/grimoire/internal/bomb"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: writebooks DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "writebooks:", err)
		os.Exit(1)
	}
}

const mb = 1 << 20

func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	books := map[string][]byte{
		"word-1mb.txt":          []byte(strings.Repeat("a", 1*mb)),
		"word-2mb.txt":          []byte(strings.Repeat("a", 2*mb)),
		"word-1mb.epub":         bomb.OneWordEPUB(1 * mb),
		"word-2mb.epub":         bomb.OneWordEPUB(2 * mb),
		"inflating-8x62mb.epub": bomb.InflatingEPUB(8, 62*mb),
		"inflating-2x40mb.docx": bomb.InflatingDOCX(40 * mb),
	}
	for name, data := range books {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
