// Command writebombs writes the hostile files of package bomb into a
// directory, for bench/badfiles.sh:
//
//	go run ./internal/bomb/writebombs DIR
//
// Each PDF has a few pages of text besides its bomb. Some stay just under
// grimoire's default limits, so that the benchmark also measures what a
// file the limits let through may cost.
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
	pdfs := map[string]bomb.PDF{
		// The file: one page whose content inflates to 600 MB.
		"page-600mb.pdf":        {Pages: 1, Bombs: 1, Where: bomb.Content, Size: 600 * mb, Unit: bomb.Moves},
		"page-600mb-spaces.pdf": {Pages: 3, Bombs: 1, Where: bomb.Content, Size: 600 * mb},
		"form-600mb.pdf":        {Pages: 3, First: 1, Bombs: 1, Where: bomb.Form, Size: 600 * mb},
		"form-1mb-drawn-100.pdf": {Pages: 3, Bombs: 1, Where: bomb.Form, Size: 1 * mb, Draws: 100,
			Unit: bomb.Moves},
		"tounicode-600mb.pdf": {Pages: 3, Bombs: 1, Where: bomb.ToUnicode, Size: 600 * mb},
		"fontfile-600mb.pdf":  {Pages: 3, Bombs: 1, Where: bomb.FontFile, Size: 600 * mb},
		"objstm-600mb.pdf":    {Pages: 3, Bombs: 1, Where: bomb.ObjectStream, Size: 600 * mb},
		"objstm-3x40mb.pdf":   {Pages: 4, First: 1, Bombs: 3, Where: bomb.ObjectStream, Size: 40 * mb},
		// Every page under the per-page limit, the book far past the
		// per-book one.
		"pages-64x48mb.pdf": {Pages: 64, Bombs: 64, Where: bomb.Content, Size: 48 * mb, Unit: bomb.Moves},
		// Read: images are never inflated to read text, and these stay
		// just under the limits.
		"image-600mb.pdf":      {Pages: 3, Bombs: 1, Where: bomb.Image, Size: 600 * mb},
		"page-60mb.pdf":        {Pages: 3, Bombs: 1, Where: bomb.Content, Size: 60 * mb, Unit: bomb.Moves},
		"fontfile-250mb.pdf":   {Pages: 3, Bombs: 1, Where: bomb.FontFile, Size: 250 * mb},
		"pages-30x60mb.pdf":    {Pages: 30, Bombs: 30, Where: bomb.Content, Size: 60 * mb, Unit: bomb.Moves},
		"objstm-2x30mb.pdf":    {Pages: 3, First: 1, Bombs: 2, Where: bomb.ObjectStream, Size: 30 * mb},
		"tounicode-4x60mb.pdf": {Pages: 4, Bombs: 4, Where: bomb.ToUnicode, Size: 60 * mb},
	}
	for name, p := range pdfs {
		if err := os.WriteFile(filepath.Join(dir, name), p.Bytes(), 0o644); err != nil {
			return err
		}
	}
	for name, data := range bomb.EPUBs(600 * mb) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
