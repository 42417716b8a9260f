package pdf

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/internal/roman"
)

// A printer's slug names the layout job's file and when it was output
// ("14773_01_1-174_r9jm.qxd 2/10/04 3:51 PM Page 15"): a file of a page
// layout program, then a date or a time. Prose names no .qxd file beside
// a clock time, so the two together are taken for a slug.
var (
	layoutFile = regexp.MustCompile(`(?i)\w\.(qxd|qxp|indd|indb|pmd|p65|pm[4-7]|fm|sla)\b`)
	slugDate   = regexp.MustCompile(`\b\d{1,2}/\d{1,2}/\d{2,4}\b`)
	slugTime   = regexp.MustCompile(`(?i)\b\d{1,2}:\d{2}(:\d{2})?\s*[ap]\.?m\b`)
)

// dropPageFurniture removes from text layers what is not the book's text:
// the printer's marks, running heads and footers, and page numbers. It
// returns the body text's font size, which the marks must not sway.
func dropPageFurniture(pages []framedPage) (body float64) {
	dropPrinterMarks(pages)
	body = bodySize(pages)
	dropFurniture(pages, body)
	dropPageNumbers(pages, body)
	return body
}

// isPrinterSlug reports a line of a printer's slug.
func isPrinterSlug(s string) bool {
	return layoutFile.MatchString(s) && (slugDate.MatchString(s) || slugTime.MatchString(s))
}

// isBarLine reports a line drawn in bar glyphs alone (a barcode or
// registration marks set as text: "❚❘ ❙ ❚❘ ❙ ❚"), which says nothing.
func isBarLine(s string) bool {
	bars := 0
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
		case strings.ContainsRune("|¦‖│┃❘❙❚▌▍▎▏▐▕█", r):
			bars++
		default:
			return false
		}
	}
	return bars >= 4
}

// dropPrinterMarks removes from text layers the lines that are the
// printer's and not the book's: slugs and lines of bars, wherever they
// are on the page (a slug stands at the top of one page and the bottom of
// another, often once only, which dropFurniture needs repeated).
func dropPrinterMarks(pages []framedPage) int {
	dropped := 0
	for pi := range pages {
		p := &pages[pi]
		kept := p.lines[:0]
		for _, l := range p.lines {
			if isPrinterSlug(l.text) || isBarLine(l.text) {
				dropped++
				continue
			}
			kept = append(kept, l)
		}
		p.lines = kept
	}
	return dropped
}

// dropPageNumbers removes the page numbers dropFurniture left: those of
// chapter openings, too few for it to call furniture, and those below a
// text block printed with wide margins. A page's highest or lowest line
// that is only a number goes when the number and the page's index differ
// by what they differ by on two other pages at least, as a run of page
// numbers does, or when it stands in the page's outer tenth, no larger
// than body text, and no greater than the count of pages up to it, as a
// page's own number is. A lone "1914" at the foot of page 300 stays, as
// does a number inside the text block.
func dropPageNumbers(pages []framedPage, bodySize float64) int {
	type cand struct {
		page, line int
		offset     string
		sure       bool
	}
	var cands []cand
	shared := map[string]int{}
	for pi, p := range pages {
		top, bottom := -1, -1
		for li, l := range p.lines {
			if l.off {
				continue
			}
			if top < 0 || l.y0 < p.lines[top].y0 {
				top = li
			}
			if bottom < 0 || l.y1 > p.lines[bottom].y1 {
				bottom = li
			}
		}
		ends := []int{top, bottom}
		if top == bottom {
			ends = ends[:1]
		}
		var z []int
		for _, li := range ends {
			if li < 0 {
				continue
			}
			n, kind, ok := pageNumberValue(p.lines[li].text)
			if !ok {
				continue
			}
			if z == nil {
				z = zones(p)
			}
			l := p.lines[li]
			c := cand{page: pi, line: li, offset: kind + " " + strconv.Itoa(n-pi)}
			c.sure = (z[li] == zoneTop || z[li] == zoneBottom) && n <= pi+1 && (bodySize <= 0 || l.size <= 1.15*bodySize)
			cands = append(cands, c)
			shared[c.offset]++
		}
	}
	drop := make(map[[2]int]bool)
	for _, c := range cands {
		if c.sure || shared[c.offset] >= 3 {
			drop[[2]int{c.page, c.line}] = true
		}
	}
	if len(drop) == 0 {
		return 0
	}
	for pi := range pages {
		p := &pages[pi]
		kept := p.lines[:0]
		for li, l := range p.lines {
			if !drop[[2]int{pi, li}] {
				kept = append(kept, l)
			}
		}
		p.lines = kept
	}
	return len(drop)
}

// pageNumberValue reads a line that is only a page number ("17", "- 17
// -", "xiv"): its value, and its kind, arabic or roman, since the two
// run apart.
func pageNumberValue(s string) (int, string, bool) {
	w := strings.Trim(strings.TrimSpace(s), "-–—|. ")
	if w == "" || len(w) > 6 || strings.ContainsAny(w, " \t") {
		return 0, "", false
	}
	n := 0
	for _, r := range w {
		if r < '0' || r > '9' {
			if v := roman.Value(w); v > 0 {
				return v, "roman", true
			}
			return 0, "", false
		}
		n = n*10 + int(r-'0')
	}
	return n, "arabic", n > 0
}
