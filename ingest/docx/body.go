package docx

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/outline"
	"github.com/grimoire-search/grimoire/ingest/internal/safezip"
	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
)

// ctxCheckEvery is how many tokens are read between two looks at ctx.
const ctxCheckEvery = 1024

// skipped reports elements whose content is no text of the document:
// deleted and moved-away text, field instructions, properties, the
// fallback copy of alternate content, comments.
func skipped(name string) bool {
	switch name {
	case "del", "moveFrom", "instrText", "delText", "delInstrText", "Fallback",
		"rPr", "tblPr", "trPr", "tcPr", "tblGrid", "sectPr", "sdtPr", "sdtEndPr",
		"pPrChange", "rPrChange", "footnotePr", "endnotePr", "fldData", "annotationRef",
		"commentReference", "docPr", "cNvPr":
		return true
	}
	return false
}

// reader reads the body of a document, or of its notes, into a builder.
type reader struct {
	ctx       context.Context
	styles    *styles
	numbering *numbering
	counters  map[string][]int
	b         outline.Builder
	// title is the text of the first Title paragraph.
	title string

	// notes holds the text of each footnote ("f3") and endnote ("e3");
	// noteNums the number each got where it was first cited.
	notes    map[string]string
	noteNums map[string]int

	paras  []*para
	tables []*table
	skip   int // open skipped elements
	// runHidden is set inside a run whose properties hide it.
	runHidden bool
	inRun     bool
	inText    int // open w:t (and m:t) elements
	count     int // paragraphs so far, for anchors
	// bookmark is a visible bookmark that starts before the paragraph it
	// marks.
	bookmark string
	// noteKind is set ("f" or "e") while a footnotes or endnotes part is
	// read: paragraphs go to noteText, and each note's text to read.
	noteKind string
	noteKey  string
	noteText []string
	read     map[string]string
}

// para is a paragraph being read.
type para struct {
	styleID  string
	outline  int // its own outline level; -2 when it says none
	numID    string
	hasNum   bool
	ilvl     int
	inPPr    bool
	text     strings.Builder
	notes    []string // the notes it cites, by key
	number   int
	bookmark string
}

// table is a table being read: its finished rows, the row and cell open.
type table struct {
	rows []string
	row  []string
	cell []string
}

func (r *reader) addNotes(notes map[string]string) {
	if r.notes == nil {
		r.notes = make(map[string]string)
		r.noteNums = make(map[string]int)
	}
	for k, v := range notes {
		r.notes[k] = v
	}
}

// stream reads a part's tokens: the document, or a notes part.
func (r *reader) stream(data []byte, name string) error {
	x := xhtml.NewXMLReader(data)
	for tok := 0; ; tok++ {
		if tok%ctxCheckEvery == 0 {
			if err := r.ctx.Err(); err != nil {
				return fmt.Errorf("docx: %w", err)
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
			if r.skip == 0 && r.inText > 0 && !r.runHidden && len(r.paras) > 0 {
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

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

// on reports whether a toggle property (w:vanish, w:b) is on: present,
// and not set to false.
func on(t xml.StartElement) bool {
	switch strings.ToLower(attr(t, "val")) {
	case "0", "false", "off":
		return false
	}
	return true
}

func (r *reader) start(t xml.StartElement) {
	name := t.Name.Local
	if r.skip > 0 {
		r.skip++
		return
	}
	var p *para
	if len(r.paras) > 0 {
		p = r.paras[len(r.paras)-1]
	}
	if r.noteKind != "" && (name == "footnote" || name == "endnote") {
		if typ := attr(t, "type"); typ != "" && typ != "normal" {
			r.skip++ // a separator
			return
		}
		r.noteKey, r.noteText = r.noteKind+attr(t, "id"), r.noteText[:0]
		return
	}
	if name == "rPr" && r.inRun {
		// The run's own properties: only whether it is hidden matters.
		return
	}
	if name == "vanish" && r.inRun && p != nil && !p.inPPr {
		r.runHidden = on(t)
		return
	}
	if p != nil && p.inPPr {
		switch name {
		case "pStyle":
			p.styleID = attr(t, "val")
		case "outlineLvl":
			if v, err := strconv.Atoi(attr(t, "val")); err == nil {
				p.outline = v
			}
		case "numId":
			p.numID, p.hasNum = attr(t, "val"), true
		case "ilvl":
			p.ilvl, _ = strconv.Atoi(attr(t, "val"))
		case "rPr", "pPrChange", "sectPr":
			r.skip++
		}
		return
	}
	if skipped(name) {
		r.skip++
		return
	}
	switch name {
	case "p":
		r.count++
		np := &para{outline: -2, number: r.count, bookmark: r.bookmark}
		r.bookmark = ""
		r.paras = append(r.paras, np)
	case "pPr":
		if p != nil {
			p.inPPr = true
		}
	case "r":
		r.inRun, r.runHidden = true, false
	case "t":
		r.inText++
	case "tab", "ptab":
		r.write("\t")
	case "br":
		switch attr(t, "type") {
		case "page", "column":
			r.write(" ")
		default:
			r.write("\n")
		}
	case "cr":
		r.write("\n")
	case "noBreakHyphen":
		r.write("-")
	case "footnoteReference", "endnoteReference":
		r.noteRef(name[0:1], attr(t, "id"))
	case "bookmarkStart":
		// Word hides its own bookmarks behind "_" (_Toc, _Ref); Google Docs
		// names its "bookmark=id.…". Neither means anything to a reader.
		bm := attr(t, "name")
		if bm == "" || strings.HasPrefix(bm, "_") || strings.Contains(bm, "=") {
			break
		}
		if p != nil && p.bookmark == "" {
			p.bookmark = bm
		} else if p == nil && r.bookmark == "" {
			r.bookmark = bm
		}
	case "tbl":
		r.tables = append(r.tables, &table{})
	case "tr":
		if tb := r.table(); tb != nil {
			tb.row, tb.cell = tb.row[:0], tb.cell[:0]
		}
	case "tc":
		if tb := r.table(); tb != nil {
			tb.cell = tb.cell[:0]
		}
	}
}

func (r *reader) end(name string) {
	if r.skip > 0 {
		r.skip--
		return
	}
	var p *para
	if len(r.paras) > 0 {
		p = r.paras[len(r.paras)-1]
	}
	if p != nil && p.inPPr {
		if name == "pPr" {
			p.inPPr = false
		}
		return
	}
	switch name {
	case "footnote", "endnote":
		if r.noteKind != "" {
			for len(r.paras) > 0 {
				r.endPara()
			}
			r.read[r.noteKey] = strings.Join(r.noteText, " ")
		}
	case "p":
		r.endPara()
	case "r":
		r.inRun, r.runHidden = false, false
	case "t":
		if r.inText > 0 {
			r.inText--
		}
	case "tc":
		if tb := r.table(); tb != nil {
			tb.row = append(tb.row, strings.Join(tb.cell, " "))
			tb.cell = tb.cell[:0]
		}
	case "tr":
		if tb := r.table(); tb != nil {
			line := strings.TrimRight(strings.Join(tb.row, " | "), " |")
			if strings.Trim(line, " |") != "" {
				tb.rows = append(tb.rows, line)
			}
			tb.row = tb.row[:0]
		}
	case "tbl":
		r.endTable()
	}
}

// write adds text that a run element stands for (a tab, a break).
func (r *reader) write(s string) {
	if len(r.paras) == 0 || r.runHidden {
		return
	}
	r.paras[len(r.paras)-1].text.WriteString(s)
}

func (r *reader) table() *table {
	if len(r.tables) == 0 {
		return nil
	}
	return r.tables[len(r.tables)-1]
}

// noteRef cites a footnote ("f") or endnote ("e"): the text gets its
// number, and the paragraph carries the note to place after its section.
func (r *reader) noteRef(kind, id string) {
	if len(r.paras) == 0 || r.runHidden {
		return
	}
	key := kind + id
	n, seen := r.noteNums[key]
	if !seen {
		if r.noteNums == nil {
			r.noteNums = make(map[string]int)
		}
		n = len(r.noteNums) + 1
		r.noteNums[key] = n
	}
	p := r.paras[len(r.paras)-1]
	p.text.WriteString("[" + strconv.Itoa(n) + "]")
	if !seen {
		p.notes = append(p.notes, key)
	}
}

// endPara finishes the innermost open paragraph.
func (r *reader) endPara() {
	p := r.paras[len(r.paras)-1]
	r.paras = r.paras[:len(r.paras)-1]
	nested := len(r.paras) > 0 // a text box's paragraph
	st := r.styles.style(p.styleID)
	raw := p.text.String()

	if r.noteKind != "" {
		if s := xhtml.Collapse(raw); s != "" {
			r.noteText = append(r.noteText, s)
		}
		return
	}
	if tb := r.table(); tb != nil {
		if s := xhtml.Collapse(raw); s != "" {
			tb.cell = append(tb.cell, s)
		}
		r.placeNotes(p)
		return
	}

	level := st.level
	switch {
	case p.outline >= 0 && p.outline <= 8:
		level = p.outline + 1
	case p.outline == 9:
		level = -1
	}
	numID, ilvl := st.numID, st.ilvl
	if p.hasNum {
		numID, ilvl = p.numID, p.ilvl
	}
	marker := ""
	if numID != "" && numID != "0" && strings.TrimSpace(raw) != "" {
		marker = r.numbering.marker(r.counters, numID, ilvl)
	}
	anchor := "p" + strconv.Itoa(p.number)

	switch {
	case level >= 0 && !nested:
		title := xhtml.Collapse(raw)
		if title == "" {
			return
		}
		if marker != "" && marker != "-" {
			title = marker + " " + title
		}
		if level == 0 && r.title == "" {
			r.title = title
		}
		if p.bookmark != "" {
			anchor = "#" + p.bookmark
		}
		r.b.Heading(level, title, anchor)
	case st.kind == doc.Code:
		lines := strings.Split(strings.ReplaceAll(raw, "\r", ""), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(l, " \t")
		}
		r.b.Line(doc.Code, strings.Join(lines, "\n"), anchor)
	case marker != "":
		text := xhtml.Collapse(raw)
		if text == "" {
			return
		}
		r.b.Line(doc.List, strings.Repeat("  ", max(0, min(ilvl, 8)))+marker+" "+text, anchor)
	case st.kind == doc.Quote:
		r.b.Line(doc.Quote, xhtml.CollapseLines(raw), anchor)
	default:
		r.b.Line(doc.Paragraph, xhtml.CollapseLines(raw), anchor)
	}
	r.placeNotes(p)
}

// placeNotes gives the builder the notes a paragraph cites, which go after
// its section's text.
func (r *reader) placeNotes(p *para) {
	for _, key := range p.notes {
		if r.b.Err() != nil {
			return // the book is too large: no more copies of notes
		}
		text := r.notes[key]
		if text == "" {
			continue
		}
		r.b.Note("["+strconv.Itoa(r.noteNums[key])+"] "+text, "")
	}
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
	if len(r.paras) > 0 {
		// A table inside a text box: its rows are text of the box.
		r.paras[len(r.paras)-1].text.WriteString(" " + strings.Join(tb.rows, "\n") + " ")
		return
	}
	r.b.Block(doc.Block{Kind: doc.Table, Text: strings.Join(tb.rows, "\n")})
}

// readNotes reads a footnotes or endnotes part into the text of each
// note, keyed "f3" or "e3". The separators Word keeps there are no notes.
func readNotes(ctx context.Context, a *safezip.Archive, name string, parent *reader) (map[string]string, error) {
	data, err := readPart(a, name)
	if err != nil || data == nil {
		return nil, err
	}
	kind := "f"
	if strings.Contains(strings.ToLower(name), "endnote") {
		kind = "e"
	}
	r := &reader{ctx: ctx, styles: parent.styles, numbering: parent.numbering, counters: make(map[string][]int),
		noteKind: kind, read: make(map[string]string)}
	if err := r.stream(data, name); err != nil {
		return nil, err
	}
	return r.read, nil
}
