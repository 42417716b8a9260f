package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest/embed"
	"github.com/grimoire-search/grimoire/reconcile"
)

// oneWordBooks write a book of one chapter, without a title, whose text is
// one word of n letters: what an untitled division is named by.
var oneWordBooks = []struct {
	name string
	make func(n int) []byte
}{
	{"word.txt", func(n int) []byte { return []byte(strings.Repeat("a", n)) }},
	{"word.md", func(n int) []byte { return []byte(strings.Repeat("a", n) + "\n") }},
	{"word.html", func(n int) []byte {
		return []byte("<html><body><p>" + strings.Repeat("a", n) + "</p></body></html>")
	}},
	{"word.epub", func(n int) []byte {
		return epubOf(map[string]string{"c1.xhtml": "<p>" + strings.Repeat("a", n) + "</p>"})
	}},
	// \'ff is ÿ in code page 1252: four bytes of RTF for each letter.
	{"word.rtf", func(n int) []byte {
		return []byte(`{\rtf1\ansi\ansicpg1252 {\pard ` + strings.Repeat(`\'ff`, n/4) + `\par}}`)
	}},
}

// epubOf returns a deflated EPUB whose spine is chapters, in name order,
// each an XHTML body.
func epubOf(chapters map[string]string) []byte {
	var names []string
	for n := range chapters {
		names = append(names, n)
	}
	slices.Sort(names)
	var manifest, spine strings.Builder
	for i, n := range names {
		fmt.Fprintf(&manifest, `<item id="c%d" href="%s" media-type="application/xhtml+xml"/>`, i, n)
		fmt.Fprintf(&spine, `<itemref idref="c%d"/>`, i)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, body string, method uint16) {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		w.Write([]byte(body))
	}
	add("mimetype", "application/epub+zip", zip.Store)
	add("META-INF/container.xml", `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`, zip.Deflate)
	add("content.opf", `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">x</dc:identifier><dc:title>Word</dc:title></metadata><manifest>`+
		manifest.String()+`</manifest><spine>`+spine.String()+`</spine></package>`, zip.Deflate)
	for _, n := range names {
		add(n, `<html xmlns="http://www.w3.org/1999/xhtml"><body>`+chapters[n]+`</body></html>`, zip.Deflate)
	}
	zw.Close()
	return buf.Bytes()
}

// ingestAlone syncs a library of the one file given into a new index, and
// returns the run's result, the bytes the run allocated and the size of
// the index it left.
func ingestAlone(t *testing.T, files map[string][]byte) (Result, uint64, int64) {
	t.Helper()
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "lib")
	old := time.Now().Add(-time.Hour)
	for name, data := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "g.db")
	w, err := index.OpenWriter(ctx, db, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := reconcile.Run(ctx, w, reconcile.Options{Roots: []string{root}, Formats: Formats(), RacyWindow: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := Run(ctx, w, Options{Embedder: embed.NewBuiltin()})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var size int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(db + suffix); err == nil {
			size += fi.Size()
		}
	}
	return res, after.TotalAlloc - before.TotalAlloc, size
}

// TestOneWordBookCostsInProportion ingests books that are one long word,
// with no title and no space, at growing sizes: the memory a run
// allocates and the index it leaves must grow in proportion to the book,
// not with its square (the word once named the chapter, and every chunk
// carried that name in its heading).
func TestOneWordBookCostsInProportion(t *testing.T) {
	sizes := []int{64 << 10, 256 << 10, 1 << 20}
	if testing.Short() {
		sizes = sizes[:2]
	}
	for _, b := range oneWordBooks {
		t.Run(b.name, func(t *testing.T) {
			var allocs []uint64
			var indexes []int64
			for _, n := range sizes {
				res, alloc, size := ingestAlone(t, map[string][]byte{b.name: b.make(n)})
				if res.Ingested != 1 {
					t.Fatalf("%d letters: ingested %d, failures %v", n, res.Ingested, res.Failures)
				}
				t.Logf("%7d letters: %6.1f MB allocated, index %6.1f MB", n, float64(alloc)/(1<<20), float64(size)/(1<<20))
				allocs = append(allocs, alloc)
				indexes = append(indexes, size)
			}
			// Linear growth gives a ratio of about the sizes' (4, 16);
			// fixed costs make it less. A square gives 16, 256.
			for i := 1; i < len(sizes); i++ {
				grew := float64(sizes[i]) / float64(sizes[0])
				if r := float64(allocs[i]) / float64(allocs[0]); r > 2*grew {
					t.Errorf("%d letters allocate %.1f times what %d do, for %.0f times the text", sizes[i], r, sizes[0], grew)
				}
				if r := float64(indexes[i]) / float64(indexes[0]); r > 2*grew {
					t.Errorf("%d letters make an index %.1f times that of %d, for %.0f times the text", sizes[i], r, sizes[0], grew)
				}
			}
			// And in proportion to the book itself: a few times its text.
			last := len(sizes) - 1
			if n := int64(sizes[last]); indexes[last] > 20*n+(1<<20) {
				t.Errorf("%d letters make an index of %d bytes", n, indexes[last])
			}
		})
	}
}
