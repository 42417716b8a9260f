// Command writebombs writes the hostile files of internal/bomb into a
// directory, for bench/badfiles.sh:
//
//	go run ./internal/bomb/writebombs DIR
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/grimoire-search/grimoire/internal/bomb"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: writebombs DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "writebombs:", err)
		os.Exit(1)
	}
}

const mb = 1 << 20

func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string][]byte{}
	for _, p := range []bomb.Place{bomb.Content, bomb.Form, bomb.ToUnicode, bomb.FontFile, bomb.Image, bomb.ObjectStream} {
		files[fmt.Sprintf("%s-600mb.pdf", p)] = bomb.PDF{Pages: 3, Bombs: 1, Where: p, Size: 600 * mb, Unit: bomb.Spaces}.Bytes()
	}
	// The file: path points that PDFium keeps.
	files["content-600mb-moves.pdf"] = bomb.PDF{Pages: 3, Bombs: 1, Where: bomb.Content, Size: 600 * mb, Unit: bomb.Moves}.Bytes()
	// Every page under the per-page limit, the book far past the per-book one.
	files["pages-64x48mb.pdf"] = bomb.PDF{Pages: 64, Bombs: 64, Where: bomb.Content, Size: 48 * mb, Unit: bomb.Moves}.Bytes()
	for name, data := range bomb.EPUBs(600 * mb) {
		files[name] = data
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
