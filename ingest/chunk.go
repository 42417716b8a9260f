package ingest

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/library"
)

// Chunking sizes, in approximate tokens.
type Chunking struct {
	// ChunkTokens is the target size of a chunk.
	ChunkTokens int
	// OverlapTokens of the end of a chunk are repeated at the start of the
	// next one (whole sentences), so that a passage cut at a boundary is
	// still found whole.
	OverlapTokens int
	// SectionSplitTokens: a chapter without sub-sections that is longer than
	// this is split into sections on paragraph boundaries.
	SectionSplitTokens int
}

// DefaultChunking returns grimoire.toml's defaults.
func DefaultChunking() Chunking {
	return Chunking{ChunkTokens: 400, OverlapTokens: 60, SectionSplitTokens: 3000}
}

// ForModel returns c with ChunkTokens lowered, when needed, for an
// embedding model that takes contextLength tokens (0: unknown, c as it is).
// A chunk of up to 1.5 times ChunkTokens (a short section kept whole), with
// its heading path and context, must fit the model's context, with room for
// the token estimate's error. A text that still does not fit is embedded in
// halves, never cut.
func (c Chunking) ForModel(contextLength int) Chunking {
	if n := contextLength; n > 0 && c.ChunkTokens*3/2+100 > n*4/5 {
		c.ChunkTokens = max(64, (n*4/5-100)*2/3)
	}
	return c
}

func (c Chunking) normalized() Chunking {
	if c.ChunkTokens <= 0 {
		c.ChunkTokens = DefaultChunking().ChunkTokens
	}
	if c.ChunkTokens < 16 {
		c.ChunkTokens = 16
	}
	if c.OverlapTokens < 0 {
		c.OverlapTokens = 0
	}
	if c.OverlapTokens > c.ChunkTokens/2 {
		c.OverlapTokens = c.ChunkTokens / 2
	}
	if c.SectionSplitTokens <= 0 {
		c.SectionSplitTokens = DefaultChunking().SectionSplitTokens
	}
	if c.SectionSplitTokens < c.ChunkTokens {
		c.SectionSplitTokens = c.ChunkTokens
	}
	return c
}

// CountTokens estimates how many tokens a subword tokenizer makes of s: one
// per word (plus one per further 6 letters of a long word), one per
// punctuation mark, one per Han, Kana or Hangul character. It errs high
// rather than low, so that chunks fit a model's context.
func CountTokens(s string) int {
	n := 0
	word := 0
	flush := func() {
		if word > 0 {
			n += 1 + (word-1)/6
			word = 0
		}
	}
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			switch {
			case 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9':
				word++
			case r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\f' || r == '\v':
				flush()
			default:
				flush()
				n++
			}
		case isCJK(r):
			flush()
			n++
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			word++
		case unicode.IsSpace(r):
			flush()
		default:
			flush()
			n++
		}
	}
	flush()
	return n
}

func isCJK(r rune) bool {
	// Below U+1100 (Hangul Jamo) no script here counts per character: a
	// fast exit for the common case, as the table lookups are not cheap.
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// section is a section on its way into the index.
type section struct {
	chapter     int
	index       int
	title       string
	synthesized bool
	anchor      string
	blocks      []doc.Block
}

// book is a parsed document laid out for the index: chapters with their
// sections, and chunks in reading order.
type book struct {
	chapters []library.Chapter
	chunks   []library.Chunk
}

// layout turns a document into chapters, sections and chunks. Empty
// chapters and sections are dropped; a long chapter without sub-sections is
// split; chunks never cross a section.
func layout(d *doc.Document, title string, c Chunking) book {
	c = c.normalized()
	title = clipTitle(title)
	var out book
	alone := chaptersWithText(d) == 1
	for _, ch := range d.Chapters {
		var secs []section
		for _, s := range ch.Sections {
			blocks := nonEmpty(s.Blocks)
			if len(blocks) == 0 {
				continue
			}
			secs = append(secs, section{title: clipTitle(s.Title), anchor: anchor(s.Anchor), blocks: blocks})
		}
		if len(secs) == 0 {
			continue
		}
		ci := len(out.chapters)
		chTitle := clipTitle(ch.Title)
		switch {
		case chTitle == "" && alone:
			chTitle = title
		case chTitle == "":
			// Named by its opening words, not by a number: a number here
			// would read as an index and differ from the one `section`
			// and get_section take.
			chTitle = firstWords(secs[0].blocks[0].Text, 8)
		}
		if len(secs) == 1 && secs[0].title == "" && blocksTokens(secs[0].blocks) > c.SectionSplitTokens {
			secs = splitSection(secs[0], c.SectionSplitTokens)
		}
		chAnchor := anchor(ch.Anchor)
		chapter := library.Chapter{Index: ci, Title: chTitle, Anchor: chAnchor}
		for si := range secs {
			s := &secs[si]
			s.chapter, s.index = ci, si
			if s.title == "" {
				s.title = chTitle
			}
			if s.anchor == "" && si == 0 {
				s.anchor = chAnchor
			}
			if s.anchor == "" && s.blocks[0].Line > 0 {
				s.anchor = fmt.Sprintf("L%d", s.blocks[0].Line)
			}
			first := len(out.chunks)
			heading := headingPath(title, chTitle, s.title)
			for _, text := range chunkBlocks(s.blocks, c) {
				k := library.Chunk{
					Index:        len(out.chunks),
					ChapterIndex: ci,
					SectionIndex: si,
					Heading:      heading,
					Text:         text.text,
					Anchor:       text.anchor,
					PageStart:    text.pageStart,
					PageEnd:      text.pageEnd,
					Tokens:       text.tokens,
				}
				if k.Anchor == "" {
					k.Anchor = s.anchor
				}
				out.chunks = append(out.chunks, k)
			}
			ps, pe := pageRange(s.blocks)
			sec := library.Section{
				ChapterIndex: ci, Index: si, Title: s.title, Synthesized: s.synthesized, Anchor: s.anchor,
				PageStart: ps, PageEnd: pe, Tokens: blocksTokens(s.blocks),
				Text: doc.Section{Blocks: s.blocks}.Text(), FirstChunk: first, ChunkCount: len(out.chunks) - first,
			}
			chapter.Sections = append(chapter.Sections, sec)
			if ps > 0 && (chapter.PageStart == 0 || ps < chapter.PageStart) {
				chapter.PageStart = ps
			}
			chapter.PageEnd = max(chapter.PageEnd, pe)
		}
		out.chapters = append(out.chapters, chapter)
	}
	return out
}

// headingPath is the context a chunk carries by default: "Book › Chapter ›
// Section", without repeating a level that has the same title.
func headingPath(parts ...string) string {
	var out []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p != "" && (len(out) == 0 || !strings.EqualFold(out[len(out)-1], p)) {
			out = append(out, p)
		}
	}
	return strings.Join(out, " › ")
}

func nonEmpty(blocks []doc.Block) []doc.Block {
	out := blocks[:0:0]
	for _, b := range blocks {
		if t := strings.TrimSpace(b.Text); t != "" {
			if !utf8.ValidString(t) {
				t = strings.ToValidUTF8(t, "\uFFFD")
			}
			b.Text = t
			b.Anchor = anchor(b.Anchor)
			out = append(out, b)
		}
	}
	return out
}

func blocksTokens(blocks []doc.Block) int {
	n := 0
	for _, b := range blocks {
		n += CountTokens(b.Text)
	}
	return n
}

func pageRange(blocks []doc.Block) (start, end int) {
	for _, b := range blocks {
		if b.Page <= 0 {
			continue
		}
		if start == 0 || b.Page < start {
			start = b.Page
		}
		end = max(end, b.Page, b.PageEnd)
	}
	return start, end
}

// chaptersWithText counts the chapters of d that hold any text.
func chaptersWithText(d *doc.Document) int {
	n := 0
	for _, ch := range d.Chapters {
		for _, s := range ch.Sections {
			if len(nonEmpty(s.Blocks)) > 0 {
				n++
				break
			}
		}
	}
	return n
}

// splitSection cuts a long untitled section into parts of roughly equal size
// on block boundaries, each titled by its first words ("Call me Ishmael.
// Some years ago…"). Not "Section 2": that would read as an index, and the
// indexes that `section` and get_section take start at 0.
func splitSection(s section, limit int) []section {
	total := blocksTokens(s.blocks)
	parts := (total + limit - 1) / limit
	target := (total + parts - 1) / parts
	var out []section
	var cur []doc.Block
	curTokens := 0
	flush := func() {
		if len(cur) == 0 {
			return
		}
		out = append(out, section{
			title:       firstWords(cur[0].Text, 8),
			synthesized: true,
			blocks:      cur,
		})
		cur, curTokens = nil, 0
	}
	for _, b := range s.blocks {
		t := CountTokens(b.Text)
		if curTokens > 0 && curTokens+t > target && curTokens >= target/2 {
			flush()
		}
		cur = append(cur, b)
		curTokens += t
	}
	flush()
	if len(out) > 0 && s.anchor != "" {
		out[0].anchor = s.anchor
	}
	return out
}

// maxTitle is the most runes a title keeps, whether a parser read it or
// first words made it. Every chunk carries its titles in its heading, so
// a title that grew with its text (a book that is one long word, a heading
// a megabyte long) would make the index grow with the square of the book.
// Real titles stay whole: scientific papers' run to 300 characters, and
// Victorian "In which…" chapter titles to a couple of hundred.
const maxTitle = 500

// maxNameRunes bounds a name made of first words: eight words of a text
// without spaces would otherwise be all of it.
const maxNameRunes = 80

// maxAnchor is the longest anchor kept, in bytes. Chunks repeat their
// block's anchor; a real one (an element id, "ch03.xhtml#p12") is short,
// and a longer one cannot be cut without pointing nowhere, so it goes.
const maxAnchor = 256

func anchor(a string) string {
	if len(a) > maxAnchor {
		return ""
	}
	return a
}

// clipTitle trims s and cuts it to maxTitle runes, marking the cut.
func clipTitle(s string) string {
	return clip(strings.TrimSpace(s), maxTitle)
}

// clip cuts s to n runes, ending it with "…" when it was longer.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for at := range s {
		if i == n {
			return strings.TrimSpace(s[:at]) + "…"
		}
		i++
	}
	return s
}

// firstWords names a text by its first n words, at most maxNameRunes
// runes of them. It reads only as far as it needs, however long the text.
func firstWords(s string, n int) string {
	var f []string
	rest := s
	cut := false
	for len(f) < n && !cut {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		end := strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		if end > 4*maxNameRunes {
			// More runes than a name keeps, however wide they are.
			end = 4 * maxNameRunes
			for end > 0 && !utf8.RuneStart(rest[end]) {
				end--
			}
			cut = true
		}
		f = append(f, rest[:end])
		rest = rest[end:]
	}
	name := strings.Join(f, " ")
	if cut || strings.TrimSpace(rest) != "" {
		name += "…"
	}
	return clip(name, maxNameRunes)
}

// piece is a unit of chunking: a sentence of a paragraph, a line group of
// code, or a whole block that fits.
type piece struct {
	text    string
	tokens  int
	page    int
	pageEnd int
	anchor  string
	line    int
	// join goes between this piece and the one before it in a chunk: a
	// blank line before a new block, a newline between lines of code, a
	// space between sentences.
	join string
}

type chunkText struct {
	text               string
	tokens             int
	pageStart, pageEnd int
	anchor             string
}

// chunkBlocks packs a section's blocks into chunks of about ChunkTokens,
// repeating about OverlapTokens of whole pieces between neighbours. A
// section up to half again the chunk size stays one chunk, and a longer one
// is cut into chunks of even size: cutting a short section into a chunk and
// a sliver costs retrieval quality (on SciFact, where documents average 360
// tokens, nDCG@10 of BM25 drops from 0.70 to 0.68 at 400-token chunks).
func chunkBlocks(blocks []doc.Block, c Chunking) []chunkText {
	var pieces []piece
	total := 0
	for _, b := range blocks {
		for _, p := range splitBlock(b, c.ChunkTokens) {
			pieces = append(pieces, p)
			total += p.tokens
		}
	}
	if total <= c.ChunkTokens*3/2 {
		return []chunkText{joinPieces(pieces)}
	}
	n := (total + c.ChunkTokens - 1) / c.ChunkTokens
	limit := min(c.ChunkTokens, (total+(n-1)*c.OverlapTokens+n-1)/n)
	var out []chunkText
	start := 0
	for start < len(pieces) {
		end, tokens := start, 0
		for end < len(pieces) && (end == start || tokens+pieces[end].tokens <= limit) {
			tokens += pieces[end].tokens
			end++
		}
		out = append(out, joinPieces(pieces[start:end]))
		if end >= len(pieces) {
			break
		}
		// Step back over whole pieces worth at most OverlapTokens, but
		// always move forward.
		next, back := end, 0
		for next-1 > start && back+pieces[next-1].tokens <= c.OverlapTokens {
			next--
			back += pieces[next].tokens
		}
		start = next
	}
	return out
}

func joinPieces(ps []piece) chunkText {
	var b strings.Builder
	ct := chunkText{}
	for i, p := range ps {
		if i > 0 {
			b.WriteString(p.join)
		}
		b.WriteString(p.text)
		ct.tokens += p.tokens
		if p.page > 0 && (ct.pageStart == 0 || p.page < ct.pageStart) {
			ct.pageStart = p.page
		}
		ct.pageEnd = max(ct.pageEnd, p.page, p.pageEnd)
	}
	ct.text = b.String()
	if len(ps) > 0 {
		ct.anchor = ps[0].anchor
		if ct.anchor == "" && ps[0].line > 0 {
			ct.anchor = fmt.Sprintf("L%d", ps[0].line)
		}
	}
	return ct
}

// splitBlock returns a block whole when it fits a chunk; code, lists and
// tables (up to twice the size) are kept whole too, then split by lines;
// prose is split by sentences, and a sentence too long for a chunk by words.
func splitBlock(b doc.Block, limit int) []piece {
	base := piece{page: b.Page, pageEnd: b.PageEnd, anchor: b.Anchor, line: b.Line}
	t := CountTokens(b.Text)
	whole := limit
	if b.Kind != doc.Paragraph {
		whole = 2 * limit
	}
	if t <= whole {
		p := base
		p.text, p.tokens, p.join = b.Text, t, "\n\n"
		return []piece{p}
	}
	var units []string
	base.join = " "
	if b.Kind == doc.Paragraph {
		units = sentences(b.Text)
	} else {
		units = groupLines(b.Text, limit)
		base.join = "\n"
	}
	var out []piece
	for _, u := range units {
		ut := CountTokens(u)
		if ut <= limit {
			p := base
			p.text, p.tokens = u, ut
			out = append(out, p)
			continue
		}
		for _, w := range splitWords(u, limit) {
			p := base
			p.text, p.tokens = w, CountTokens(w)
			out = append(out, p)
		}
	}
	if len(out) > 0 {
		out[0].join = "\n\n"
	}
	return out
}

// sentences splits prose after ., !, ?, … (and their CJK forms) followed by
// space, keeping the punctuation.
func sentences(s string) []string {
	var out []string
	start := 0
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		end := false
		switch r {
		case '。', '！', '？':
			end = true
		case '.', '!', '?', '…':
			end = i+1 < len(rs) && unicode.IsSpace(rs[i+1])
		}
		if end {
			if t := strings.TrimSpace(string(rs[start : i+1])); t != "" {
				out = append(out, t)
			}
			start = i + 1
		}
	}
	if t := strings.TrimSpace(string(rs[start:])); t != "" {
		out = append(out, t)
	}
	return out
}

// groupLines splits preformatted text into runs of whole lines that fit.
func groupLines(s string, limit int) []string {
	var out []string
	var cur []string
	tokens := 0
	for _, line := range strings.Split(s, "\n") {
		t := CountTokens(line)
		if len(cur) > 0 && tokens+t > limit {
			out = append(out, strings.Join(cur, "\n"))
			cur, tokens = nil, 0
		}
		cur = append(cur, line)
		tokens += t
	}
	if len(cur) > 0 {
		out = append(out, strings.Join(cur, "\n"))
	}
	return out
}

// splitWords cuts text that has no usable sentence or line boundary (one
// huge line) into runs of words that fit; a single word longer than a chunk
// is cut by runes.
func splitWords(s string, limit int) []string {
	var out []string
	var b strings.Builder
	tokens := 0
	for _, w := range strings.Fields(s) {
		t := CountTokens(w)
		if t > limit {
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
				tokens = 0
			}
			rs := []rune(w)
			step := max(1, limit*4) // about 2/3 of a chunk of letters
			if strings.IndexFunc(w, isCJK) >= 0 {
				step = limit // one token per character
			}
			for i := 0; i < len(rs); i += step {
				out = append(out, string(rs[i:min(i+step, len(rs))]))
			}
			continue
		}
		if b.Len() > 0 && tokens+t > limit {
			out = append(out, b.String())
			b.Reset()
			tokens = 0
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		tokens += t
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}
