package pdf

import (
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// recognisedBlocks lays out the text recognised on a scanned page (0-based
// page): paragraphs separated by blank lines, lines by line breaks, joined
// and mended at hyphens as extracted lines are. A first or last paragraph
// that is only a page number is dropped, as dropFurniture drops one from a
// text layer.
func recognisedBlocks(page int, text string) []block {
	var out []block
	for _, para := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		var joined string
		lines, hyphen := 0, false
		for _, l := range strings.Split(para, "\n") {
			if l = strings.TrimSpace(l); l == "" {
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
