package rtf

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// dest says where a group's text goes.
type dest uint8

const (
	destBody dest = iota
	// destSkip is a destination that holds no text of the document.
	destSkip
	destFootnote
	destFonts
	destStyles
	// destInfo is the \info group, whose own text is dropped; its title,
	// author, subject and keywords groups are read.
	destInfo
	destTitle
	destAuthor
	destSubject
	destKeywords
)

// state is what a group may change and its end restores.
type state struct {
	dest   dest
	uc     int  // fallback characters after a \uN
	font   int  // -1 for the default font
	hidden bool // \v text
	// Paragraph properties.
	outline int // heading level from \outlinelevel, 0 for none
	style   int // \sN
	intbl   bool
	list    bool
}

// par is a paragraph of the body, in reading order.
type par struct {
	text  string
	level int // heading level, 0 for text
	kind  doc.BlockKind
	line  int
}

// reader reads an RTF document into paragraphs.
type reader struct {
	ctx  context.Context
	src  []byte
	lim  limits
	i    int // position in src
	line int // line of src at i, from 1

	st        state
	stack     []state
	untracked int  // open groups past the depth limit
	done      bool // the document's group has closed
	star      bool // a \* was just read: an unknown destination is skipped

	ansiCP  int
	deff    int
	deflang int
	fonts   map[int]int // font number → code page, 0 when its charset says nothing
	styles  map[int]int // paragraph style → heading level

	fontDef    int // the font being defined in the font table
	styleNum   int
	styleLevel int
	styleChar  bool // a character, section or table style: never a heading
	styleName  strings.Builder

	titleText, authorText    strings.Builder
	subjectText, keywordText strings.Builder

	pending   []byte // \'hh and raw bytes, decoded together in the code page
	pendLine  int    // the line where the pending bytes start
	skipChars int    // \uN fallback characters still to skip
	surrogate rune   // a \uN high surrogate waiting for its pair

	cur      strings.Builder // the body paragraph being read
	curLine  int
	curLevel int // heading level in force while its text was written
	curList  bool

	rows      []string // the table being read, a line per row
	cells     []string // the row being read
	tableLine int

	note      strings.Builder // the footnote being read
	notes     []string        // footnotes read, placed after their paragraph
	footnotes int

	pars []par
}

func newReader(ctx context.Context, src []byte, lim limits) *reader {
	return &reader{
		ctx: ctx, src: src, lim: lim, line: 1,
		st:     state{uc: 1, font: -1},
		fonts:  make(map[int]int),
		styles: make(map[int]int),
		ansiCP: 1252,
	}
}

// checkEvery is how many bytes are read between two looks at the context.
const checkEvery = 1 << 16

func (r *reader) run() error {
	next := checkEvery
	for r.i < len(r.src) && !r.done {
		if r.i >= next {
			if err := r.ctx.Err(); err != nil {
				return fmt.Errorf("rtf: %w", err)
			}
			next = r.i + checkEvery
		}
		c := r.src[r.i]
		switch c {
		case '{':
			r.flushBytes()
			r.i++
			r.open()
		case '}':
			r.flushBytes()
			r.i++
			r.close()
		case '\\':
			r.control()
		case '\n':
			r.line++
			r.i++
		case '\r':
			r.i++
		default:
			if r.st.dest == destSkip || r.st.hidden {
				r.skipText()
				continue
			}
			r.i++
			r.byteText(c)
		}
	}
	r.flushBytes()
	r.endParagraph()
	r.endTable()
	r.placeNotes()
	return nil
}

// skipText moves past text that is not read (picture data, skipped
// destinations) in one step.
func (r *reader) skipText() {
	rest := r.src[r.i:]
	n := bytes.IndexAny(rest, "{}\\\n")
	if n < 0 {
		n = len(rest)
	}
	r.skipChars = 0
	r.i += max(n, 1)
}

func (r *reader) open() {
	if len(r.stack) >= r.lim.maxDepth {
		r.untracked++
		return
	}
	r.stack = append(r.stack, r.st)
	r.star = false
}

func (r *reader) close() {
	r.skipChars = 0
	r.star = false
	if r.untracked > 0 {
		r.untracked--
		return
	}
	if len(r.stack) == 0 {
		return // an unbalanced brace: nothing to restore
	}
	inner := r.st
	r.st = r.stack[len(r.stack)-1]
	r.stack = r.stack[:len(r.stack)-1]
	// What follows the document's own group is no part of it.
	r.done = len(r.stack) == 0
	if inner.dest == destFootnote && r.st.dest != destFootnote {
		r.endNote()
	}
}

// control reads a control word or symbol at r.i.
func (r *reader) control() {
	r.i++
	if r.i >= len(r.src) {
		return
	}
	c := r.src[r.i]
	if isLetter(c) {
		start := r.i
		for r.i < len(r.src) && isLetter(r.src[r.i]) && r.i-start < 32 {
			r.i++
		}
		word := r.src[start:r.i]
		param, has := r.param()
		if r.i < len(r.src) && r.src[r.i] == ' ' {
			r.i++ // the delimiter
		}
		r.flushBytes()
		r.word(string(word), param, has)
		return
	}
	r.i++
	switch c {
	case '\'':
		b, ok := hexByte(r.src[r.i:])
		if !ok {
			return
		}
		r.i += 2
		if r.skipChars > 0 {
			r.skipChars--
			return
		}
		r.pend(b)
	case '\\', '{', '}':
		r.byteText(c)
	case '~':
		r.symbol("\u00a0")
	case '_':
		r.symbol("-")
	case '*':
		r.star = true
	case '\n':
		r.line++
		r.flushBytes()
		r.endParagraph()
	case '\r':
		r.flushBytes()
		r.endParagraph()
	case '\t':
		r.symbol("\t")
	}
}

// param reads a control word's numeric parameter, if it has one.
func (r *reader) param() (int, bool) {
	neg := false
	if r.i+1 < len(r.src) && r.src[r.i] == '-' && isDigit(r.src[r.i+1]) {
		neg = true
		r.i++
	}
	start := r.i
	n := 0
	for r.i < len(r.src) && isDigit(r.src[r.i]) {
		// Parameters are 16 or 32 bits; a longer one saturates.
		n = min(n*10+int(r.src[r.i]-'0'), 1<<31)
		r.i++
	}
	if r.i == start {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// reading reports whether text in the current state is kept somewhere.
func (r *reader) reading() bool {
	return r.st.dest != destSkip && r.st.dest != destInfo && !r.st.hidden
}

// byteText handles one byte of text.
func (r *reader) byteText(c byte) {
	if r.skipChars > 0 {
		r.skipChars--
		return
	}
	r.pend(c)
}

// pend keeps a byte of text to decode with the ones around it.
func (r *reader) pend(c byte) {
	if !r.reading() {
		return
	}
	if len(r.pending) == 0 {
		r.pendLine = r.line
	}
	r.pending = append(r.pending, c)
}

// symbol writes text that a control word or symbol stands for; it counts as
// one fallback character.
func (r *reader) symbol(s string) {
	if r.skipChars > 0 {
		r.skipChars--
		return
	}
	r.flushBytes()
	r.text(s)
}

// flushBytes decodes the pending bytes in the current code page.
func (r *reader) flushBytes() {
	if len(r.pending) == 0 {
		return
	}
	s := decode(r.pending, r.codePage())
	r.pending = r.pending[:0]
	line := r.line
	r.line = r.pendLine
	r.text(s)
	r.line = line
}

// codePage is the code page of the current font, else the document's.
func (r *reader) codePage() int {
	f := r.st.font
	if f < 0 {
		f = r.deff
	}
	if cp := r.fonts[f]; cp != 0 {
		return cp
	}
	return r.ansiCP
}

// text sends decoded text where the current group's text goes.
func (r *reader) text(s string) {
	if r.st.hidden {
		return
	}
	switch r.st.dest {
	case destBody:
		if r.rows != nil && !r.st.intbl && strings.TrimSpace(s) != "" {
			r.endTable()
		}
		if r.cur.Len() == 0 {
			r.curLine = r.line
		}
		r.cur.WriteString(s)
		if l := r.headingLevel(); l > 0 {
			r.curLevel = l
		}
		if r.st.list {
			r.curList = true
		}
	case destFootnote:
		r.note.WriteString(s)
	case destTitle:
		r.titleText.WriteString(s)
	case destAuthor:
		r.authorText.WriteString(s)
	case destSubject:
		r.subjectText.WriteString(s)
	case destKeywords:
		r.keywordText.WriteString(s)
	case destStyles:
		for _, c := range s {
			if c == ';' {
				r.endStyle()
				continue
			}
			r.styleName.WriteRune(c)
		}
	}
}

// headingLevel is the heading level of the paragraph properties in force.
func (r *reader) headingLevel() int {
	if r.st.outline > 0 {
		return r.st.outline
	}
	return r.styles[r.st.style]
}

// word applies a control word.
func (r *reader) word(w string, param int, has bool) {
	star := r.star
	r.star = false
	if w != "u" {
		r.skipChars = 0
	}
	if d, ok := destination(w); ok {
		r.enter(d)
		return
	}
	if star {
		// \* before a control word that is no destination this reader
		// knows: the group holds nothing to read.
		r.st.dest = destSkip
		return
	}
	switch w {
	case "par", "sect", "page":
		r.endParagraph()
	case "line":
		r.text("\n")
	case "tab":
		r.text("\t")
	case "cell", "nestcell":
		r.endCell()
	case "row", "nestrow":
		r.endRow()
	case "pard":
		r.st.outline, r.st.style, r.st.intbl, r.st.list = 0, 0, false, false
	case "intbl":
		r.st.intbl = true
	case "s":
		if r.st.dest == destStyles {
			r.styleNum, r.styleChar = param, false
		} else {
			r.st.style = param
		}
	case "cs", "ds", "ts":
		if r.st.dest == destStyles {
			r.styleNum, r.styleChar = param, true
		}
	case "outlinelevel":
		level := 0
		if param >= 0 && param <= 8 {
			level = param + 1
		}
		if r.st.dest == destStyles {
			r.styleLevel = level
		} else {
			r.st.outline = level
		}
	case "ls":
		r.st.list = param > 0
	case "listtext", "pntext":
		r.st.list = true
	case "uc":
		r.st.uc = min(max(param, 0), 8)
	case "u":
		r.unicode(param)
		r.skipChars = r.st.uc
	case "f":
		if r.st.dest == destFonts {
			r.fontDef = param
		} else {
			r.st.font = param
		}
	case "fcharset":
		if r.st.dest == destFonts {
			r.fonts[r.fontDef] = codePageOfCharset(param)
		}
	case "cpg":
		if r.st.dest == destFonts && param > 0 {
			r.fonts[r.fontDef] = param
		}
	case "ansicpg":
		if param > 0 {
			r.ansiCP = param
		}
	case "mac":
		r.ansiCP = 10000
	case "pc":
		r.ansiCP = 437
	case "pca":
		r.ansiCP = 850
	case "deff":
		r.deff = param
	case "deflang":
		r.deflang = param
	case "v":
		r.st.hidden = !has || param != 0
	case "plain":
		r.st.hidden = false
	case "bin":
		n := min(max(param, 0), len(r.src)-r.i)
		r.line += bytes.Count(r.src[r.i:r.i+n], []byte("\n"))
		r.i += n
	case "chftn":
		if r.st.dest == destBody {
			r.text("[" + strconv.Itoa(r.footnotes+1) + "]")
		}
	case "emdash":
		r.symbol("—")
	case "endash":
		r.symbol("–")
	case "bullet":
		r.symbol("•")
	case "lquote":
		r.symbol("‘")
	case "rquote":
		r.symbol("’")
	case "ldblquote":
		r.symbol("“")
	case "rdblquote":
		r.symbol("”")
	case "emspace", "enspace", "qmspace":
		r.symbol(" ")
	}
}

// destination reports the control words that start a destination and
// where their text goes.
func destination(w string) (dest, bool) {
	switch w {
	case "fonttbl":
		return destFonts, true
	case "stylesheet":
		return destStyles, true
	case "info":
		return destInfo, true
	case "title":
		return destTitle, true
	case "author":
		return destAuthor, true
	case "subject":
		return destSubject, true
	case "keywords":
		return destKeywords, true
	case "footnote":
		return destFootnote, true
	case "colortbl", "pict", "object", "fldinst", "header", "headerl", "headerr", "headerf",
		"footer", "footerl", "footerr", "footerf", "xe", "tc", "tcn", "txe", "rxe",
		"listtable", "listoverridetable", "revtbl", "rsidtbl", "generator", "themedata",
		"colorschememapping", "datastore", "latentstyles", "pgdptbl", "filetbl", "xmlnstbl",
		"nonshppict", "shpinst", "annotation", "atnauthor", "atnid", "atndate", "atnref",
		"ftnsep", "ftnsepc", "ftncn", "aftnsep", "aftnsepc", "aftncn", "docvar", "userprops",
		"pntxta", "pntxtb", "listtext", "pntext", "template", "operator", "company", "manager", "category",
		"comment", "doccomm", "hlinkbase", "buptim", "creatim",
		"printim", "revtim", "bkmkstart", "bkmkend", "mmathPr", "wgrffmtfilter", "fchars", "lchars":
		return destSkip, true
	}
	return destBody, false
}

// enter starts destination d in the current group.
func (r *reader) enter(d dest) {
	switch {
	case r.st.dest == destSkip:
		// Nothing inside a skipped group is read.
	case d == destTitle || d == destAuthor || d == destSubject || d == destKeywords:
		if r.st.dest == destInfo {
			r.st.dest = d
		} else {
			r.st.dest = destSkip
		}
	case d == destFootnote:
		if r.st.dest != destBody {
			r.st.dest = destSkip
			return
		}
		r.st.dest = d
		r.st.intbl, r.st.outline, r.st.style = false, 0, 0
		r.footnotes++
		r.note.Reset()
	default:
		r.st.dest = d
	}
}

// unicode writes the character of a \uN escape; RTF writes N as a signed
// 16-bit number and characters past the BMP as surrogate pairs.
func (r *reader) unicode(n int) {
	if n < -32768 || n > 65535 {
		return
	}
	if n < 0 {
		n += 65536
	}
	c := rune(n)
	switch {
	case c >= 0xD800 && c < 0xDC00:
		r.surrogate = c
		return
	case c >= 0xDC00 && c < 0xE000:
		if r.surrogate != 0 {
			c = 0x10000 + (r.surrogate-0xD800)<<10 + (c - 0xDC00)
		} else {
			c = utf8.RuneError
		}
	case c < 0x20 && c != '\t' && c != '\n':
		c = ' '
	}
	r.surrogate = 0
	if c > utf8.MaxRune {
		c = utf8.RuneError
	}
	r.text(string(c))
}

// endParagraph ends the body paragraph (or adds a paragraph break to a
// footnote, or a line to a table cell).
func (r *reader) endParagraph() {
	switch r.st.dest {
	case destFootnote:
		r.note.WriteString("\n\n")
		return
	case destBody:
	default:
		return
	}
	if r.st.intbl {
		r.cur.WriteString("\n")
		return
	}
	level := r.headingLevel()
	if level == 0 {
		level = r.curLevel
	}
	text := clean(r.cur.String())
	if text != "" {
		r.endTable()
		p := par{text: text, kind: doc.Paragraph, line: r.curLine}
		if level > 0 && utf8.RuneCountInString(text) <= r.lim.maxHeading {
			p.level, p.text = level, strings.ReplaceAll(text, "\n", " ")
		} else if r.curList {
			p.kind = doc.List
		}
		r.pars = append(r.pars, p)
	}
	r.cur.Reset()
	r.curLevel, r.curList = 0, false
	r.placeNotes()
}

// endCell ends a table cell.
func (r *reader) endCell() {
	if r.st.dest != destBody {
		return
	}
	if r.rows == nil {
		r.rows = []string{}
		r.tableLine = r.curLine
		if r.cur.Len() == 0 {
			r.tableLine = r.line
		}
	}
	r.cells = append(r.cells, strings.ReplaceAll(clean(r.cur.String()), "\n", " "))
	r.cur.Reset()
	r.curLevel, r.curList = 0, false
}

// endRow ends a table row: its cells, side by side.
func (r *reader) endRow() {
	if r.st.dest != destBody {
		return
	}
	if r.cur.Len() > 0 {
		r.endCell()
	}
	if r.rows == nil {
		r.rows = []string{}
		r.tableLine = r.line
	}
	if row := strings.TrimSpace(strings.Join(r.cells, " | ")); strings.Trim(row, "| ") != "" {
		r.rows = append(r.rows, row)
	}
	r.cells = nil
}

// endTable ends the table being read, one block of a line per row.
func (r *reader) endTable() {
	if r.rows == nil {
		return
	}
	if len(r.cells) > 0 {
		r.endRow()
	}
	if len(r.rows) > 0 {
		r.pars = append(r.pars, par{text: strings.Join(r.rows, "\n"), kind: doc.Table, line: r.tableLine})
	}
	r.rows, r.cells = nil, nil
}

// endNote ends a footnote; it is placed after the paragraph that cites it.
func (r *reader) endNote() {
	if text := clean(r.note.String()); text != "" {
		r.notes = append(r.notes, "["+strconv.Itoa(r.footnotes)+"] "+text)
	}
	r.note.Reset()
}

// placeNotes writes the footnotes read so far, once the paragraph that
// cites them has ended.
func (r *reader) placeNotes() {
	if r.cur.Len() > 0 || r.st.dest == destFootnote {
		return
	}
	for _, n := range r.notes {
		r.pars = append(r.pars, par{text: n, kind: doc.Paragraph, line: r.line})
	}
	r.notes = nil
}

// endStyle records the stylesheet entry just read when it is a heading: an
// outline level, or a name "heading N" as Word and LibreOffice write it.
func (r *reader) endStyle() {
	level := r.styleLevel
	if level == 0 {
		name := strings.ToLower(strings.TrimSpace(r.styleName.String()))
		if n, ok := strings.CutPrefix(name, "heading "); ok && len(n) == 1 && n[0] >= '1' && n[0] <= '9' {
			level = int(n[0] - '0')
		}
	}
	if !r.styleChar && level > 0 {
		r.styles[r.styleNum] = level
	}
	r.styleNum, r.styleLevel, r.styleChar = 0, 0, false
	r.styleName.Reset()
}

func (r *reader) title() string { return clean(strings.ReplaceAll(r.titleText.String(), "\n", " ")) }

// catalog returns the \subject as a tag and the \keywords split into
// tags.
func (r *reader) catalog() doc.Catalog {
	var c doc.Catalog
	c.AddTag(r.subjectText.String())
	c.AddKeywords(r.keywordText.String())
	return c.Clean()
}

// authors splits the \author field where it names several.
func (r *reader) authors() []string {
	var out []string
	for _, a := range strings.FieldsFunc(r.authorText.String(), func(c rune) bool { return c == ';' || c == '&' || c == '\n' }) {
		if a = strings.Join(strings.Fields(a), " "); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// clean collapses the spaces of each line, drops empty lines, and trims.
func clean(s string) string {
	if !strings.ContainsAny(s, "\n\t\u00a0  ") {
		return strings.TrimSpace(s)
	}
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// hexByte reads two hexadecimal digits.
func hexByte(b []byte) (byte, bool) {
	if len(b) < 2 {
		return 0, false
	}
	hi, ok1 := hexDigit(b[0])
	lo, ok2 := hexDigit(b[1])
	return hi<<4 | lo, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
