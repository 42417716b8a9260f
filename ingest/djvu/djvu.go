// Package djvu reads DjVu documents: the hidden text layer of each page
// (TXTz, TXTa) with its lines and paragraphs, the outline (NAVM) as
// chapters and sections, and the metadata of the annotations (ANTz,
// ANTa). It decodes BZZ itself, after the DjVu v3 specification. It does
// not decode the images: pages that are scans without a text layer are
// listed as such, drawn by djvulibre's ddjvu command when it is installed
// (render.go), and their text read by OCR is laid out on them
// (ParseScanned).
package djvu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

const (
	// maxComponents bounds the files of a bundled document and the chunks
	// of any one form.
	maxComponents = 1 << 16
	// maxChunkOut bounds what one compressed chunk may decode to.
	maxChunkOut = 16 << 20
	// maxTextOut bounds the decoded text chunks of a whole document.
	maxTextOut = 256 << 20
)

// ErrIndirect reports an indirect document: an index file whose pages are
// files beside it.
var ErrIndirect = errors.New("an indirect DjVu document (its pages are separate files) is not read: bundle it into one file first, for example with djvmcvt -b")

// component is one file of a document: a page, or shared data pages
// include.
type component struct {
	id, title string
	page      bool
	chunks    []chunk
}

// Parse reads a DjVu file, single-page or bundled, into a document whose
// blocks carry their page. The pages that are images without a text layer
// are listed in the document's Scanned.
func Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	return ParseScanned(ctx, data, nil)
}

// ParseScanned is Parse with the text OCR read on scanned pages, by
// 1-based page, as paragraphs separated by blank lines; it is laid out on
// its page as a text layer would be.
func ParseScanned(ctx context.Context, data []byte, recognised map[int]string) (*doc.Document, error) {
	comps, navm, err := components(data)
	if err != nil {
		return nil, err
	}
	return build(ctx, comps, navm, recognised)
}

// components splits a DjVu file into its component files and its outline.
func components(data []byte) ([]component, []byte, error) {
	if len(data) < 16 || !bytes.HasPrefix(data, []byte("AT&TFORM")) {
		return nil, nil, errors.New("not a DjVu file: no AT&T FORM header")
	}
	top, err := chunks(data[4:], 4, 1)
	if err != nil || len(top) == 0 {
		return nil, nil, errors.New("not a DjVu file: no FORM chunk")
	}
	typ, body, ok := top[0].form()
	if !ok {
		return nil, nil, errors.New("not a DjVu file: no FORM chunk")
	}
	switch typ {
	case "DJVU":
		kids, err := chunks(body, top[0].offset+12, maxComponents)
		if err != nil {
			return nil, nil, fmt.Errorf("DjVu page: %w", err)
		}
		return []component{{id: "", page: true, chunks: kids}}, nil, nil
	case "DJVM":
		return bundle(body, top[0].offset+12)
	default:
		return nil, nil, fmt.Errorf("not a DjVu document: a FORM:%s", sanitize(typ))
	}
}

// bundle reads a multi-page document: its directory, its outline and its
// component files in order.
func bundle(body []byte, base int) ([]component, []byte, error) {
	kids, err := chunks(body, base, maxComponents)
	if err != nil {
		return nil, nil, fmt.Errorf("DjVu document: %w", err)
	}
	if len(kids) == 0 || kids[0].id != "DIRM" {
		return nil, nil, errors.New("DjVu document without a directory (DIRM)")
	}
	dir, err := directory(kids[0].data)
	if err != nil {
		return nil, nil, err
	}
	var navm []byte
	var comps []component
	for _, k := range kids[1:] {
		if k.id == "NAVM" {
			navm = k.data
			continue
		}
		typ, inner, ok := k.form()
		if !ok {
			continue
		}
		sub, err := chunks(inner, k.offset+12, maxComponents)
		if err != nil {
			return nil, nil, fmt.Errorf("DjVu component %d: %w", len(comps)+1, err)
		}
		c := component{page: typ == "DJVU", chunks: sub}
		// The directory lists the components in the order they are
		// stored; without it, each page form is a page.
		if i := len(comps); i < len(dir) {
			c.id, c.title = dir[i].id, dir[i].title
			c.page = dir[i].page && typ == "DJVU"
		}
		comps = append(comps, c)
	}
	return comps, navm, nil
}

// dirEntry is a component file as the directory lists it.
type dirEntry struct {
	id, title string
	page      bool
}

// directory reads a DIRM chunk: a flag byte, the number of files, their
// offsets when bundled, then BZZ data with their sizes, flags and names.
// An undecodable directory leaves the components unnamed, not the
// document unread.
func directory(data []byte) ([]dirEntry, error) {
	if len(data) < 3 {
		return nil, errors.New("DjVu directory (DIRM) too short")
	}
	if data[0]&0x80 == 0 {
		return nil, ErrIndirect
	}
	n := int(data[1])<<8 | int(data[2])
	if 3+4*n > len(data) {
		return nil, fmt.Errorf("DjVu directory lists %d files in %d bytes", n, len(data))
	}
	rest, err := unbzz(data[3+4*n:], min(maxChunkOut, 64+n*(3+1+3*256)))
	if err != nil || len(rest) < 4*n {
		return nil, nil
	}
	flags := rest[3*n : 4*n]
	names := rest[4*n:]
	next := func() string {
		i := bytes.IndexByte(names, 0)
		if i < 0 {
			i = len(names)
		}
		s := string(names[:i])
		names = names[min(i+1, len(names)):]
		return s
	}
	out := make([]dirEntry, n)
	for i := range out {
		out[i].id = next()
		out[i].title = out[i].id
		if flags[i]&0x80 != 0 {
			next() // the name, as a file name on disk
		}
		if flags[i]&0x40 != 0 {
			out[i].title = next()
		}
		out[i].page = flags[i]&0x3f == 1
	}
	return out, nil
}

// decoded returns a chunk's data, decoding the BZZ of the compressed
// kinds (TXTz, ANTz).
func decoded(c chunk, budget *int) ([]byte, error) {
	if !strings.HasSuffix(c.id, "z") {
		return c.data, nil
	}
	out, err := unbzz(c.data, min(maxChunkOut, *budget))
	if err != nil {
		return nil, fmt.Errorf("%s chunk at byte %d: %w", c.id, c.offset, err)
	}
	*budget -= len(out)
	return out, nil
}

// build reads the components' text, outline and metadata into a
// document, with the text recognised on scanned pages.
func build(ctx context.Context, comps []component, navm []byte, recognised map[int]string) (*doc.Document, error) {
	byID := make(map[string]*component, len(comps))
	pageOf := make(map[string]int)
	var pages []*component
	for i := range comps {
		c := &comps[i]
		if c.id != "" {
			byID[c.id] = c
		}
		if c.page {
			pages = append(pages, c)
			for _, name := range []string{c.id, c.title} {
				if _, seen := pageOf[name]; name != "" && !seen {
					pageOf[name] = len(pages)
				}
			}
		}
	}
	d := &doc.Document{SourceType: doc.DjVu, PageCount: len(pages)}
	budget := maxTextOut

	// Metadata: the first annotation that has it, in the shared files
	// pages include or in the pages themselves.
	meta := make(map[string]string)
	for i := range comps {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for _, ch := range comps[i].chunks {
			if ch.id != "ANTa" && ch.id != "ANTz" {
				continue
			}
			ant, err := decoded(ch, &budget)
			if err != nil {
				continue // annotations are optional; the text is what counts
			}
			for k, v := range metadata(string(ant)) {
				if _, seen := meta[k]; !seen && v != "" {
					meta[k] = v
				}
			}
		}
		if len(meta) > 0 {
			break
		}
	}
	d.Title = meta["title"]
	if a := meta["author"]; a != "" {
		d.Authors = []string{a}
	}
	if l := meta["language"]; l != "" && len(l) <= 16 {
		d.Language = strings.ToLower(l)
	}
	d.Catalog = catalog(meta)

	var all []pageLine
	labels := false
	for i, p := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.title != "" && p.title != p.id {
			labels = true
		}
		txt := textChunk(p, byID)
		if txt == nil {
			if !hasImage(p) {
				continue
			}
			d.Scanned = append(d.Scanned, i+1)
			for _, l := range recognisedLines(recognised[i+1]) {
				all = append(all, pageLine{line: l, page: i + 1})
			}
			continue
		}
		raw, err := decoded(*txt, &budget)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		lines, err := pageText(raw)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", i+1, err)
		}
		for _, l := range lines {
			all = append(all, pageLine{line: l, page: i + 1})
		}
	}
	if labels {
		for _, p := range pages {
			d.PageLabels = append(d.PageLabels, clean([]byte(p.title)))
		}
	}
	if len(all) == 0 {
		return d, nil
	}
	var outline []bookmark
	if navm != nil {
		if raw, err := unbzz(navm, maxChunkOut); err == nil {
			// A damaged outline keeps the entries read before the damage.
			outline, _ = bookmarks(raw)
		}
	}
	d.Chapters = chapters(all, flatten(outline, pageOf, len(pages)))
	return d, nil
}

// textChunk returns a page's text chunk, its own or one in a file it
// includes.
func textChunk(p *component, byID map[string]*component) *chunk {
	for i, ch := range p.chunks {
		if ch.id == "TXTz" || ch.id == "TXTa" {
			return &p.chunks[i]
		}
	}
	for _, ch := range p.chunks {
		if ch.id != "INCL" {
			continue
		}
		inc, ok := byID[strings.TrimSpace(string(ch.data))]
		if !ok || inc.page {
			continue
		}
		for i, c := range inc.chunks {
			if c.id == "TXTz" || c.id == "TXTa" {
				return &inc.chunks[i]
			}
		}
	}
	return nil
}

// imageChunks are the chunks that hold a page's image: JB2 bilevel
// masks, IW44 layers, JPEG and JPEG 2000 backgrounds and foregrounds.
var imageChunks = []string{"Sjbz", "Smmr", "BG44", "BGjp", "BG2k", "FG44", "FGjp", "FG2k"}

// hasImage reports whether a page has an image of its own to read: a page
// without one and without text is blank.
func hasImage(p *component) bool {
	for _, ch := range p.chunks {
		if slices.Contains(imageChunks, ch.id) && len(ch.data) > 0 {
			return true
		}
	}
	return false
}

// recognisedLines are the lines of a page's recognised text, paragraphs
// separated by blank lines.
func recognisedLines(text string) []line {
	var out []line
	for i, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		for _, l := range strings.Split(para, "\n") {
			if t := clean([]byte(l)); t != "" {
				out = append(out, line{text: t, paragraph: i})
			}
		}
	}
	return out
}

// sanitize makes a chunk id printable for an error.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}

// norm reduces a heading to its letters and digits, lower-cased, to find
// an outline entry's title among a page's lines.
func norm(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
