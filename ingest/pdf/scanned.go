package pdf

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// recognisedBlocks lays out the text recognised on a scanned page (0-based
// page): paragraphs separated by blank lines, lines by line breaks, joined
// and mended at hyphens as extracted lines are. A first or last paragraph
// that is only a page number is dropped, as dropFurniture drops one from a
// text layer, and so are a printer's slug and lines of bars.
func recognisedBlocks(page int, text string) []block {
	var out []block
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		var joined string
		lines, hyphen := 0, false
		for _, l := range strings.Split(para, "\n") {
			if l = strings.TrimSpace(l); l == "" || isPrinterSlug(l) || isBarLine(l) {
				continue
			}
			joined = joinLines(joined, l, false)
			hyphen = endsInHyphen(l)
			lines++
		}
		joined = normalize(joined, false)
		if joined == "" {
			continue
		}
		out = append(out, block{page: page, kind: doc.Paragraph, text: joined, lines: lines, hyphen: hyphen})
	}
	for len(out) > 0 && pageNumberLike(out[0].text) {
		out = out[1:]
	}
	for len(out) > 0 && pageNumberLike(out[len(out)-1].text) {
		out = out[:len(out)-1]
	}
	return out
}

// pageNumberLike: digits or a roman numeral, perhaps between dashes.
func pageNumberLike(s string) bool {
	s = strings.Trim(s, " -–—")
	if s == "" || len(s) > 8 {
		return false
	}
	digits := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
	roman := strings.IndexFunc(strings.ToLower(s), func(r rune) bool { return !strings.ContainsRune("ivxlc", r) }) < 0
	return digits || roman
}

// dropScanFurniture removes running heads and footers from recognised
// pages, in page order, by the rule dropFurniture applies to text layers:
// a page's first or last paragraph whose text, numbers blanked, recurs in
// the same place on several pages, densely enough between its first and
// last page. OCR gives no font sizes, so a paragraph of more than a line
// or of more than 100 characters is never taken for one.
func dropScanFurniture(pages [][]block) {
	type occ struct{ pages, first, last int }
	keys := map[string]*occ{}
	key := func(pi, at int) string {
		bs := pages[pi]
		if at < 0 {
			at = len(bs) - 1
		}
		if at < 0 || at >= len(bs) || bs[at].lines > 1 || len(bs[at].text) > 100 {
			return ""
		}
		if k := furnitureKey(bs[at].text); k != "" {
			return fmt.Sprintf("%d%s", min(at, 1), k)
		}
		return ""
	}
	for pi := range pages {
		seen := map[string]bool{}
		for _, at := range []int{0, -1} {
			k := key(pi, at)
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			o := keys[k]
			if o == nil {
				o = &occ{first: pi}
				keys[k] = o
			}
			o.pages++
			o.last = pi
		}
	}
	furniture := func(k string) bool {
		o := keys[k]
		return k != "" && o.pages >= min(3, len(pages)) && o.pages >= 2 && float64(o.pages) >= 0.25*float64(o.last-o.first+1)
	}
	for pi := range pages {
		last, first := key(pi, -1), key(pi, 0)
		bs := pages[pi]
		if len(bs) > 1 && furniture(last) {
			bs = bs[:len(bs)-1]
		}
		if len(bs) > 0 && furniture(first) {
			bs = bs[1:]
		}
		pages[pi] = bs
	}
}
