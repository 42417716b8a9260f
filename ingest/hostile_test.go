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
	"github.com/grimoire-search/grimoire/internal/bomb"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model/embed"
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
	res, alloc, size, _ := ingestLibrary(context.Background(), t, files)
	return res, alloc, size
}

// ingestLibrary is ingestAlone for several files, with ctx, and with the
// books as the index holds them after the run.
func ingestLibrary(ctx context.Context, t *testing.T, files map[string][]byte) (Result, uint64, int64, []library.Book) {
	t.Helper()
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
	books, err := w.Books(ctx, index.BookFilter{})
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
	return res, after.TotalAlloc - before.TotalAlloc, size, books
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

// TestInflatingBooksFailAsTooLarge gives a library two small files that
// inflate past doc.MaxText of text, an EPUB of chapters that are zips of
// repeated text and a Word document whose body and footnote are, beside
// an ordinary book: they fail as too large, each on its
// file, and the ordinary book is ingested.
func TestInflatingBooksFailAsTooLarge(t *testing.T) {
	// Without the cap, the run took minutes and gigabytes; with it, a
	// few seconds. The deadline makes the old way a failure, not a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	files := map[string][]byte{
		"inflating.epub": bomb.InflatingEPUB(8, 62<<20),
		"inflating.docx": bomb.InflatingDOCX(40 << 20),
		"small.md":       []byte("# Small Book\n\nThe aardvark digs.\n"),
	}
	for name, data := range files {
		t.Logf("%s: %d bytes", name, len(data))
	}
	res, alloc, _, books := ingestLibrary(ctx, t, files)
	t.Logf("%.0f MB allocated", float64(alloc)/(1<<20))
	if res.Ingested != 1 || res.Failed != 2 {
		t.Errorf("ingested %d, failed %d; want the small book alone ingested", res.Ingested, res.Failed)
	}
	failed := map[string]string{}
	for _, f := range res.Failures {
		failed[filepath.Base(f.Path)] = f.Error
	}
	for _, name := range []string{"inflating.epub", "inflating.docx"} {
		if !strings.Contains(failed[name], "too large") {
			t.Errorf("%s: failure %q, want too large", name, failed[name])
		}
	}
	// Failed for good: those bytes are not read again.
	for _, b := range books {
		want := library.Failed
		if b.Title == "Small Book" {
			want = library.Ready
		}
		if b.Status != want {
			t.Errorf("%s is %s, want %s (%s)", b.Title, b.Status, want, b.Error)
		}
	}
}

// FuzzStoredBytesInProportion parses any input as text, Markdown, HTML or
// RTF and lays it out as ingest does: what the index would store of the
// book (chunk texts and headings, section texts, titles, anchors) stays
// within a fixed multiple of the book's text. Chunk and section texts
// hold each of its bytes a few times at most (overlap, separators); what
// every chunk repeats (its heading, its anchor) is bounded whatever the
// book. The seeds are books of one long word, once named by all of it.
func FuzzStoredBytesInProportion(f *testing.F) {
	types := []string{"text", "markdown", "html", "rtf"}
	word := strings.Repeat("a", 64<<10)
	for i := range types {
		f.Add(byte(i), []byte(word))
	}
	f.Add(byte(2), []byte("<h1>"+word+"</h1><p>"+strings.Repeat("b ", 5000)+"</p>"))
	f.Add(byte(2), []byte(`<p id="`+word+`">`+strings.Repeat("c ", 5000)+"</p>"))
	f.Add(byte(3), []byte(`{\rtf1\ansi {\pard `+strings.Repeat(`\'ff`, 16<<10)+`\par}}`))
	f.Add(byte(1), []byte("# Title\n\n"+strings.Repeat("word ", 3000)+"\n\n## \n\n"+word))
	ps := NewParsers(nil)
	f.Cleanup(func() { ps.Close() })
	// A heading joins three titles of maxTitle runes and "…", by " › ".
	const maxHeading = 3*(4*maxTitle+len("…")) + 2*len(" › ")
	f.Fuzz(func(t *testing.T, which byte, data []byte) {
		d, err := ps.Parse(context.Background(), types[int(which)%len(types)], data, nil)
		if err != nil {
			return
		}
		text := d.TextSize()
		b := layout(d, d.Title+"book", DefaultChunking())
		var texts, repeated int64
		for _, k := range b.chunks {
			texts += int64(len(k.Text))
			if len(k.Heading) > maxHeading {
				t.Fatalf("chunk %d's heading is %d bytes", k.Index, len(k.Heading))
			}
			if len(k.Anchor) > maxAnchor {
				t.Fatalf("chunk %d's anchor is %d bytes", k.Index, len(k.Anchor))
			}
			repeated += int64(len(k.Heading) + len(k.Anchor))
		}
		for _, ch := range b.chapters {
			repeated += int64(len(ch.Title) + len(ch.Anchor))
			for _, s := range ch.Sections {
				texts += int64(len(s.Text))
				repeated += int64(len(s.Title) + len(s.Anchor))
			}
		}
		if limit := 8*text + 1024; texts > limit {
			t.Fatalf("%d bytes of text stored as %d bytes of chunks and sections", text, texts)
		}
		// A chunk holds a byte of text at least, a section a chunk, a
		// chapter a section: names and anchors, bounded each, come to a
		// fixed multiple of the text too.
		parts := int64(len(b.chunks) + len(b.chapters))
		for _, ch := range b.chapters {
			parts += int64(len(ch.Sections))
		}
		if parts > 3*text {
			t.Fatalf("%d chunks, sections and chapters for %d bytes of text", parts, text)
		}
		if limit := parts * int64(maxHeading+maxAnchor); repeated > limit {
			t.Fatalf("%d bytes of names and anchors for %d chunks, sections and chapters", repeated, parts)
		}
	})
}
