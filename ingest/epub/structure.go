package epub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
)

// book is an EPUB being read: its spine documents converted to pieces, and
// the cuts that the table of contents makes in them.
type book struct {
	ctx context.Context
	a   *archive
	pkg *pkg
	lim limits

	docs   []content
	byPath map[string]int // spine path to index in docs
	cuts   []cut          // in reading order
}

// content is one converted spine document.
type content struct {
	path   string
	title  string // its <title>
	pieces []xhtml.Piece
}

// cut is where a TOC entry starts a chapter or a section.
type cut struct {
	chapter bool
	title   string
	doc     int    // index in book.docs
	frag    string // the href's fragment, "" for the document's start
	pos     int    // index in the document's pieces
	order   int    // position in the TOC, which breaks ties
	// found is set when frag names an element of the document; a cut to
	// an id that is not there starts at the top of the document.
	found bool
}

func (b *book) load() error {
	b.byPath = make(map[string]int, len(b.pkg.spine))
	for i, s := range b.pkg.spine {
		b.byPath[s.path] = i
	}
	entries, dir, err := b.readTOC()
	if err != nil {
		return err
	}
	b.cuts = b.makeCuts(entries, dir)
	targets := make([]map[string]bool, len(b.pkg.spine))
	for _, c := range b.cuts {
		if c.frag == "" {
			continue
		}
		if targets[c.doc] == nil {
			targets[c.doc] = make(map[string]bool)
		}
		targets[c.doc][c.frag] = true
	}

	b.docs = make([]content, len(b.pkg.spine))
	// The text of the documents read so far: one document is bounded by
	// the zip's caps, the book's text only by Convert's check of this.
	var size int64
	for i, s := range b.pkg.spine {
		if err := b.ctx.Err(); err != nil {
			return fmt.Errorf("epub: %w", err)
		}
		data, err := b.a.readFile(s.path)
		if err != nil {
			return err
		}
		b.docs[i].path = s.path
		if looksBinary(data) {
			if len(b.pkg.encrypted) > 0 || b.pkg.encryptionUnreadable {
				return drmError(s.path)
			}
			continue // an image or a font listed as a document: no text
		}
		conv, err := xhtml.Convert(b.ctx, data, xhtml.Options{Path: s.path, Targets: targets[i], Taken: size})
		if errors.Is(err, doc.ErrTooLarge) {
			return err
		}
		if err != nil {
			return fmt.Errorf("epub: %w", err)
		}
		b.docs[i].pieces, b.docs[i].title = conv.Pieces, conv.Title
		for _, p := range conv.Pieces {
			size += int64(len(p.Text))
		}
	}

	for i := range b.cuts {
		c := &b.cuts[i]
		if c.frag == "" {
			continue
		}
		for j, p := range b.docs[c.doc].pieces {
			if p.Kind == xhtml.Mark && p.ID == c.frag {
				c.pos, c.found = j, true
				break
			}
		}
	}
	sort.SliceStable(b.cuts, func(i, j int) bool {
		x, y := b.cuts[i], b.cuts[j]
		if x.doc != y.doc {
			return x.doc < y.doc
		}
		if x.pos != y.pos {
			return x.pos < y.pos
		}
		return x.order < y.order
	})
	return nil
}

// looksBinary reports data that is no markup in any encoding a book may use:
// NUL bytes, which UTF-8 and legacy text never hold, without the UTF-16
// signs that explain them. Encrypted content looks like this.
func looksBinary(data []byte) bool {
	head := data[:min(len(data), 4096)]
	if bytes.HasPrefix(head, []byte("\xff\xfe")) || bytes.HasPrefix(head, []byte("\xfe\xff")) ||
		bytes.HasPrefix(head, []byte("<\x00")) || bytes.HasPrefix(head, []byte("\x00<")) {
		return false
	}
	return bytes.IndexByte(head, 0) >= 0
}

// readTOC returns the table of contents and the directory its hrefs are
// relative to: the EPUB 3 navigation document if it has entries that lead
// into the spine, else the EPUB 2 NCX, else nothing (the spine is then the
// outline).
func (b *book) readTOC() ([]tocEntry, string, error) {
	for _, src := range []struct {
		path string
		nav  bool
	}{{b.pkg.nav, true}, {b.pkg.ncx, false}} {
		if src.path == "" {
			continue
		}
		data, err := b.a.readFile(src.path)
		if err != nil {
			if fatal(err) {
				return nil, "", err
			}
			continue
		}
		var entries []tocEntry
		if src.nav {
			entries = parseNav(b.ctx, data, b.lim.maxTOCEntries)
		} else {
			entries = parseNCX(data, b.lim.maxTOCEntries)
		}
		if err := b.ctx.Err(); err != nil {
			return nil, "", fmt.Errorf("epub: %w", err)
		}
		dir := path.Dir(src.path)
		if b.leadsIntoSpine(entries, dir, 0) {
			return entries, dir, nil
		}
	}
	return nil, "", nil
}

func (b *book) leadsIntoSpine(entries []tocEntry, dir string, depth int) bool {
	for i := range entries {
		if _, _, ok := b.ownTarget(&entries[i], dir); ok {
			return true
		}
		if depth < maxTOCDepth && b.leadsIntoSpine(entries[i].kids, dir, depth+1) {
			return true
		}
	}
	return false
}

// ownTarget resolves an entry's own href to a spine document and fragment.
func (b *book) ownTarget(e *tocEntry, dir string) (int, string, bool) {
	if e.href == "" {
		return 0, "", false
	}
	name, frag, ok := resolveHref(dir, e.href)
	if !ok {
		return 0, "", false
	}
	if name == "" {
		return 0, "", false // a fragment of the TOC document itself
	}
	canon, found := b.a.canonical(name)
	if !found {
		if raw, ok := joinRaw(dir, e.href); ok {
			canon, found = b.a.canonical(raw)
		}
	}
	if !found {
		return 0, "", false
	}
	d, ok := b.byPath[canon]
	return d, frag, ok
}

// target resolves an entry to where it starts: its own href, else (for a
// heading-only entry such as <span>Part I</span>) where its first entry
// that leads somewhere starts.
func (b *book) target(e *tocEntry, dir string, depth int) (int, string, bool) {
	if d, frag, ok := b.ownTarget(e, dir); ok {
		return d, frag, true
	}
	if depth >= maxTOCDepth {
		return 0, "", false
	}
	for i := range e.kids {
		if d, frag, ok := b.target(&e.kids[i], dir, depth+1); ok {
			return d, frag, true
		}
	}
	return 0, "", false
}

// makeCuts turns the TOC into chapter and section starts. Top-level entries
// are chapters and their sub-entries sections; deeper entries stay inside
// their section. When the TOC is divided into parts (a top-level entry has
// entries that have entries of their own), or has a single top-level entry,
// the top level gives way: each entry there keeps its own lead-in text as a
// chapter, and its entries become the chapters.
func (b *book) makeCuts(entries []tocEntry, dir string) []cut {
	var out []cut
	add := func(e *tocEntry, chapter bool) {
		if d, frag, ok := b.target(e, dir, 0); ok {
			out = append(out, cut{chapter: chapter, title: e.title, doc: d, frag: frag, order: len(out)})
		}
	}
	parts := len(entries) == 1
	for i := range entries {
		parts = parts || isPart(&entries[i])
	}
	for i := range entries {
		e := &entries[i]
		if parts && len(e.kids) > 0 {
			add(e, true)
			for j := range e.kids {
				k := &e.kids[j]
				add(k, true)
				for l := range k.kids {
					add(&k.kids[l], false)
				}
			}
			continue
		}
		add(e, true)
		for j := range e.kids {
			add(&e.kids[j], false)
		}
	}
	return out
}

func isPart(e *tocEntry) bool {
	for _, k := range e.kids {
		if len(k.kids) > 0 {
			return true
		}
	}
	return false
}

// chap and sec are a chapter and its sections being assembled from pieces.
type chap struct {
	title, anchor string
	secs          []sec
}

type sec struct {
	title, anchor string
	fromTOC       bool
	pieces        []xhtml.Piece
}

func (c *chap) add(ps ...xhtml.Piece) {
	s := &c.secs[len(c.secs)-1]
	for _, p := range ps {
		if p.Kind != xhtml.Mark {
			s.pieces = append(s.pieces, p)
		}
	}
}

// chapters lays the converted documents out as chapters. Text a TOC entry
// starts belongs to that entry up to where the next one starts. Text that
// no entry covers (a cover, a title page, a colophon) is never dropped: a
// document that has a heading becomes a chapter named by it, and one
// without continues the chapter before it. Without a TOC every spine
// document is a chapter.
func (b *book) chapters() []doc.Chapter {
	var chs []*chap
	newChap := func(title, anchor string) *chap {
		c := &chap{title: title, anchor: anchor, secs: []sec{{anchor: anchor}}}
		chs = append(chs, c)
		return c
	}
	apply := func(c cut) {
		cd := &b.docs[c.doc]
		anchor := cd.path
		if c.frag != "" {
			anchor += "#" + c.frag
		}
		if c.chapter || len(chs) == 0 {
			newChap(c.title, anchor)
			if c.chapter {
				return
			}
		}
		last := chs[len(chs)-1]
		last.secs = append(last.secs, sec{title: c.title, anchor: anchor, fromTOC: true})
	}

	ci := 0
	for d := range b.docs {
		cd := &b.docs[d]
		if len(b.cuts) == 0 {
			newChap(firstHeading(cd.pieces, cd.title), cd.path).add(cd.pieces...)
			continue
		}
		first := len(cd.pieces)
		if ci < len(b.cuts) && b.cuts[ci].doc == d {
			first = min(b.cuts[ci].pos, first)
		}
		if lead := cd.pieces[:first]; hasText(lead) {
			if len(chs) == 0 || hasHeading(lead) {
				newChap(firstHeading(lead, cd.title), cd.path)
			}
			chs[len(chs)-1].add(lead...)
		}
		for i := first; i < len(cd.pieces); i++ {
			for ci < len(b.cuts) && b.cuts[ci].doc == d && b.cuts[ci].pos <= i {
				apply(b.cuts[ci])
				ci++
			}
			chs[len(chs)-1].add(cd.pieces[i])
		}
		for ci < len(b.cuts) && b.cuts[ci].doc == d {
			apply(b.cuts[ci])
			ci++
		}
	}

	out := make([]doc.Chapter, 0, len(chs))
	for _, c := range chs {
		if ch, ok := c.build(); ok {
			out = append(out, ch)
		}
	}
	return out
}

// build turns an assembled chapter into its doc form; false when it holds
// no text.
func (c *chap) build() (doc.Chapter, bool) {
	title := c.title
	if title == "" {
		for _, s := range c.secs {
			if title = firstHeading(s.pieces, ""); title != "" {
				break
			}
		}
	}
	var secs []doc.Section
	if len(c.secs) == 1 && !c.secs[0].fromTOC {
		secs = sectionByHeadings(c.secs[0].pieces, title, c.anchor)
	} else {
		for i, s := range c.secs {
			st := s.title
			if st == "" && s.fromTOC {
				st = firstHeading(s.pieces, "")
			}
			own := st
			if i == 0 && !s.fromTOC {
				own = title
			}
			if blocks := toBlocks(s.pieces, own); len(blocks) > 0 {
				secs = append(secs, doc.Section{Title: st, Anchor: s.anchor, Blocks: blocks})
			}
		}
	}
	if len(secs) == 0 {
		// A chapter that is only its heading (an edition line, a part
		// title) keeps it as text rather than vanish.
		for _, s := range c.secs {
			if blocks := toBlocks(s.pieces, ""); len(blocks) > 0 {
				secs = []doc.Section{{Anchor: s.anchor, Blocks: blocks}}
				break
			}
		}
	}
	if len(secs) == 0 {
		return doc.Chapter{}, false
	}
	return doc.Chapter{Title: title, Anchor: c.anchor, Sections: secs}, true
}

// sectionByHeadings divides a chapter that has no TOC sub-entries at its
// headings. The headings that open the chapter before any text are its
// title, not sections; of the others, the shallowest level makes the
// sections, and deeper ones stay as text.
func sectionByHeadings(ps []xhtml.Piece, chapterTitle, anchor string) []doc.Section {
	lead := 0
	for lead < len(ps) && ps[lead].Kind == xhtml.Heading {
		lead++
	}
	level := 7
	for _, p := range ps[lead:] {
		if p.Kind == xhtml.Heading {
			level = min(level, p.Level)
		}
	}
	var starts []int
	for i, p := range ps {
		if p.Kind == xhtml.Heading && p.Level == level && (i >= lead || !sameTitle(p.Text, chapterTitle)) {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		if blocks := toBlocks(ps, chapterTitle); len(blocks) > 0 {
			return []doc.Section{{Anchor: anchor, Blocks: blocks}}
		}
		return nil
	}
	var out []doc.Section
	if blocks := toBlocks(ps[:starts[0]], chapterTitle); len(blocks) > 0 {
		out = append(out, doc.Section{Anchor: anchor, Blocks: blocks})
	}
	for k, at := range starts {
		end := len(ps)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		h := ps[at]
		blocks := toBlocks(ps[at+1:end], "")
		if len(blocks) == 0 {
			// A heading with nothing under it before the next one (a
			// byline, a subtitle) is text, not a section.
			hb := doc.Block{Kind: doc.Paragraph, Text: h.Text, Anchor: h.Anchor}
			if len(out) > 0 {
				out[len(out)-1].Blocks = append(out[len(out)-1].Blocks, hb)
			} else {
				out = append(out, doc.Section{Anchor: anchor, Blocks: []doc.Block{hb}})
			}
			continue
		}
		out = append(out, doc.Section{Title: h.Text, Anchor: h.Anchor, Blocks: blocks})
	}
	return out
}

// toBlocks returns the blocks of a run of pieces. Headings become paragraphs,
// except a first one that only repeats title: the title already says it.
func toBlocks(ps []xhtml.Piece, title string) []doc.Block {
	var out []doc.Block
	for i, p := range ps {
		switch p.Kind {
		case xhtml.Block:
			out = append(out, doc.Block{Kind: p.Block, Text: p.Text, Anchor: p.Anchor})
		case xhtml.Heading:
			if i == 0 && title != "" && sameTitle(p.Text, title) {
				continue
			}
			out = append(out, doc.Block{Kind: doc.Paragraph, Text: p.Text, Anchor: p.Anchor})
		}
	}
	return out
}

func hasText(ps []xhtml.Piece) bool {
	for _, p := range ps {
		if p.Kind != xhtml.Mark {
			return true
		}
	}
	return false
}

func hasHeading(ps []xhtml.Piece) bool {
	for _, p := range ps {
		if p.Kind == xhtml.Heading {
			return true
		}
	}
	return false
}

// firstHeading returns the text of the first heading in ps, else fallback.
func firstHeading(ps []xhtml.Piece, fallback string) string {
	for _, p := range ps {
		if p.Kind == xhtml.Heading {
			return p.Text
		}
	}
	return fallback
}

// sameTitle compares titles by their letters and digits only, so that
// "Chapter 1. Loomings." matches "CHAPTER 1 — LOOMINGS".
func sameTitle(a, b string) bool {
	return titleKey(a) == titleKey(b)
}

func titleKey(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			sb.WriteRune(unicode.ToLower(r))
		}
	}
	return sb.String()
}
