package mobi

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// source is a book's HTML ready to convert: its text, its table of
// contents placed in it, and how a position in it is cited.
type source struct {
	html   []byte
	cp1252 bool
	toc    []tocEntry
	anchor func(at int) string
}

// document reads the book's text and lays it out. A combined file is read
// through its KF8 part, which keeps the book's own markup; when that part
// is broken, through its MOBI6 part.
func (b *book) document(ctx context.Context) (*doc.Document, error) {
	var src *source
	var err error
	if b.kf8 != nil {
		src, err = b.kf8Source(ctx)
		if err != nil && (b.kf8 == b.first || !errors.Is(err, ErrDamaged)) {
			return nil, err
		}
	}
	if src == nil {
		if src, err = b.mobi6Source(ctx); err != nil {
			return nil, err
		}
	}
	pieces, err := convertHTML(ctx, src.html, src.cp1252, src.toc)
	if err != nil {
		return nil, err
	}
	meta := b.first
	if b.kf8 != nil && (b.kf8.exth.title != "" || len(b.kf8.exth.authors) > 0) {
		meta = b.kf8
	}
	d := &doc.Document{
		Title:      meta.title(b.db),
		Authors:    meta.exth.authors,
		Language:   meta.language(),
		Catalog:    meta.exth.catalog.Clean(),
		SourceType: doc.MOBI,
		Chapters:   layout(pieces, src.toc, src.anchor),
	}
	if d.Catalog.Empty() && meta != b.first {
		d.Catalog = b.first.exth.catalog.Clean()
	}
	if b.first.kf8() {
		d.SourceType = doc.AZW3
	}
	if len(d.Chapters) > 0 && d.Chapters[0].Title == "" {
		// Front matter before the first TOC entry, without a heading of
		// its own: the title page, named as the book.
		d.Chapters[0].Title = d.Title
	}
	return d, nil
}

// title returns the book's title: EXTH's, else the header's full name,
// else the database name.
func (h *header) title(db *palmDB) string {
	for _, t := range []string{h.exth.title, h.fullName, db.name} {
		if t = strings.TrimSpace(t); t != "" {
			return t
		}
	}
	return ""
}

// mobi6Source reads a MOBI6 (or PalmDOC) text, whose positions are byte
// offsets: filepos.
func (b *book) mobi6Source(ctx context.Context) (*source, error) {
	h := b.first
	text, err := b.text(ctx, h)
	if err != nil {
		return nil, err
	}
	if h.encoding == encodingCP1252 && b.db.kind == "TEXtREAd" && !looksLikeHTML(text) {
		text = plainToHTML(text)
	}
	toc := readNCX(b.db, h.ncx, h.encoding, b.lim.maxIndexEntries, func(e indexEntry) (int, bool) {
		pos, ok := e.first(ncxPos)
		return pos, ok && pos <= len(text)
	})
	return &source{
		html:   text,
		cp1252: h.encoding == encodingCP1252,
		toc:    toc,
		anchor: func(at int) string { return "filepos=" + strconv.Itoa(at) },
	}, nil
}

// kf8Source reassembles a KF8 text, whose positions are fragments and
// offsets: kindle:pos:fid:XXXX:off:YYYYYYYYYY.
func (b *book) kf8Source(ctx context.Context) (*source, error) {
	h := b.kf8
	t, err := b.assembleKF8(ctx, h)
	if err != nil {
		return nil, err
	}
	toc := readNCX(b.db, h.ncx, h.encoding, b.lim.maxIndexEntries, func(e indexEntry) (int, bool) {
		if v := e.tags[ncxPosFid]; len(v) >= 2 {
			return t.fidPosition(int(v[0]), int(v[1]))
		}
		if pos, ok := e.first(ncxPos); ok {
			return t.htmlOffset(pos)
		}
		return 0, false
	})
	return &source{html: t.html, cp1252: h.encoding == encodingCP1252, toc: toc, anchor: t.anchor}, nil
}

// looksLikeHTML reports text that has markup in its first kilobytes.
func looksLikeHTML(b []byte) bool {
	head := strings.ToLower(string(b[:min(len(b), 4096)]))
	return strings.Contains(head, "<html") || strings.Contains(head, "<p") || strings.Contains(head, "<body")
}

// plainToHTML makes a plain PalmDOC text readable by the HTML converter:
// markup characters escaped, each blank-line-separated paragraph a <p>.
// Offsets change, which is harmless: plain PalmDOC books have no index.
func plainToHTML(b []byte) []byte {
	s := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(string(b))
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return []byte("<p>" + strings.ReplaceAll(s, "\n\n", "</p><p>") + "</p>")
}

// chap and sec are a chapter and its sections being assembled.
type chap struct {
	title, anchor string
	secs          []sec
}

type sec struct {
	title, anchor string
	fromTOC       bool
	pieces        []piece
}

// layout cuts the pieces into chapters at the TOC's entries: the top level
// makes chapters and the next one sections; a TOC of one entry, or of
// parts whose entries have entries, gives way to the level below. Text
// before the first entry is a chapter of its own. Without a TOC the
// headings make the chapters.
func layout(pieces []piece, toc []tocEntry, anchor func(int) string) []doc.Chapter {
	if len(toc) == 0 {
		return byHeadings(pieces, anchor)
	}
	top := toc[0].level
	count := map[int]int{}
	for _, e := range toc {
		top = min(top, e.level)
		count[e.level]++
	}
	chapterLevel := top
	if count[top] == 1 && count[top+1] > 0 || count[top+2] > 0 {
		chapterLevel = top + 1
	}
	var chs []*chap
	cur := leadChapter(pieces, anchor)
	for _, p := range pieces {
		if p.kind != pieceMark {
			s := &cur.secs[len(cur.secs)-1]
			s.pieces = append(s.pieces, p)
			continue
		}
		e := toc[p.entry]
		a := anchor(p.at)
		switch {
		case e.level <= chapterLevel:
			chs = append(chs, cur)
			cur = &chap{title: e.title, anchor: a, secs: []sec{{anchor: a}}}
		case e.level == chapterLevel+1:
			cur.secs = append(cur.secs, sec{title: e.title, anchor: a, fromTOC: true})
		}
	}
	chs = append(chs, cur)
	var out []doc.Chapter
	for _, c := range chs {
		if ch, ok := c.build(anchor); ok {
			out = append(out, ch)
		}
	}
	return out
}

// leadChapter starts the chapter of the text before the first TOC entry
// or heading, cited where that text starts.
func leadChapter(pieces []piece, anchor func(int) string) *chap {
	a := ""
	if len(pieces) > 0 && pieces[0].kind != pieceMark {
		a = anchor(pieces[0].at)
	}
	return &chap{anchor: a, secs: []sec{{anchor: a}}}
}

// build turns an assembled chapter into its doc form; false when it holds
// no text.
func (c *chap) build(anchor func(int) string) (doc.Chapter, bool) {
	title := c.title
	if title == "" {
		title = firstHeading(c.secs[0].pieces)
	}
	var secs []doc.Section
	if len(c.secs) == 1 {
		secs = sectionsByHeadings(c.secs[0].pieces, title, c.anchor, anchor)
	} else {
		for i, s := range c.secs {
			own := s.title
			if i == 0 {
				own = title
			}
			if blocks := toBlocks(s.pieces, own, anchor); len(blocks) > 0 {
				secs = append(secs, doc.Section{Title: s.title, Anchor: s.anchor, Blocks: blocks})
			}
		}
	}
	if len(secs) == 0 {
		// A chapter that is only its title (a part's heading) keeps it
		// as text rather than vanish.
		for _, s := range c.secs {
			if blocks := toBlocks(s.pieces, "", anchor); len(blocks) > 0 {
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

// byHeadings lays out a book without a TOC: the shallowest heading level
// that occurs more than once makes the chapters.
func byHeadings(pieces []piece, anchor func(int) string) []doc.Chapter {
	counts := map[int]int{}
	for _, p := range pieces {
		if p.kind == pieceHeading {
			counts[p.level]++
		}
	}
	level := 0
	for l := 1; l <= 6; l++ {
		if counts[l] > 1 {
			level = l
			break
		}
	}
	var chs []*chap
	cur := leadChapter(pieces, anchor)
	for _, p := range pieces {
		if p.kind == pieceHeading && p.level == level {
			chs = append(chs, cur)
			cur = &chap{title: p.text, anchor: anchor(p.at), secs: []sec{{anchor: anchor(p.at)}}}
			continue
		}
		if p.kind != pieceMark {
			cur.secs[0].pieces = append(cur.secs[0].pieces, p)
		}
	}
	chs = append(chs, cur)
	var out []doc.Chapter
	for _, c := range chs {
		if ch, ok := c.build(anchor); ok {
			out = append(out, ch)
		}
	}
	return out
}

// sectionsByHeadings divides a chapter that has no TOC sections at its
// headings: the shallowest level after the opening ones makes sections.
func sectionsByHeadings(ps []piece, title, chapterAnchor string, anchor func(int) string) []doc.Section {
	for i, p := range ps {
		if p.kind == pieceHeading && title != "" && sameTitle(p.text, title) {
			// The chapter's own heading, after a page number or an
			// epigraph: the title says it already.
			ps = append(ps[:i:i], ps[i+1:]...)
			break
		}
	}
	lead := 0
	for lead < len(ps) && ps[lead].kind == pieceHeading {
		lead++
	}
	level := 7
	for _, p := range ps[lead:] {
		if p.kind == pieceHeading {
			level = min(level, p.level)
		}
	}
	var starts []int
	for i := lead; i < len(ps); i++ {
		if ps[i].kind == pieceHeading && ps[i].level == level {
			starts = append(starts, i)
		}
	}
	if len(starts) == 0 {
		if blocks := toBlocks(ps, title, anchor); len(blocks) > 0 {
			return []doc.Section{{Anchor: chapterAnchor, Blocks: blocks}}
		}
		return nil
	}
	var out []doc.Section
	if blocks := toBlocks(ps[:starts[0]], title, anchor); len(blocks) > 0 {
		out = append(out, doc.Section{Anchor: chapterAnchor, Blocks: blocks})
	}
	for k, at := range starts {
		end := len(ps)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		h := ps[at]
		blocks := toBlocks(ps[at+1:end], "", anchor)
		if len(blocks) == 0 {
			// A heading with nothing under it (a subtitle) is text.
			hb := doc.Block{Kind: doc.Paragraph, Text: h.text, Anchor: anchor(h.at)}
			if len(out) == 0 {
				out = append(out, doc.Section{Anchor: chapterAnchor})
			}
			out[len(out)-1].Blocks = append(out[len(out)-1].Blocks, hb)
			continue
		}
		out = append(out, doc.Section{Title: h.text, Anchor: anchor(h.at), Blocks: blocks})
	}
	return out
}

// toBlocks returns the blocks of a run of pieces. Headings become
// paragraphs, except an opening one that repeats title, which already says
// it.
func toBlocks(ps []piece, title string, anchor func(int) string) []doc.Block {
	var out []doc.Block
	for i, p := range ps {
		if p.kind == pieceMark {
			continue
		}
		if i == 0 && title != "" && sameTitle(p.text, title) {
			continue
		}
		kind := p.bkind
		if p.kind == pieceHeading {
			kind = doc.Paragraph
		}
		out = append(out, doc.Block{Kind: kind, Text: p.text, Anchor: anchor(p.at)})
	}
	return out
}

// firstHeading returns the text of the first heading in ps, or "".
func firstHeading(ps []piece) string {
	for _, p := range ps {
		if p.kind == pieceHeading {
			return p.text
		}
	}
	return ""
}

// sameTitle compares titles by their letters and digits only.
func sameTitle(a, b string) bool {
	key := func(s string) string {
		var sb strings.Builder
		for _, r := range s {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				sb.WriteRune(unicode.ToLower(r))
			}
		}
		return sb.String()
	}
	return key(a) == key(b)
}
