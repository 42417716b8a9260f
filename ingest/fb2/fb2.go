// Package fb2 parses a FictionBook 2 book (.fb2, or .fb2.zip: a zip holding
// one) into the format-neutral tree of package doc. The book's nested
// <section> elements and their <title>s are its table of contents (in an
// untitled section, bold lines that name chapters head chapters too); the
// description's title-info gives the title, authors, language, genres,
// keywords and series, its publish-info the publisher, year and ISBN, and its
// annotation becomes a first chapter. Notes bodies become a chapter of
// their own, each note a paragraph that starts with its number.
//
// Anchors cite a section by its id ("#ch3") where it has one, else by its
// place ("section 3.2"); a paragraph with an id (a note) is cited by it.
// The file is untrusted input: a zipped book is read with the caps of
// package safezip, XML nested past xhtml.MaxXMLDepth fails the book, and
// embedded pictures are skipped unread.
package fb2

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/meta"
	"github.com/grimoire-search/grimoire/ingest/internal/outline"
	"github.com/grimoire-search/grimoire/ingest/internal/safezip"
	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
)

// Errors that Parse wraps, for errors.Is.
var (
	// ErrNotFB2 reports a file that is no FictionBook: not XML, another
	// root element, a zip without a .fb2 in it.
	ErrNotFB2 = errors.New("not an FB2 book")
	// ErrDamaged reports a FictionBook whose XML breaks off or is broken.
	ErrDamaged = errors.New("damaged FB2 book")
	// ErrTooLarge reports a zipped book that would inflate past the caps.
	ErrTooLarge = errors.New("FB2 archive too large to read safely")
)

// ctxCheckEvery is how many tokens are read between two looks at ctx.
const ctxCheckEvery = 1024

// Parse parses one FB2 book, given whole in data: the XML itself, or a zip
// archive holding it. It fails with ErrNotFB2, ErrDamaged or ErrTooLarge,
// or ctx's error. Parse keeps no state between calls and is safe to call
// concurrently.
func Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	return parse(ctx, data, safezip.DefaultLimits())
}

func parse(ctx context.Context, data []byte, lim safezip.Limits) (*doc.Document, error) {
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		inner, err := unzip(data, lim)
		if err != nil {
			return nil, err
		}
		data = inner
	}
	p := &parser{ctx: ctx, dec: xhtml.NewXMLReader(data)}
	if err := p.run(); err != nil {
		return nil, err
	}
	d := &doc.Document{
		Title:      p.title,
		Authors:    p.authors,
		Language:   meta.LanguageTag(p.lang),
		Catalog:    p.bookCatalog(),
		SourceType: doc.FB2,
	}
	if err := p.b.Err(); err != nil {
		return nil, err
	}
	d.Chapters = p.b.Chapters(d.Title)
	return d, nil
}

// bookCatalog returns the catalogue the description gives: the year the
// book was published, else the date it was written; the author's series,
// else the publisher's.
func (p *parser) bookCatalog() doc.Catalog {
	c := p.catalog
	if c.Published == "" {
		c.Published = p.written
	}
	if c.Series == "" {
		c.Series, c.SeriesIndex = p.pubSeries, p.pubSeriesIndex
	}
	return c.Clean()
}

// unzip returns the book inside a .fb2.zip: its first .fb2 entry, else its
// only entry.
func unzip(data []byte, lim safezip.Limits) ([]byte, error) {
	a, err := safezip.Open(data, lim)
	if err != nil {
		return nil, zipError(err)
	}
	names := a.Names()
	pick := ""
	for _, n := range names {
		if strings.EqualFold(path.Ext(n), ".fb2") {
			pick = n
			break
		}
	}
	if pick == "" && len(names) == 1 {
		pick = names[0]
	}
	if pick == "" {
		return nil, fmt.Errorf("%w: the zip archive holds no .fb2 file", ErrNotFB2)
	}
	inner, err := a.Read(pick)
	if err != nil {
		return nil, zipError(err)
	}
	return inner, nil
}

func zipError(err error) error {
	if errors.Is(err, safezip.ErrTooLarge) {
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	return fmt.Errorf("%w: %w", ErrNotFB2, err)
}

// frame is an open element whose structure is followed.
type frame struct {
	name string
	kind kind
}

type kind uint8

const (
	kindOther kind = iota
	kindSkip       // its content is not the book's text
	kindBody
	kindSection
	kindTitle   // a body's or section's title
	kindQuote   // epigraph, cite, poem, stanza: their lines are quoted
	kindTable   // table
	kindRow     // tr
	kindCell    // td, th
	kindText    // p, v, subtitle, text-author: one line of text
	kindAuthor  // an author of the title-info
	kindField   // a title-info field whose text is metadata
	kindAnnot   // the title-info's annotation
	kindDescr   // description
	kindTitleIn // title-info
	kindPubInfo // publish-info
	kinds
)

// parser reads the token stream of one book.
type parser struct {
	ctx context.Context
	dec *xhtml.XMLReader
	b   outline.Builder

	stack []frame
	// open counts the open elements of each kind.
	open [kinds]int

	// text gathers the running line; field the text of a metadata field.
	text  strings.Builder
	field strings.Builder

	title   string
	authors []string
	lang    string
	author  [4]string // first, middle, last, nickname
	catalog doc.Catalog
	// written is the title-info's date, when the work was written: the
	// date the book has when its publish-info gives no year.
	written string
	// pubSeries is the publish-info's sequence, the publisher's series:
	// the book's when its title-info names none.
	pubSeries      string
	pubSeriesIndex float64

	bodies int
	notes  bool // in a body after the first: notes, comments
	// sections counts, for the body and each open section, the sections
	// it has begun so far: the numbers of the open sections, for anchors.
	sections []int
	pending  *heading
	// titleParts are the lines of the open heading title.
	titleParts []string
	// notePrefix is the title of the open note, which leads its first
	// paragraph; noteAnchor cites the note by its id.
	notePrefix string
	noteAnchor string
	quotes     int // open epigraphs, cites, poems
	// divisions are the open sections, innermost last.
	divisions []division
	// strong counts the open <strong> elements in the running line;
	// plain says the line has text outside them.
	strong int
	plain  bool
	// lines counts the lines since the last heading.
	lines  int
	row    []string
	rows   []string
	lineID string // the id of the open line element
}

// division is an open section: its heading's level and anchor, and
// whether it has no title of its own.
type division struct {
	level    int
	anchor   string
	untitled bool
}

// heading is a body's or section's heading, held until its title is read
// or its first text shows it has none.
type heading struct {
	level  int
	anchor string
	title  string // what to call it when it has no title of its own
	// body is the main body's heading, which is only its title: untitled,
	// it gives way to the body's sections, and text before them is a
	// division of its own.
	body bool
}

func (p *parser) run() error {
	root := false
	for tok := 0; ; tok++ {
		if tok%ctxCheckEvery == 0 {
			if err := p.ctx.Err(); err != nil {
				return fmt.Errorf("fb2: %w", err)
			}
			if err := p.b.Err(); err != nil {
				return err
			}
		}
		t, err := p.dec.Token()
		if err == io.EOF {
			if !root {
				return fmt.Errorf("%w: no <FictionBook> element", ErrNotFB2)
			}
			break
		}
		if err != nil {
			switch {
			case errors.Is(err, xhtml.ErrTooDeep):
				return fmt.Errorf("%w: %w", ErrDamaged, err)
			case !root:
				return fmt.Errorf("%w: not XML (%v)", ErrNotFB2, errText(err))
			}
			return fmt.Errorf("%w: the XML breaks off or is broken at line %d (%v)", ErrDamaged, lineOf(err), errText(err))
		}
		switch t := t.(type) {
		case xml.StartElement:
			if !root {
				if !strings.EqualFold(t.Name.Local, "FictionBook") {
					return fmt.Errorf("%w: the root element is <%s>, not <FictionBook>", ErrNotFB2, t.Name.Local)
				}
				root = true
			}
			p.start(t)
		case xml.EndElement:
			p.end()
		case xml.CharData:
			p.chars(t)
		}
	}
	p.closeLine()
	p.settlePending()
	return nil
}

// lineOf returns the line an XML syntax error is on, 0 when it has none.
func lineOf(err error) int {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return se.Line
	}
	return 0
}

func errText(err error) string {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return se.Msg
	}
	return err.Error()
}

func (p *parser) top() kind {
	if len(p.stack) == 0 {
		return kindOther
	}
	return p.stack[len(p.stack)-1].kind
}

func (p *parser) within(k kind) bool { return p.open[k] > 0 }

func (p *parser) skipping() bool { return p.within(kindSkip) }

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

func (p *parser) start(t xml.StartElement) {
	name := t.Name.Local
	k := p.classify(name)
	if p.skipping() {
		k = kindSkip
	}
	p.description(t)
	switch k {
	case kindBody:
		p.closeLine()
		p.settlePending()
		p.bodies++
		p.notes = p.bodies > 1 || attr(t, "name") == "notes"
		p.sections = append(p.sections[:0], 0)
		if p.notes {
			title := strings.TrimSpace(attr(t, "name"))
			if title == "" {
				title = "notes"
			}
			p.pending = &heading{level: 1, anchor: "#" + title, title: strings.ToUpper(title[:1]) + title[1:]}
		} else {
			p.pending = &heading{level: 0, anchor: "title", body: true}
		}
	case kindSection:
		p.closeLine()
		if p.notes {
			p.emitPending()
			p.notePrefix, p.noteAnchor = "", ""
			if id := attr(t, "id"); id != "" {
				p.noteAnchor = "#" + id
			}
			break
		}
		p.settlePending()
		if len(p.sections) == 0 {
			p.sections = append(p.sections, 0) // a section outside any body
		}
		p.sections[len(p.sections)-1]++
		anchor := sectionAnchor(p.sections)
		if id := attr(t, "id"); id != "" {
			anchor = "#" + id
		}
		p.sections = append(p.sections, 0)
		p.pending = &heading{level: len(p.sections) - 1, anchor: anchor}
		p.divisions = append(p.divisions, division{level: len(p.sections) - 1, anchor: anchor, untitled: true})
	case kindTitle:
		p.closeLine()
		p.titleParts = p.titleParts[:0]
	case kindAnnot:
		p.closeLine()
		p.heading(1, "Annotation", "#annotation")
	case kindQuote:
		p.beforeText()
		p.closeLine()
		p.quotes++
	case kindTable:
		p.beforeText()
		p.closeLine()
		p.rows = p.rows[:0]
	case kindRow:
		p.row = p.row[:0]
	case kindText, kindCell:
		p.beforeText()
		p.closeLine()
		p.lineID = attr(t, "id")
		p.strong, p.plain = 0, false
	case kindAuthor:
		p.author = [4]string{}
	case kindField:
		p.field.Reset()
	case kindOther:
		if (name == "empty-line" || name == "image") && !p.within(kindText) && !p.within(kindCell) {
			p.closeLine()
		}
		if name == "strong" && p.within(kindText) {
			p.strong++
		}
	}
	p.stack = append(p.stack, frame{name: name, kind: k})
	p.open[k]++
}

// classify says what an element is, by its name and where it stands.
func (p *parser) classify(name string) kind {
	top := p.top()
	switch top {
	case kindTitleIn:
		switch name {
		case "book-title", "lang", "genre", "keywords", "date":
			return kindField
		case "author":
			return kindAuthor
		case "annotation":
			return kindAnnot
		}
		return kindSkip
	case kindAuthor:
		switch name {
		case "first-name", "middle-name", "last-name", "nickname":
			return kindField
		}
		return kindSkip
	case kindField:
		return kindOther
	case kindDescr:
		switch name {
		case "title-info":
			return kindTitleIn
		case "publish-info":
			return kindPubInfo
		}
		return kindSkip
	case kindPubInfo:
		switch name {
		case "publisher", "year", "isbn":
			return kindField
		}
		return kindSkip
	}
	switch name {
	case "description":
		return kindDescr
	case "binary", "stylesheet":
		return kindSkip
	case "body":
		return kindBody
	case "section":
		return kindSection
	case "title":
		if top == kindBody || top == kindSection {
			return kindTitle
		}
		return kindText
	case "epigraph", "cite", "poem", "stanza":
		return kindQuote
	case "table":
		return kindTable
	case "tr":
		if top == kindTable {
			return kindRow
		}
	case "td", "th":
		if top == kindRow {
			return kindCell
		}
	case "p", "v", "subtitle", "text-author", "date":
		if top == kindText || top == kindCell {
			return kindOther // a paragraph inside a paragraph runs on
		}
		return kindText
	}
	return kindOther
}

// sectionAnchor cites a section by its numbers: "section 3.2" is the
// second section of the third.
func sectionAnchor(numbers []int) string {
	parts := make([]string, len(numbers))
	for i, n := range numbers {
		parts[i] = strconv.Itoa(n)
	}
	return "section " + strings.Join(parts, ".")
}

func (p *parser) end() {
	if len(p.stack) == 0 {
		return
	}
	f := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	p.open[f.kind]--
	if p.skipping() {
		return
	}
	switch f.kind {
	case kindSection:
		p.closeLine()
		if p.notes {
			p.notePrefix = ""
			break
		}
		p.settlePending()
		if len(p.sections) > 0 {
			p.sections = p.sections[:len(p.sections)-1]
		}
		if len(p.divisions) > 0 {
			p.divisions = p.divisions[:len(p.divisions)-1]
		}
	case kindBody:
		p.closeLine()
		p.settlePending()
	case kindTitle:
		p.closeLine()
		title := strings.Join(p.titleParts, " ")
		p.titleParts = p.titleParts[:0]
		switch {
		case p.notes && p.pending == nil:
			// A note's title is its number, which leads its text as the
			// citation does in the text: "[1]".
			if title != "" && !strings.HasPrefix(title, "[") {
				title = "[" + title + "]"
			}
			p.notePrefix = title
		case p.pending != nil:
			h := p.pending
			p.pending = nil
			p.heading(h.level, title, h.anchor)
			if title != "" && len(p.divisions) > 0 && !h.body {
				p.divisions[len(p.divisions)-1].untitled = false
			}
		default:
			// A second title, or one after the text began: a line.
			p.b.Line(p.lineKind(), title, "")
			p.lines++
		}
	case kindQuote:
		p.closeLine()
		p.quotes--
	case kindText:
		if p.headingLine() {
			d := p.divisions[len(p.divisions)-1]
			p.heading(d.level, p.take(), d.anchor)
			p.lineID = ""
			break
		}
		p.closeLine()
	case kindCell:
		p.row = append(p.row, p.take())
	case kindRow:
		p.closeLine()
		if line := strings.TrimRight(strings.Join(p.row, " | "), " |"); line != "" {
			p.rows = append(p.rows, line)
		}
		p.row = p.row[:0]
	case kindTable:
		p.closeLine()
		if len(p.rows) > 0 {
			p.b.Block(doc.Block{Kind: doc.Table, Text: strings.Join(p.rows, "\n")})
			p.lines++
		}
		p.rows = p.rows[:0]
	case kindField:
		p.setField(f.name, xhtml.CleanText(p.field.String()))
		p.field.Reset()
	case kindAuthor:
		p.addAuthor()
	case kindAnnot:
		p.closeLine()
	case kindOther:
		if f.name == "strong" && p.strong > 0 {
			p.strong--
		}
	}
}

// headingLine reports whether the line that ends is a chapter's heading
// inside an untitled section: a paragraph all in bold that names a
// division ("Chapter 39"), after the section's first line. Converters
// that cut a book into sections by size, not by chapter (calibre's FB2
// output of an EPUB does), put the chapters' headings there; read as
// text, every chapter in a section would be cited by the first one's
// name.
func (p *parser) headingLine() bool {
	if p.plain || p.notes || p.quotes > 0 || p.lines == 0 || len(p.divisions) == 0 ||
		!p.divisions[len(p.divisions)-1].untitled || p.within(kindTitle) || p.within(kindCell) {
		return false
	}
	return namesDivision(xhtml.Collapse(p.text.String()))
}

func (p *parser) chars(c xml.CharData) {
	if p.skipping() {
		return
	}
	if p.within(kindField) {
		p.field.Write(c)
		return
	}
	if p.within(kindDescr) && !p.within(kindAnnot) {
		return
	}
	if p.text.Len() == 0 && len(bytes.TrimSpace(c)) == 0 {
		return
	}
	if p.text.Len() == 0 {
		p.beforeText()
	}
	if p.strong == 0 && len(bytes.TrimSpace(c)) > 0 {
		p.plain = true
	}
	p.text.Write(c)
}

// beforeText is called where the text of a body or section begins: a
// heading still waiting for its title has none.
func (p *parser) beforeText() {
	if p.within(kindTitle) {
		return
	}
	p.emitPending()
}

// emitPending emits the heading that waits for its title, untitled: text
// has begun. Before the main body's first section, that text is a division
// of its own.
func (p *parser) emitPending() {
	h := p.pending
	if h == nil {
		return
	}
	p.pending = nil
	if h.body {
		p.heading(1, "", "")
		return
	}
	p.heading(h.level, h.title, h.anchor)
}

// settlePending emits the heading that waits for its title, untitled, where
// a section begins or ends: the main body's, which is only a title, is
// dropped.
func (p *parser) settlePending() {
	if p.pending != nil && p.pending.body {
		p.pending = nil
	}
	p.emitPending()
}

// take returns the running line, white space collapsed, and empties it.
func (p *parser) take() string {
	s := xhtml.Collapse(p.text.String())
	p.text.Reset()
	return s
}

// closeLine ends the running line: a line of the title being read, a cell,
// or a line of the book.
func (p *parser) closeLine() {
	line := p.take()
	id := p.lineID
	p.lineID = ""
	if line == "" {
		return
	}
	switch {
	case p.within(kindTitle):
		p.titleParts = append(p.titleParts, line)
		return
	case p.within(kindCell):
		p.row = append(p.row, line)
		return
	}
	anchor := ""
	if id != "" {
		anchor = "#" + id
	}
	if p.notes && p.noteAnchor != "" {
		if anchor == "" {
			anchor = p.noteAnchor
		}
		p.noteAnchor = ""
	}
	if p.notes && p.notePrefix != "" {
		line = p.notePrefix + " " + line
		p.notePrefix = ""
	}
	p.b.Line(p.lineKind(), line, anchor)
	p.lines++
}

// heading starts a division, and counts the lines from it.
func (p *parser) heading(level int, title, anchor string) {
	p.b.Heading(level, title, anchor)
	p.lines = 0
}

func (p *parser) lineKind() doc.BlockKind {
	if p.quotes > 0 {
		return doc.Quote
	}
	return doc.Paragraph
}

func (p *parser) setField(name, value string) {
	if value == "" {
		return
	}
	switch name {
	case "book-title":
		if p.title == "" {
			p.title = value
		}
	case "lang":
		if p.lang == "" {
			p.lang = value
		}
	case "first-name":
		p.author[0] = value
	case "middle-name":
		p.author[1] = value
	case "last-name":
		p.author[2] = value
	case "nickname":
		p.author[3] = value
	case "genre":
		// Genres are codes ("sf_fantasy", "prose_classic"), as readers
		// and libraries file FB2 books by them.
		p.catalog.AddTag(value)
	case "keywords":
		p.catalog.AddKeywords(value)
	case "date":
		if p.written == "" {
			p.written = value
		}
	case "publisher":
		if p.catalog.Publisher == "" {
			p.catalog.Publisher = value
		}
	case "year":
		if p.catalog.Published == "" {
			p.catalog.Published = value
		}
	case "isbn":
		p.catalog.SetIdentifier("isbn", value)
	}
}

// description reads what the description's elements say in their
// attributes: a sequence's name and number, a date's machine value.
func (p *parser) description(t xml.StartElement) {
	top := p.top()
	if top != kindTitleIn && top != kindPubInfo {
		return
	}
	switch t.Name.Local {
	case "sequence":
		name := xhtml.CleanText(attr(t, "name"))
		number, _ := strconv.ParseFloat(attr(t, "number"), 64)
		switch {
		case name == "":
		case top == kindTitleIn && p.catalog.Series == "":
			p.catalog.Series, p.catalog.SeriesIndex = name, number
		case top == kindPubInfo && p.pubSeries == "":
			p.pubSeries, p.pubSeriesIndex = name, number
		}
	case "date":
		if v := doc.DatePart(attr(t, "value")); v != "" && top == kindTitleIn && p.written == "" {
			p.written = v
		}
	}
}

func (p *parser) addAuthor() {
	var parts []string
	for _, s := range p.author[:3] {
		if s != "" {
			parts = append(parts, s)
		}
	}
	name := strings.Join(parts, " ")
	if name == "" {
		name = p.author[3]
	}
	if name == "" {
		return
	}
	for _, a := range p.authors {
		if a == name {
			return
		}
	}
	p.authors = append(p.authors, name)
}

// divisionLabels are the words that open a chapter's heading, folded to
// lower case, in the languages FB2 books are most often in.
var divisionLabels = map[string]bool{
	"chapter": true, "book": true, "part": true, "volume": true, "letter": true, "act": true,
	"scene": true, "canto": true, "stave": true, "prologue": true, "epilogue": true, "preface": true,
	"introduction": true, "appendix": true, "afterword": true, "foreword": true,
	"chapitre": true, "livre": true, "partie": true, "kapitel": true, "teil": true, "buch": true,
	"capítulo": true, "capitolo": true, "libro": true, "parte": true,
	"глава": true, "часть": true, "книга": true, "том": true, "пролог": true, "эпилог": true, "предисловие": true,
}

// maxDivisionTitle is the longest line, in runes, read as a chapter's
// heading.
const maxDivisionTitle = 80

// namesDivision reports whether a line reads as a chapter's heading: it
// opens with a division's label ("Chapter 39", "BOOK ONE: 1805",
// "Глава 3") or a chapter's number ("XIV. The Trial", "12"), and is
// short.
func namesDivision(line string) bool {
	words := strings.Fields(line)
	if len(words) == 0 || len([]rune(line)) > maxDivisionTitle {
		return false
	}
	first := strings.ToLower(strings.TrimRight(words[0], ".:—–-"))
	if divisionLabels[first] {
		return true
	}
	if _, err := strconv.Atoi(first); err == nil {
		return true
	}
	return isRoman(first) && (len(words) == 1 || strings.HasSuffix(words[0], "."))
}

// isRoman reports whether s, lower case, is a Roman numeral's letters.
func isRoman(s string) bool {
	return s != "" && strings.Trim(s, "ivxlcdm") == ""
}
