package mobi

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// words splits text into the tokens the comparison with pandoc counts:
// NFKC-normalized, lower-cased runs of letters, digits and combining marks,
// with each Han, Kana or Hangul character a token of its own.
func words(s string) map[string]int {
	out := make(map[string]int)
	s = norm.NFKC.String(s)
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			out[w.String()]++
			w.Reset()
		}
	}
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			out[string(r)]++
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			w.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return out
}

// wordF1 is the harmonic mean of the precision and recall of got's words
// against want's, counted as multisets.
func wordF1(got, want map[string]int) (f1, precision, recall float64) {
	var g, w, both int
	for k, n := range got {
		g += n
		both += min(n, want[k])
	}
	for _, n := range want {
		w += n
	}
	if g == 0 || w == 0 {
		return 0, 0, 0
	}
	precision, recall = float64(both)/float64(g), float64(both)/float64(w)
	if both == 0 {
		return 0, precision, recall
	}
	return 2 * precision * recall / (precision + recall), precision, recall
}

// documentText is everything of d that the index makes searchable: the
// titles of chapters and sections and the text of every block.
func documentText(d *doc.Document) string {
	var sb strings.Builder
	for _, c := range d.Chapters {
		sb.WriteString(c.Title + "\n")
		for _, s := range c.Sections {
			sb.WriteString(s.Title + "\n")
			for _, b := range s.Blocks {
				sb.WriteString(b.Text + "\n\n")
			}
		}
	}
	return sb.String()
}
