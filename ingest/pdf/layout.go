package pdf

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// line is one visual line in its page's reading frame: x runs along the
// text, y down the page, whatever the page's rotation.
type line struct {
	text           string
	x0, y0, x1, y1 float64
	// h is the font height across the line; size the font size.
	h, size    float64
	bold, mono bool
	hyphen     bool
	// off marks a line written in another direction than the page's body
	// (a rotated margin note).
	off    bool
	glyphs int
	// group is the column region the line was read in; paragraphs never
	// cross groups.
	group int
}

func (l line) width() float64 { return l.x1 - l.x0 }

// framedPage is a page's lines in reading frame, w by h points.
type framedPage struct {
	index int
	w, h  float64
	// rotated is set when the page is read sideways: its frame's y axis is
	// not the page's.
	rotated bool
	// left and top place the frame in page space, for destinations.
	left, top float64
	lines     []line
}

// framePage turns a page's fragments into lines in its reading frame: the
// direction most of its characters run in becomes left to right, so that
// a landscape table set sideways reads like any other page.
//
// Text outside the page's crop box (printer's marks, proof line numbers,
// a slug with the file name) is invisible in a viewer and is dropped.
func framePage(index int, pg *rawPage, fonts map[string]map[uint32]string) framedPage {
	left, bottom, right, top := pg.box[0], pg.box[1], pg.box[2], pg.box[3]
	uw, uh := right-left, top-bottom
	var count [3]int
	for _, f := range pg.frags {
		count[f.dir] += f.glyphs
	}
	dom := dirRight
	if count[dirUp] > count[dom] {
		dom = dirUp
	}
	if count[dirDown] > count[dom] {
		dom = dirDown
	}
	fp := framedPage{index: index, w: uw, h: uh, left: left, top: top}
	if dom != dirRight {
		fp.w, fp.h, fp.rotated = uh, uw, true
	}
	var lines []line
	for _, f := range pg.frags {
		if cx, cy := (f.x0+f.x1)/2, (f.y0+f.y1)/2; cx < left-2 || cx > right+2 || cy < bottom-2 || cy > top+2 {
			continue
		}
		text := f.text
		if len(pg.unmapped) > 0 {
			text = resolveStandIns(text, pg, fonts)
		}
		text = normalize(text, false)
		if text == "" {
			continue
		}
		l := line{text: text, h: f.h, size: f.size, bold: f.bold, mono: f.mono,
			hyphen: f.hyphen, off: f.dir != dom, glyphs: f.glyphs}
		switch dom {
		case dirRight:
			l.x0, l.x1, l.y0, l.y1 = f.x0-left, f.x1-left, top-f.y1, top-f.y0
		case dirUp:
			l.x0, l.x1, l.y0, l.y1 = f.y0-bottom, f.y1-bottom, f.x0-left, f.x1-left
		case dirDown:
			l.x0, l.x1, l.y0, l.y1 = top-f.y1, top-f.y0, right-f.x1, right-f.x0
		}
		// Layout measures in ems of the font size; glyph boxes vary with
		// the font (some give the x-height, others ascent to descent).
		if l.size <= 0 {
			l.size = max(l.h, l.y1-l.y0, 1) / 1.15
		}
		l.h = l.size
		lines = append(lines, l)
	}
	fp.lines = mergeRuns(lines)
	return fp
}

// mergeRuns joins consecutive fragments that sit on one visual line:
// PDFium breaks a line at a superscript, a footnote mark, a font change.
func mergeRuns(in []line) []line {
	var out []line
	for _, f := range in {
		if n := len(out); n > 0 {
			c := &out[n-1]
			hh := max(c.h, f.h)
			gap := f.x0 - c.x1
			if !c.off && !f.off && !c.hyphen && sameRow(*c, f) && gap >= -0.5*hh && gap <= 1.6*hh {
				sep := ""
				if gap > 0.15*hh {
					sep = " "
				}
				main := *c
				if f.glyphs > c.glyphs {
					main = f
				}
				merged := main
				merged.text = c.text + sep + f.text
				merged.x0, merged.y0 = min(c.x0, f.x0), min(c.y0, f.y0)
				merged.x1, merged.y1 = max(c.x1, f.x1), max(c.y1, f.y1)
				merged.glyphs = c.glyphs + f.glyphs
				merged.hyphen = f.hyphen
				merged.bold = c.bold && f.bold
				*c = merged
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

func sameRow(a, b line) bool {
	return overlap(a.y0, a.y1, b.y0, b.y1) >= 0.25*min(a.y1-a.y0, b.y1-b.y0)
}

// order sorts a page's lines into reading order and numbers the column
// regions. A page is cut into horizontal bands at lines that cross the
// gutter between columns (a title, an abstract, a wide figure caption);
// within a band each column is read top to bottom, left column first, and
// each column may be cut again (three columns).
func order(lines []line) []line {
	var body, off []line
	for _, l := range lines {
		if l.off {
			off = append(off, l)
		} else {
			body = append(body, l)
		}
	}
	o := orderer{}
	o.cut(body, 0)
	for _, l := range off {
		l.group = o.group
		o.group++
		o.out = append(o.out, l)
	}
	return o.out
}

type orderer struct {
	out   []line
	group int
}

func (o *orderer) cut(lines []line, depth int) {
	if len(lines) == 0 {
		return
	}
	g0, g1, ok := 0.0, 0.0, false
	if depth < 3 {
		g0, g1, ok = gutter(lines)
	}
	if !ok {
		// No columns here; a band of white space across the region (under
		// a title block set in several columns of its own) may still
		// separate parts that have them.
		if top, bottom, ok := hcut(lines); ok {
			o.cut(top, depth)
			o.cut(bottom, depth)
			return
		}
		o.emit(rows(lines))
		return
	}
	sorted := slices.Clone(lines)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].y0 < sorted[j].y0 })
	// A band of white space across both columns ends a band too: a title
	// block set in columns of its own (authors side by side) is read
	// before the text columns below it.
	bandGap := max(medianEm(sorted), 3)
	reach := math.Inf(-1)
	var left, right, span []line
	flushCols := func() {
		if len(left) > 0 || len(right) > 0 {
			o.cut(left, depth+1)
			o.cut(right, depth+1)
			left, right = nil, nil
		}
	}
	flushSpan := func() {
		if len(span) > 0 {
			o.emit(rows(span))
			span = nil
		}
	}
	for _, l := range sorted {
		if l.y0-reach > bandGap {
			flushCols()
			flushSpan()
		}
		reach = max(reach, l.y1)
		tol := 0.5 * l.h
		switch {
		case l.x1 <= g0+tol:
			flushSpan()
			left = append(left, l)
		case l.x0 >= g1-tol:
			flushSpan()
			right = append(right, l)
		default:
			flushCols()
			span = append(span, l)
		}
	}
	flushCols()
	flushSpan()
}

// hcut splits lines at the widest horizontal band of white space that
// runs across all of them, if one is wider than ordinary line spacing.
func hcut(lines []line) (top, bottom []line, ok bool) {
	if len(lines) < 2 {
		return nil, nil, false
	}
	s := slices.Clone(lines)
	sort.SliceStable(s, func(i, j int) bool { return s[i].y0 < s[j].y0 })
	minGap := max(0.8*medianEm(s), 3)
	best, bestGap := -1, minGap
	reach := s[0].y1
	for i := 1; i < len(s); i++ {
		if gap := s[i].y0 - reach; gap > bestGap {
			best, bestGap = i, gap
		}
		reach = max(reach, s[i].y1)
	}
	if best < 0 {
		return nil, nil, false
	}
	return s[:best], s[best:], true
}

func medianEm(lines []line) float64 {
	if len(lines) == 0 {
		return 0
	}
	hs := make([]float64, len(lines))
	for i, l := range lines {
		hs[i] = l.h
	}
	slices.Sort(hs)
	return hs[len(hs)/2]
}

// emit appends lines already in order as one group.
func (o *orderer) emit(lines []line) {
	for _, l := range lines {
		l.group = o.group
		o.out = append(o.out, l)
	}
	o.group++
}

// rows orders lines top to bottom, and lines sharing a row left to right.
func rows(lines []line) []line {
	s := slices.Clone(lines)
	sort.SliceStable(s, func(i, j int) bool { return s[i].y0 < s[j].y0 })
	var out []line
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && sameRow(s[i], s[j]) && s[j].y0 < s[i].y1 {
			j++
		}
		row := s[i:j]
		sort.SliceStable(row, func(a, b int) bool { return row[a].x0 < row[b].x0 })
		out = append(out, row...)
		i = j
	}
	return out
}

// gutter finds the widest vertical strip that no column line crosses, in
// the middle part of the region, with a column's worth of lines on either
// side. Lines wider than most of the region (titles, spanning captions)
// do not count: they are what cuts the page into bands.
func gutter(lines []line) (g0, g1 float64, ok bool) {
	if len(lines) < 6 {
		return 0, 0, false
	}
	minX, maxX := math.Inf(1), math.Inf(-1)
	var hs []float64
	for _, l := range lines {
		minX, maxX = min(minX, l.x0), max(maxX, l.x1)
		hs = append(hs, l.h)
	}
	width := maxX - minX
	if width <= 0 {
		return 0, 0, false
	}
	slices.Sort(hs)
	em := hs[len(hs)/2]
	type iv struct{ a, b float64 }
	var narrow []iv
	for _, l := range lines {
		if l.width() < 0.6*width {
			narrow = append(narrow, iv{l.x0, l.x1})
		}
	}
	if len(narrow) < 6 {
		return 0, 0, false
	}
	sort.Slice(narrow, func(i, j int) bool { return narrow[i].a < narrow[j].a })
	// Sweep the union of the narrow lines' extents for gaps.
	best, bestW := iv{}, 0.0
	reach := narrow[0].b
	for _, n := range narrow[1:] {
		if n.a > reach {
			gap := iv{reach, n.a}
			mid := (gap.a + gap.b) / 2
			if w := gap.b - gap.a; w > bestW && mid > minX+0.2*width && mid < maxX-0.2*width {
				best, bestW = gap, w
			}
		}
		reach = max(reach, n.b)
	}
	if bestW < max(0.8*em, 4) {
		return 0, 0, false
	}
	var nl, nr int
	var ly0, ly1, ry0, ry1 = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		switch {
		case l.x1 <= best.a+0.5*l.h:
			nl++
			ly0, ly1 = min(ly0, l.y0), max(ly1, l.y1)
		case l.x0 >= best.b-0.5*l.h:
			nr++
			ry0, ry1 = min(ry0, l.y0), max(ry1, l.y1)
		}
	}
	if nl < 3 || nr < 3 {
		return 0, 0, false
	}
	// Both sides must run down the page side by side, not one above the
	// other (a short centred title over a paragraph).
	if overlap(ly0, ly1, ry0, ry1) < 0.3*min(ly1-ly0, ry1-ry0) {
		return 0, 0, false
	}
	return best.a, best.b, true
}

// block is a paragraph (or a run of code) on one page.
type block struct {
	page           int // 0-based
	text           string
	kind           doc.BlockKind
	x0, y0, x1, y1 float64
	size           float64
	bold           bool
	lines          int
	group          int
	// hyphen is set when the last line ends inside a word.
	hyphen bool
}

// paragraphs groups ordered lines into blocks: a new block starts at a
// wider gap than the column's line spacing, at a change of font size or
// weight, at a first-line indent, after a short line that ends a
// sentence, at a list bullet, and at every change of column region.
func paragraphs(page int, lines []line) []block {
	var out []block
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && lines[j].group == lines[i].group {
			j++
		}
		out = append(out, groupParagraphs(page, lines[i:j])...)
		i = j
	}
	return out
}

func groupParagraphs(page int, ls []line) []block {
	if len(ls) == 0 {
		return nil
	}
	left, right := columnEdges(ls)
	lead := medianLeading(ls)
	flushLeft := 0
	for _, l := range ls {
		if l.x0 < left+0.5*l.h {
			flushLeft++
		}
	}
	indentMatters := flushLeft*2 >= len(ls)
	var out []block
	var cur *block
	var text strings.Builder
	var prev line
	var codeLines []string
	finish := func() {
		if cur == nil {
			return
		}
		if cur.kind == doc.Code {
			cur.text = strings.Join(codeLines, "\n")
		} else {
			cur.text = text.String()
		}
		cur.text = normalize(cur.text, cur.kind == doc.Code)
		if cur.text != "" {
			out = append(out, *cur)
		}
		cur = nil
		text.Reset()
		codeLines = nil
	}
	for k, l := range ls {
		if cur != nil && breaksParagraph(prev, l, left, right, lead, indentMatters, k) {
			finish()
		}
		if cur == nil {
			cur = &block{page: page, kind: doc.Paragraph, x0: l.x0, y0: l.y0, x1: l.x1, y1: l.y1,
				size: l.size, bold: l.bold, group: l.group}
			if l.mono {
				cur.kind = doc.Code
			}
		}
		if cur.kind == doc.Code {
			codeLines = append(codeLines, l.text)
		} else {
			s := joinLines(text.String(), l.text, prev.hyphen && cur.lines > 0)
			text.Reset()
			text.WriteString(s)
		}
		cur.lines++
		cur.x0, cur.y0 = min(cur.x0, l.x0), min(cur.y0, l.y0)
		cur.x1, cur.y1 = max(cur.x1, l.x1), max(cur.y1, l.y1)
		cur.bold = cur.bold && l.bold
		cur.size = max(cur.size, l.size)
		cur.hyphen = l.hyphen || endsInHyphen(l.text)
		prev = l
	}
	finish()
	return out
}

func breaksParagraph(prev, l line, left, right, lead float64, indentMatters bool, k int) bool {
	h := max(prev.h, l.h)
	gap := l.y0 - prev.y1
	step := l.y1 - prev.y1
	switch {
	case gap > 0.9*h:
		return true
	case gap < -0.6*h && !sameRow(prev, l):
		// Going back up: reading order jumped (a figure label, a margin).
		return true
	case lead > 0 && step > 1.5*lead && step > 1.2*h:
		return true
	case math.Abs(l.size-prev.size) > 0.15*max(l.size, prev.size):
		return true
	case l.bold != prev.bold && (prev.width() < 0.9*(right-left) || l.width() < 0.9*(right-left)):
		// A bold line next to a plain one is a heading; only a bold run
		// spanning whole lines of a paragraph is not.
		return true
	case l.mono != prev.mono:
		return true
	case prev.x1 < right-3*prev.h && endsSentence(prev.text) && !prev.hyphen:
		return true
	case indentMatters && l.x0 > left+0.8*l.h && prev.x0 < left+0.4*prev.h && l.x0-left < 0.3*(right-left):
		return true
	case startsItem(l.text) && l.x0 <= prev.x0+0.5*h:
		return true
	}
	return false
}

// columnEdges are the left and right edges most lines of a column share.
func columnEdges(ls []line) (left, right float64) {
	xs0 := make([]float64, len(ls))
	xs1 := make([]float64, len(ls))
	for i, l := range ls {
		xs0[i], xs1[i] = l.x0, l.x1
	}
	slices.Sort(xs0)
	slices.Sort(xs1)
	return xs0[len(xs0)/10], xs1[len(xs1)-1-len(xs1)/10]
}

// medianLeading is the median baseline step between consecutive lines of
// the same size that follow each other closely.
func medianLeading(ls []line) float64 {
	var steps []float64
	for i := 1; i < len(ls); i++ {
		a, b := ls[i-1], ls[i]
		step := b.y1 - a.y1
		if step > 0.5*a.h && step < 3*a.h && math.Abs(a.size-b.size) < 0.1*a.size {
			steps = append(steps, step)
		}
	}
	if len(steps) < 3 {
		return 0
	}
	slices.Sort(steps)
	return steps[len(steps)/2]
}

func endsInHyphen(s string) bool {
	r, sz := utf8.DecodeLastRuneInString(s)
	if r != '-' || sz >= len(s) {
		return false
	}
	before, _ := utf8.DecodeLastRuneInString(s[:len(s)-sz])
	return unicode.IsLetter(before)
}
