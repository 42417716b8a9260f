// Package odt parses an OpenDocument text (.odt, as LibreOffice and pandoc
// write it) into the format-neutral tree of package doc. Headings are the
// document's <text:h> elements with their outline levels, and paragraphs
// whose style (or a style it inherits from) is a heading or the title;
// generated indexes (the table of contents) are left out, since the
// headings themselves are the outline. Lists carry their bullets and
// numbers, tables become rows of cells joined by " | ", footnotes and
// endnotes follow the text of the section that cites them, and meta.xml
// gives the title, authors, language, subject, keywords and creation date.
//
// Anchors cite a heading by its bookmark when a visible one marks it
// ("#introduction"), and a paragraph by its number in the document
// ("p412"). The file is untrusted input: it is read with the caps of
// package safezip, and XML nested past xhtml.MaxXMLDepth fails it.
package odt

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
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
	// ErrNotODT reports a file that is no OpenDocument text: not a zip,
	// another kind of OpenDocument, no content.xml.
	ErrNotODT = errors.New("not an ODT document")
	// ErrDamaged reports a document whose XML is broken.
	ErrDamaged = errors.New("damaged ODT document")
	// ErrTooLarge reports an archive that would inflate past the caps.
	ErrTooLarge = errors.New("ODT too large to read safely")
)

const textMimetype = "application/vnd.oasis.opendocument.text"

// ctxCheckEvery is how many tokens are read between two looks at ctx.
const ctxCheckEvery = 1024

// Parse parses one ODT file, given whole in data. It fails with ErrNotODT,
// ErrDamaged or ErrTooLarge, or ctx's error. Parse keeps no state between
// calls and is safe to call concurrently.
func Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	return parse(ctx, data, safezip.DefaultLimits())
}

func parse(ctx context.Context, data []byte, lim safezip.Limits) (*doc.Document, error) {
	a, err := safezip.Open(data, lim)
	if err != nil {
		return nil, zipError(err)
	}
	if a.Has("mimetype") {
		mt, err := a.Read("mimetype")
		if err != nil {
			return nil, zipError(err)
		}
		kind := strings.TrimSpace(string(mt))
		// Templates (text-template) and master documents read the same.
		if !strings.HasPrefix(kind, textMimetype) {
			return nil, fmt.Errorf("%w: its mimetype is %q, not an OpenDocument text", ErrNotODT, kind)
		}
	}
	if !a.Has("content.xml") {
		return nil, fmt.Errorf("%w: the archive has no content.xml", ErrNotODT)
	}
	if a.Has("META-INF/manifest.xml") {
		if err := checkEncrypted(a); err != nil {
			return nil, err
		}
	}
	r := &reader{ctx: ctx, styles: make(map[string]*style), lists: make(map[string]*listStyle)}
	if a.Has("styles.xml") {
		data, err := a.Read("styles.xml")
		if err != nil {
			return nil, zipError(err)
		}
		if err := r.stream(data, "styles.xml"); err != nil {
			return nil, err
		}
	}
	content, err := a.Read("content.xml")
	if err != nil {
		return nil, zipError(err)
	}
	if err := r.stream(content, "content.xml"); err != nil {
		return nil, err
	}

	m := readMeta(a)
	d := &doc.Document{
		Title:      m.title,
		Authors:    m.authors,
		Language:   meta.LanguageTag(m.language),
		Catalog:    m.catalog,
		SourceType: doc.ODT,
	}
	if d.Title == "" {
		d.Title = r.title
	}
	if err := r.b.Err(); err != nil {
		return nil, err
	}
	d.Chapters = r.b.Chapters(d.Title)
	if d.Title == "" {
		d.Title = r.b.Name()
	}
	return d, nil
}

func zipError(err error) error {
	switch {
	case errors.Is(err, safezip.ErrTooLarge):
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	case errors.Is(err, safezip.ErrNotZip):
		return fmt.Errorf("%w: %w", ErrNotODT, err)
	}
	return fmt.Errorf("%w: %w", ErrDamaged, err)
}

// checkEncrypted fails a document saved with a password: its manifest
// lists encryption data for content.xml, which is then no XML.
func checkEncrypted(a *safezip.Archive) error {
	data, err := a.Read("META-INF/manifest.xml")
	if err != nil {
		return zipError(err)
	}
	var m struct {
		Entries []struct {
			Path       string    `xml:"full-path,attr"`
			Encryption *struct{} `xml:"encryption-data"`
		} `xml:"file-entry"`
	}
	if xhtml.NewXMLDecoder(data).Decode(&m) != nil {
		return nil
	}
	for _, e := range m.Entries {
		if e.Path == "content.xml" && e.Encryption != nil {
			return fmt.Errorf("%w: it is encrypted with a password; save it without one", ErrNotODT)
		}
	}
	return nil
}

type docMeta struct {
	title    string
	authors  []string
	language string
	// catalog holds the subject and keywords as tags and the creation
	// date.
	catalog doc.Catalog
}

// readMeta reads meta.xml. The author is the initial creator; dc:creator
// is whoever saved the document last. Broken metadata costs the document
// its title, not its text.
func readMeta(a *safezip.Archive) docMeta {
	if !a.Has("meta.xml") {
		return docMeta{}
	}
	data, err := a.Read("meta.xml")
	if err != nil {
		return docMeta{}
	}
	var m struct {
		Meta struct {
			Title          string   `xml:"title"`
			InitialCreator string   `xml:"initial-creator"`
			Creator        string   `xml:"creator"`
			Language       string   `xml:"language"`
			Subject        string   `xml:"subject"`
			Keywords       []string `xml:"keyword"`
		} `xml:"meta"`
	}
	_ = xhtml.NewXMLDecoder(data).Decode(&m)
	out := docMeta{title: xhtml.CleanText(m.Meta.Title), language: xhtml.CleanText(m.Meta.Language)}
	out.catalog.AddTag(m.Meta.Subject)
	for _, k := range m.Meta.Keywords {
		out.catalog.AddKeywords(k)
	}
	out.catalog = out.catalog.Clean()
	author := xhtml.CleanText(m.Meta.InitialCreator)
	if author == "" {
		author = xhtml.CleanText(m.Meta.Creator)
	}
	for _, name := range strings.Split(author, ";") {
		if name = strings.TrimSpace(name); name != "" {
			out.authors = append(out.authors, name)
		}
	}
	return out
}

// style is a paragraph style as written; its parent's say is looked up
// when a paragraph uses it.
type style struct {
	name, display, parent string
	outline               int // its default outline level, 0 when none
	listStyle             string
}

// listStyle says, per level, how a list's items are marked.
type listStyle struct {
	levels [10]listLevel
}

type listLevel struct {
	numbered       bool
	format         string // "1", "a", "A", "i", "I"
	prefix, suffix string
	start          int
}

// reader reads styles.xml, then content.xml, into a builder.
type reader struct {
	ctx    context.Context
	styles map[string]*style
	lists  map[string]*listStyle
	b      outline.Builder
	title  string

	curList  *listStyle // the list style being read
	curLevel int

	skip  int // open skipped elements
	paras []*para
	// lists are the open lists, outermost first.
	openLists []*openList
	tables    []*table
	notes     []*note
	count     int // paragraphs so far, for anchors
	bookmark  string
	inBody    bool
}

type para struct {
	heading  bool
	level    int
	styleKey string
	text     strings.Builder
	number   int
	bookmark string
	// item is set on the first paragraph of a list item, which carries
	// its marker.
	item bool
}

type openList struct {
	style   *listStyle
	counter int // items so far
	// itemStart is set when an item has begun and its first paragraph,
	// which carries the marker, has not.
	itemStart bool
}

type table struct {
	rows []string
	row  []string
	cell []string
}

type note struct {
	citation string
	text     []string
	inCite   bool
}

// skipped reports elements whose content is no text of the document:
// generated indexes, comments, tracked changes, declarations, forms.
func skipped(name string) bool {
	switch name {
	case "table-of-content", "alphabetical-index", "illustration-index", "table-index",
		"object-index", "user-index", "bibliography", "annotation", "tracked-changes",
		"sequence-decls", "variable-decls", "user-field-decls", "dde-connection-decls",
		"forms", "scripts", "font-face-decls", "table-column", "table-columns",
		"ruby-text", "desc", "event-listeners", "change-start", "change-end":
		return true
	}
	return false
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

func (r *reader) stream(data []byte, name string) error {
	x := xhtml.NewXMLReader(data)
	for tok := 0; ; tok++ {
		if tok%ctxCheckEvery == 0 {
			if err := r.ctx.Err(); err != nil {
				return fmt.Errorf("odt: %w", err)
			}
			if err := r.b.Err(); err != nil {
				return err
			}
		}
		t, err := x.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrDamaged, name, xmlError(err))
		}
		switch t := t.(type) {
		case xml.StartElement:
			r.start(t)
		case xml.EndElement:
			r.end(t.Name.Local)
		case xml.CharData:
			if r.skip == 0 && len(r.paras) > 0 {
				if n := r.note(); n != nil && n.inCite {
					n.citation += string(t)
					continue
				}
				r.paras[len(r.paras)-1].text.Write(t)
			}
		}
	}
	for len(r.paras) > 0 {
		r.endPara()
	}
	return nil
}

func xmlError(err error) string {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("the XML breaks off or is broken at line %d (%s)", se.Line, se.Msg)
	}
	return err.Error()
}

func (r *reader) note() *note {
	if len(r.notes) == 0 {
		return nil
	}
	return r.notes[len(r.notes)-1]
}

func (r *reader) start(t xml.StartElement) {
	name := t.Name.Local
	if r.skip > 0 {
		r.skip++
		return
	}
	// "title" and "desc" are also the names of a drawing's accessible
	// title and description, which are no text of the document.
	if t.Name.Local == "title" && strings.Contains(t.Name.Space, "svg") {
		r.skip++
		return
	}
	if skipped(name) {
		r.skip++
		return
	}
	switch name {
	case "style":
		if attr(t, "family") == "paragraph" {
			s := &style{name: attr(t, "name"), display: attr(t, "display-name"), parent: attr(t, "parent-style-name"),
				listStyle: attr(t, "list-style-name")}
			s.outline, _ = strconv.Atoi(attr(t, "default-outline-level"))
			if _, dup := r.styles[s.name]; !dup && s.name != "" {
				r.styles[s.name] = s
			}
		}
	case "list-style":
		r.curList = &listStyle{}
		for i := range r.curList.levels {
			r.curList.levels[i] = listLevel{start: 1}
		}
		if n := attr(t, "name"); n != "" && r.lists[n] == nil {
			r.lists[n] = r.curList
		}
	case "list-level-style-number", "list-level-style-bullet", "list-level-style-image":
		if r.curList == nil {
			break
		}
		lv, err := strconv.Atoi(attr(t, "level"))
		if err != nil || lv < 1 || lv > len(r.curList.levels) {
			break
		}
		l := listLevel{start: 1}
		if name == "list-level-style-number" {
			l.numbered = true
			l.format = attr(t, "num-format")
			l.prefix, l.suffix = attr(t, "num-prefix"), attr(t, "num-suffix")
			if s, err := strconv.Atoi(attr(t, "start-value")); err == nil {
				l.start = s
			}
		}
		r.curList.levels[lv-1] = l
	case "text":
		if strings.Contains(t.Name.Space, "office") {
			r.inBody = true
		}
	case "h", "p":
		if !r.inBody {
			break
		}
		r.count++
		p := &para{number: r.count, styleKey: attr(t, "style-name"), bookmark: r.bookmark}
		r.bookmark = ""
		level, isHeading := r.headingLevel(p.styleKey)
		if name == "h" {
			isHeading = true
			if v, err := strconv.Atoi(attr(t, "outline-level")); err == nil && v >= 1 {
				level = v
			} else if level < 1 {
				level = 1
			}
		}
		p.heading, p.level = isHeading, level
		if l := r.list(); l != nil && l.itemStart {
			p.item, l.itemStart = true, false
		}
		r.paras = append(r.paras, p)
	case "s":
		n, err := strconv.Atoi(attr(t, "c"))
		if err != nil || n < 1 {
			n = 1
		}
		r.write(strings.Repeat(" ", min(n, 100)))
	case "tab":
		r.write("\t")
	case "line-break":
		r.write("\n")
	case "bookmark", "bookmark-start":
		bm := attr(t, "name")
		if bm == "" || strings.HasPrefix(bm, "_") {
			break
		}
		if len(r.paras) > 0 {
			if p := r.paras[len(r.paras)-1]; p.bookmark == "" {
				p.bookmark = bm
			}
		} else if r.bookmark == "" {
			r.bookmark = bm
		}
	case "list":
		if !r.inBody {
			break
		}
		ls := r.lists[attr(t, "style-name")]
		if ls == nil && len(r.openLists) > 0 {
			ls = r.openLists[len(r.openLists)-1].style
		}
		r.openLists = append(r.openLists, &openList{style: ls})
	case "list-item", "list-header":
		if l := r.list(); l != nil && name == "list-item" {
			l.itemStart = true
			l.counter++
			if v, err := strconv.Atoi(attr(t, "start-value")); err == nil && l.style != nil {
				l.counter = v - l.style.levels[min(len(r.openLists)-1, 9)].start + 1
			}
		}
	case "table":
		if r.inBody {
			r.tables = append(r.tables, &table{})
		}
	case "table-row":
		if tb := r.table(); tb != nil {
			tb.row, tb.cell = tb.row[:0], tb.cell[:0]
		}
	case "table-cell", "covered-table-cell":
		if tb := r.table(); tb != nil {
			tb.cell = tb.cell[:0]
		}
	case "note":
		r.notes = append(r.notes, &note{})
	case "note-citation":
		if n := r.note(); n != nil {
			n.inCite = true
		}
	}
}

func (r *reader) end(name string) {
	if r.skip > 0 {
		r.skip--
		return
	}
	switch name {
	case "list-style":
		r.curList = nil
	case "text":
		// office:text ends the body; text:text does not exist.
	case "h", "p":
		if r.inBody && len(r.paras) > 0 {
			r.endPara()
		}
	case "list":
		if r.inBody && len(r.openLists) > 0 {
			r.openLists = r.openLists[:len(r.openLists)-1]
		}
	case "table-cell", "covered-table-cell":
		if tb := r.table(); tb != nil {
			tb.row = append(tb.row, strings.Join(tb.cell, " "))
			tb.cell = tb.cell[:0]
		}
	case "table-row":
		if tb := r.table(); tb != nil {
			line := strings.TrimRight(strings.Join(tb.row, " | "), " |")
			if strings.Trim(line, " |") != "" {
				tb.rows = append(tb.rows, line)
			}
			tb.row = tb.row[:0]
		}
	case "table":
		if r.table() != nil {
			r.endTable()
		}
	case "note-citation":
		if n := r.note(); n != nil {
			n.inCite = false
			n.citation = xhtml.Collapse(n.citation)
			if len(r.paras) > 0 {
				r.paras[len(r.paras)-1].text.WriteString("[" + n.citation + "]")
			}
		}
	case "note":
		if n := r.note(); n != nil {
			r.notes = r.notes[:len(r.notes)-1]
			if text := strings.Join(n.text, " "); text != "" {
				r.b.Note("["+n.citation+"] "+text, "")
			}
		}
	}
}

func (r *reader) list() *openList {
	if len(r.openLists) == 0 {
		return nil
	}
	return r.openLists[len(r.openLists)-1]
}

func (r *reader) table() *table {
	if len(r.tables) == 0 {
		return nil
	}
	return r.tables[len(r.tables)-1]
}

func (r *reader) write(s string) {
	if len(r.paras) > 0 {
		r.paras[len(r.paras)-1].text.WriteString(s)
	}
}

// headingLevel returns the level a paragraph style gives, from its own
// outline level or name, or those of the styles it inherits from. A style
// the document uses but does not define (pandoc's Title) says what its
// name says.
func (r *reader) headingLevel(name string) (int, bool) {
	for range 16 {
		s, ok := r.styles[name]
		if !ok {
			return outline.StyleLevel(decodeName(name))
		}
		if s.outline > 0 {
			return s.outline, true
		}
		for _, n := range []string{s.display, decodeName(s.name)} {
			if n == "" {
				continue
			}
			if lv, ok := outline.StyleLevel(n); ok {
				return lv, true
			}
			if _, ok := outline.StyleKind(n); ok {
				return 0, false // a style of plain text ends the search
			}
		}
		if s.parent == "" || s.parent == name {
			return 0, false
		}
		name = s.parent
	}
	return 0, false
}

// kind returns the block kind a paragraph style gives its paragraphs.
func (r *reader) kind(name string) doc.BlockKind {
	for range 16 {
		s, ok := r.styles[name]
		if !ok {
			k, _ := outline.StyleKind(decodeName(name))
			return k
		}
		for _, n := range []string{s.display, decodeName(s.name)} {
			if k, ok := outline.StyleKind(n); ok && n != "" {
				return k
			}
		}
		if s.parent == "" || s.parent == name {
			return doc.Paragraph
		}
		name = s.parent
	}
	return doc.Paragraph
}

// decodeName turns a style's name as ODF writes it back into the name a
// user sees: "Heading_20_1" is "Heading 1".
func decodeName(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			if j := strings.IndexByte(s[i+1:], '_'); j > 0 && j <= 4 {
				if v, err := strconv.ParseUint(s[i+1:i+1+j], 16, 32); err == nil {
					sb.WriteRune(rune(v))
					i += j + 1
					continue
				}
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

func (r *reader) endPara() {
	p := r.paras[len(r.paras)-1]
	r.paras = r.paras[:len(r.paras)-1]
	raw := p.text.String()
	if n := r.note(); n != nil {
		if s := xhtml.Collapse(raw); s != "" {
			n.text = append(n.text, s)
		}
		return
	}
	if tb := r.table(); tb != nil {
		if s := xhtml.Collapse(raw); s != "" {
			tb.cell = append(tb.cell, s)
		}
		return
	}
	nested := len(r.paras) > 0 // a text box's paragraph
	anchor := "p" + strconv.Itoa(p.number)
	if p.heading && !nested {
		title := xhtml.Collapse(raw)
		if title == "" {
			return
		}
		if p.level == 0 && r.title == "" {
			r.title = title
		}
		if p.bookmark != "" {
			anchor = "#" + p.bookmark
		}
		r.b.Heading(p.level, title, anchor)
		return
	}
	if l := r.list(); l != nil && !nested {
		text := xhtml.Collapse(raw)
		if text == "" {
			return
		}
		depth := len(r.openLists) - 1
		prefix := strings.Repeat("  ", min(depth, 10))
		if p.item {
			prefix += l.marker(depth) + " "
		} else {
			prefix += "  "
		}
		r.b.Line(doc.List, prefix+text, anchor)
		return
	}
	switch k := r.kind(p.styleKey); k {
	case doc.Code:
		lines := strings.Split(raw, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " \t")
		}
		r.b.Line(doc.Code, strings.Join(lines, "\n"), anchor)
	default:
		r.b.Line(k, xhtml.CollapseLines(raw), anchor)
	}
}

// marker returns how an item of this list at depth is marked: its number
// in the list style's format, else a dash.
func (l *openList) marker(depth int) string {
	if l.style == nil {
		return "-"
	}
	lv := l.style.levels[min(depth, len(l.style.levels)-1)]
	if !lv.numbered {
		return "-"
	}
	formats := map[string]string{"": "", "1": "decimal", "a": "lowerLetter", "A": "upperLetter", "i": "lowerRoman", "I": "upperRoman"}
	format, ok := formats[lv.format]
	if format == "" && ok {
		return "-" // numbered, but with no visible number
	}
	return lv.prefix + outline.ListNumber(lv.start+l.counter-1, format) + lv.suffix
}

// endTable turns the innermost open table into a block, or, nested in a
// cell, into text of that cell.
func (r *reader) endTable() {
	tb := r.tables[len(r.tables)-1]
	r.tables = r.tables[:len(r.tables)-1]
	if len(tb.rows) == 0 {
		return
	}
	if outer := r.table(); outer != nil {
		outer.cell = append(outer.cell, strings.Join(tb.rows, " / "))
		return
	}
	r.b.Block(doc.Block{Kind: doc.Table, Text: strings.Join(tb.rows, "\n")})
}
