package pdf

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
)

// Zones of a page where running heads, footers, page numbers and margin
// notes live.
const (
	zoneTop = iota + 1
	zoneBottom
	zoneSide
)

// dropFurniture removes running headers and footers, page numbers and
// repeated margin notes: lines near a page's edge whose text, with every
// number blanked out, recurs in the same zone on several pages. Such a
// line must also be no larger than body text, and recur densely enough
// over the pages between its first and last appearance, so that chapter
// openings ("Chapter 3" at the top of a page every twenty pages) stay.
func dropFurniture(pages []framedPage, bodySize float64) int {
	type occ struct {
		pages       []int
		first, last int
	}
	nPages := 0
	for _, p := range pages {
		if len(p.lines) > 0 {
			nPages++
		}
	}
	if nPages < 2 {
		return 0
	}
	minRepeat := min(3, nPages)
	keys := map[string]*occ{}
	cand := make([][]string, len(pages)) // per page, per line: key or ""
	for pi, p := range pages {
		cand[pi] = make([]string, len(p.lines))
		for li, z := range zones(p) {
			l := p.lines[li]
			if z == 0 || (bodySize > 0 && l.size > 1.15*bodySize && !isPageNumber(l.text)) {
				continue
			}
			k := furnitureKey(l.text)
			if k == "" {
				continue
			}
			k = string(rune('0'+z)) + k
			cand[pi][li] = k
			o := keys[k]
			if o == nil {
				o = &occ{first: pi}
				keys[k] = o
			}
			if len(o.pages) == 0 || o.pages[len(o.pages)-1] != pi {
				o.pages = append(o.pages, pi)
			}
			o.last = pi
		}
	}
	dropped := 0
	for pi := range pages {
		p := &pages[pi]
		kept := p.lines[:0]
		for li, l := range p.lines {
			if k := cand[pi][li]; k != "" {
				o := keys[k]
				span := o.last - o.first + 1
				if len(o.pages) >= minRepeat && float64(len(o.pages)) >= 0.25*float64(span) {
					dropped++
					continue
				}
			}
			kept = append(kept, l)
		}
		p.lines = kept
	}
	return dropped
}

// zones returns, per line, the edge zone it sits in, or 0: the top or
// bottom tenth of the page (only the outermost few lines), the outer
// tenth at either side, or any line written across the page's text.
func zones(p framedPage) []int {
	z := make([]int, len(p.lines))
	if p.h <= 0 || p.w <= 0 {
		return z
	}
	idx := make([]int, 0, len(p.lines))
	for i, l := range p.lines {
		switch {
		case l.off || l.x1 < p.w/10 || l.x0 > p.w*9/10:
			z[i] = zoneSide
		default:
			idx = append(idx, i)
		}
	}
	// The three highest and three lowest lines are candidates when they
	// lie in the outer tenth.
	byTop := append([]int(nil), idx...)
	slices.SortStableFunc(byTop, func(a, b int) int { return cmp.Compare(p.lines[a].y0, p.lines[b].y0) })
	for k, i := range byTop {
		if k >= 3 {
			break
		}
		if p.lines[i].y1 <= p.h*0.1 {
			z[i] = zoneTop
		}
	}
	for k := 0; k < 3 && k < len(byTop); k++ {
		i := byTop[len(byTop)-1-k]
		if p.lines[i].y0 >= p.h*0.9 {
			z[i] = zoneBottom
		}
	}
	return z
}

// furnitureKey lowercases a line and blanks its numbers (digits and roman
// numerals), so that "14 FREE CULTURE" and "16 FREE CULTURE" match.
func furnitureKey(s string) string {
	var b strings.Builder
	for _, w := range strings.Fields(strings.ToLower(s)) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if isRoman(strings.Trim(w, ".,:;()[]-–—|")) {
			b.WriteByte('#')
			continue
		}
		digits := false
		for _, r := range w {
			if unicode.IsDigit(r) {
				if !digits {
					b.WriteByte('#')
				}
				digits = true
				continue
			}
			digits = false
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isRoman(w string) bool {
	if w == "" || len(w) > 8 {
		return false
	}
	for _, r := range w {
		if !strings.ContainsRune("ivxlcdm", r) {
			return false
		}
	}
	// Short words that happen to be spelt with these letters.
	switch w {
	case "mid", "dim", "mix", "mill", "civil", "vivid", "lid", "mild", "ill", "dill", "did":
		return false
	}
	return true
}

// isPageNumber reports a line that is only a page number ("12", "xiv",
// "- 3 -", "Page 4 of 9").
func isPageNumber(s string) bool {
	k := furnitureKey(s)
	k = strings.Trim(k, " -–—|.")
	switch k {
	case "#", "page #", "# of #", "page # of #", "# / #":
		return true
	}
	return false
}
