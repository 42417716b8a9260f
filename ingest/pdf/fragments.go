package pdf

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/ingest/pdf/internal/pdfium"
)

// Line direction of a fragment, in page space.
const (
	dirRight = iota // ordinary horizontal text (also right-to-left scripts)
	dirUp           // rotated a quarter turn counter-clockwise
	dirDown         // rotated a quarter turn clockwise
)

// fragment is a run of characters on one visual line, as PDFium delivered
// them: PDFium's own line breaks, and jumps to another line that it did
// not mark (it joins the halves of a hyphenated word across lines), end a
// fragment. Later stages merge fragments of one line and order them.
type fragment struct {
	text string
	// Box in page space (origin bottom left).
	x0, y0, x1, y1 float64
	dir            int
	// h is the font's height across the line (ascent to descent).
	h float64
	// hyphen marks a fragment that ends in a hyphen PDFium recognised as
	// breaking a word at the end of a line.
	hyphen bool
	// first and last are character indices to sample the font from.
	first, last int
	glyphs      int
	// gaps between glyphs that may be word spaces (see spaceGaps).
	gaps []gapAt
	// Font, from PDFium; size 0 when unknown.
	size       float64
	bold, mono bool
}

// Stand-ins stand for characters PDFium could not map to Unicode: the
// rune indexes the page's list of such characters (font and raw code), so
// that the fonts' own maps, read by pdfcpu, can replace them once known.
// They use the supplementary private use planes, which no text of ours
// needs.
const (
	standInA    = 0xF0000
	standInAEnd = 0xFFFFD
	standInB    = 0x100000
	standInBEnd = 0x10FFFD
	maxStandIns = (standInAEnd - standInA + 1) + (standInBEnd - standInB + 1)
)

func standIn(k int) rune {
	switch {
	case k < 0 || k >= maxStandIns:
		return -1
	case k <= standInAEnd-standInA:
		return rune(standInA + k)
	}
	return rune(standInB + k - (standInAEnd - standInA + 1))
}

func standInIndex(r rune) int {
	switch {
	case r >= standInA && r <= standInAEnd:
		return int(r - standInA)
	case r >= standInB && r <= standInBEnd:
		return int(r-standInB) + (standInAEnd - standInA + 1)
	}
	return -1
}

func isStandIn(r rune) bool { return standInIndex(r) >= 0 }

// suspicious reports runes that only appear when PDFium fell back to the
// raw character code: C0 and C1 controls. U+0002 is PDFium's own marker of
// a line-end hyphen and is handled apart.
func suspicious(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != 2) || (r >= 0x7F && r <= 0x9F)
}

type box struct{ x0, y0, x1, y1 float64 }

func (b box) w() float64 { return b.x1 - b.x0 }
func (b box) h() float64 { return b.y1 - b.y0 }

// overlap is the length two intervals share (negative when apart).
func overlap(a0, a1, b0, b1 float64) float64 { return min(a1, b1) - max(a0, b0) }

// buildFragments groups a page's characters into fragments. Characters
// PDFium could not map must already be replaced by stand-ins (or by
// -1, to drop them).
//
// Where glyphs follow each other without a space but with a gap, the gap
// is recorded; spaceGaps later turns the wide ones into spaces, once the
// font size is known.
func buildFragments(chars []pdfium.Char) []fragment {
	accents := placeAccents(chars)
	var (
		out     []fragment
		cur     *fragment
		text    strings.Builder
		heights []float64
		prev    box // last glyph with a box
		space   bool
		brk     = true
	)
	flush := func() {
		if cur == nil {
			return
		}
		full := text.String()
		cur.text = strings.TrimRightFunc(full, unicode.IsSpace)
		for len(cur.gaps) > 0 && cur.gaps[len(cur.gaps)-1].at >= len(cur.text) {
			cur.gaps = cur.gaps[:len(cur.gaps)-1]
		}
		if len(heights) > 0 {
			slices.Sort(heights)
			cur.h = heights[len(heights)/2]
		}
		if strings.TrimSpace(cur.text) != "" && cur.glyphs > 0 {
			out = append(out, *cur)
		}
		cur = nil
		text.Reset()
		heights = heights[:0]
	}
	for i, c := range chars {
		r := c.Rune
		switch {
		case r == '\r' || r == '\n':
			brk = true
			continue
		case r == 2:
			// PDFium turns a hyphen that ends a line inside a word into
			// U+0002 and goes straight on with the next line.
			if cur != nil {
				cur.hyphen = true
			}
			brk = true
			continue
		case r < 0 || r == 0xFFFD || r == 0xFEFF || r == 0:
			continue
		case unicode.IsSpace(r) || r == '\u200b':
			space = true
			continue
		}
		if _, ok := accents.placed[i]; ok {
			// The accent went onto its letter.
			continue
		}
		b := box{float64(c.Left), float64(c.Bottom), float64(c.Right), float64(c.Top)}
		hasBox := !c.NoBox && b.w() >= 0 && b.h() >= 0 && (b.w() > 0 || b.h() > 0) && finite(b)
		if !hasBox {
			// A mark or a glyph without geometry rides on the previous one.
			if cur != nil {
				if space {
					text.WriteByte(' ')
					space = false
				}
				text.WriteRune(r)
			}
			continue
		}
		gap := 0.0
		if cur != nil && !brk {
			if d, ok := continues(cur, prev, b, len(heights) == 1); ok {
				if cur.glyphs == 1 {
					cur.dir = d
				}
				gap = glyphGap(cur.dir, prev, b)
			} else {
				brk = true
			}
		}
		if brk || cur == nil {
			flush()
			cur = &fragment{x0: b.x0, y0: b.y0, x1: b.x1, y1: b.y1, first: -1, last: -1}
			space, brk, gap = false, false, 0
		}
		if space {
			text.WriteByte(' ')
			space = false
		} else if gap > 0 {
			cur.gaps = append(cur.gaps, gapAt{at: text.Len(), w: gap})
		}
		text.WriteRune(r)
		for _, m := range accents.on[i] {
			text.WriteRune(m)
		}
		cur.glyphs++
		cur.x0, cur.y0 = min(cur.x0, b.x0), min(cur.y0, b.y0)
		cur.x1, cur.y1 = max(cur.x1, b.x1), max(cur.y1, b.y1)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if cur.first < 0 {
				cur.first = i
			}
			cur.last = i
		}
		if cur.dir == dirRight {
			heights = append(heights, b.h())
		} else {
			heights = append(heights, b.w())
		}
		if cur.glyphs == 2 && cur.dir != dirRight {
			// The first glyph was measured the wrong way.
			heights[0] = heights[1]
		}
		prev = b
	}
	flush()
	return out
}

// gapAt is a gap before the byte offset at in a fragment's text.
type gapAt struct {
	at int
	w  float64
}

// spaceGaps inserts a space at every recorded gap wider than an eighth of
// an em: kerning stays well below that, the narrowest word space in
// justified text above it. PDFium's own spaces miss some (after a full
// stop, in text set with explicit positioning).
func (f *fragment) spaceGaps() {
	if len(f.gaps) == 0 || f.size <= 0 {
		return
	}
	var b strings.Builder
	last := 0
	for _, g := range f.gaps {
		if g.w <= 0.125*f.size || g.at <= last || g.at > len(f.text) {
			continue
		}
		b.WriteString(f.text[last:g.at])
		b.WriteByte(' ')
		last = g.at
	}
	if last == 0 {
		return
	}
	b.WriteString(f.text[last:])
	f.text = b.String()
	f.gaps = nil
}

// accents says which spacing accents (¨ ´ ˆ …) were drawn over a letter
// rather than set on their own, as TeX builds accented letters for fonts
// without them: placed holds the accents' indices, on the combining marks
// to write after each letter.
type accents struct {
	placed map[int]struct{}
	on     map[int][]rune
}

var spacingAccents = map[rune]rune{
	'\u00A8': '\u0308', '\u00B4': '\u0301', '`': '\u0300', '\u02C6': '\u0302', '^': '\u0302',
	'\u02DC': '\u0303', '~': '\u0303', '\u00AF': '\u0304', '\u02D8': '\u0306', '\u02D9': '\u0307',
	'\u02DA': '\u030A', '\u00B8': '\u0327', '\u02DB': '\u0328', '\u02C7': '\u030C', '\u02DD': '\u030B',
}

// placeAccents finds spacing accents whose box lies over most of a
// letter's: an accent set on its own advances past its neighbours and
// overlaps none. The letter must be on the same line and near in PDFium's
// order.
func placeAccents(chars []pdfium.Char) accents {
	var a accents
	for i, c := range chars {
		mark, ok := spacingAccents[c.Rune]
		if !ok || c.NoBox || c.Right <= c.Left {
			continue
		}
		best, bestOv := -1, 0.0
		for j := max(0, i-64); j < min(len(chars), i+64); j++ {
			d := chars[j]
			if j == i || d.NoBox || !unicode.IsLetter(d.Rune) || d.Right <= d.Left {
				continue
			}
			ov := overlap(float64(c.Left), float64(c.Right), float64(d.Left), float64(d.Right))
			w := float64(min(c.Right-c.Left, d.Right-d.Left))
			vov := overlap(float64(c.Bottom), float64(c.Top), float64(d.Bottom), float64(d.Top))
			if ov >= 0.6*w && vov > 0 && ov > bestOv {
				best, bestOv = j, ov
			}
		}
		if best < 0 {
			continue
		}
		if a.placed == nil {
			a.placed, a.on = map[int]struct{}{}, map[int][]rune{}
		}
		a.placed[i] = struct{}{}
		a.on[best] = append(a.on[best], mark)
	}
	return a
}

func finite(b box) bool {
	for _, v := range []float64{b.x0, b.y0, b.x1, b.y1} {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e6 {
			return false
		}
	}
	return true
}

// continues reports whether glyph b goes on the fragment whose last glyph
// is prev, and in which direction. The direction is settled by the second
// glyph (decide); later glyphs must follow it.
func continues(f *fragment, prev, b box, decide bool) (int, bool) {
	if b == prev {
		// Several characters from one glyph (a ligature, a one-to-many
		// mapping) share its box.
		return f.dir, true
	}
	horizontal := func() bool {
		h := min(prev.h(), b.h())
		if h <= 0 || overlap(prev.y0, prev.y1, b.y0, b.y1) < 0.4*h {
			// Superscripts and subscripts overlap less; they are merged
			// back with their line later.
			return false
		}
		em := max(prev.h(), b.h())
		gap := b.x0 - prev.x1
		if gap > 1.6*em {
			return false
		}
		// Right-to-left runs, kerning and overstruck accents go back a
		// little; a jump back to the start of the line does not.
		return b.x1 >= prev.x0-1.6*em
	}
	vertical := func(up bool) bool {
		w := min(prev.w(), b.w())
		if w <= 0 || overlap(prev.x0, prev.x1, b.x0, b.x1) < 0.4*w {
			return false
		}
		em := max(prev.w(), b.w())
		if up {
			return b.y0 >= prev.y1-0.5*em && b.y0-prev.y1 <= 1.6*em
		}
		return b.y1 <= prev.y0+0.5*em && prev.y0-b.y1 <= 1.6*em
	}
	if decide {
		switch {
		case horizontal():
			return dirRight, true
		case vertical(true):
			return dirUp, true
		case vertical(false):
			return dirDown, true
		}
		return 0, false
	}
	switch f.dir {
	case dirUp:
		return dirUp, vertical(true)
	case dirDown:
		return dirDown, vertical(false)
	}
	return dirRight, horizontal()
}

// glyphGap is the space between two glyphs along the line.
func glyphGap(dir int, prev, b box) float64 {
	switch dir {
	case dirUp:
		return b.y0 - prev.y1
	case dirDown:
		return prev.y0 - b.y1
	}
	return b.x0 - prev.x1
}

// applyStyle fills in a fragment's font from sampled characters.
func (f *fragment) applyStyle(a, b pdfium.Style, hasB bool) {
	f.size = float64(a.Size)
	bold := isBold(a)
	mono := isMono(a)
	if hasB {
		f.size = max(f.size, float64(b.Size))
		bold = bold && isBold(b)
		mono = mono && isMono(b)
	}
	// Generated characters and some Type 3 fonts report a size of 1 or 0;
	// the box then tells more.
	if f.size <= 1.5 || f.size > 10*f.h+1 {
		f.size = f.h / 1.15
	}
	f.bold, f.mono = bold, mono
}

func isBold(s pdfium.Style) bool {
	if s.Weight >= 600 {
		return true
	}
	if s.Flags&(1<<18) != 0 { // ForceBold
		return true
	}
	n := strings.ToLower(fontFamilyName(s.Font))
	for _, k := range []string{"bold", "black", "heavy", "semibold", "demi", "-bd", "cmbx", "sfbx"} {
		if strings.Contains(n, k) {
			return true
		}
	}
	return false
}

func isMono(s pdfium.Style) bool {
	if s.Flags&1 != 0 {
		return true
	}
	n := strings.ToLower(fontFamilyName(s.Font))
	for _, k := range []string{"mono", "courier", "consol", "cmtt", "inconsolata", "menlo", "sfmono", "typewriter", "code"} {
		if strings.Contains(n, k) {
			return true
		}
	}
	return false
}

// fontFamilyName strips a subset prefix ("ABCDEF+Times-Bold").
func fontFamilyName(name string) string {
	if i := strings.IndexByte(name, '+'); i == 6 {
		return name[7:]
	}
	return name
}
