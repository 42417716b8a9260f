package pdf

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Text normalisation. Text is NFC with the Latin typographic ligatures
// (U+FB00–U+FB06) spelled out. NFKC would do the ligatures too, but it also
// rewrites full-width CJK punctuation, superscripts, fractions and the
// like, which change what the reader sees; so NFC plus this small map.
var ligatures = strings.NewReplacer(
	"\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi",
	"\uFB04", "ffl", "\uFB05", "st", "\uFB06", "st",
)

// normalize cleans a block's or a title's text: ligatures, NFC, soft
// hyphens and controls removed, every kind of space a plain one, runs of
// spaces collapsed. Newlines survive when keepLines is set (code).
func normalize(s string, keepLines bool) string {
	if s == "" {
		return s
	}
	s = ligatures.Replace(s)
	if !norm.NFC.IsNormalString(s) {
		s = norm.NFC.String(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == '\n' && keepLines:
			trimTrailingSpace(&b)
			b.WriteByte('\n')
			space = false
			continue
		case r == utf8.RuneError || r == '\u00AD' || r == '\uFEFF' || r == '\u200B' || isStandIn(r):
			continue
		case unicode.IsSpace(r) || r == '\u00A0':
			space = true
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cs, r):
			continue
		}
		if space && b.Len() > 0 && !endsWithNewline(&b) {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

func trimTrailingSpace(b *strings.Builder) {
	s := b.String()
	if t := strings.TrimRight(s, " "); len(t) != len(s) {
		b.Reset()
		b.WriteString(t)
	}
}

func endsWithNewline(b *strings.Builder) bool {
	s := b.String()
	return len(s) > 0 && s[len(s)-1] == '\n'
}

// cleanMeta normalises a metadata string (title, author, label prefix).
func cleanMeta(s string) string { return normalize(s, false) }

// cleanTitle normalises an outline title.
func cleanTitle(s string) string { return normalize(s, false) }

// hyphenMark joins the halves of a word broken at a line end until the
// whole document is known, when dehyphenate decides whether the hyphen
// was a line-break hyphen or part of a compound. It is a Unicode
// noncharacter, which no text contains.
const hyphenMark = '\uFDD0'

// joinLines appends line b to paragraph text a. A line-end hyphen PDFium
// marked (hyphen), or a hyphen between a letter and a lower-case letter,
// joins the halves with hyphenMark; before a capital or a digit it stays
// a hyphen ("non-English"). CJK lines join without a space; other lines
// with one.
func joinLines(a, b string, hyphen bool) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	first, _ := utf8.DecodeRuneInString(b)
	if hyphen {
		if unicode.IsUpper(first) || unicode.IsDigit(first) {
			return a + "-" + b
		}
		return a + string(hyphenMark) + b
	}
	last, lsz := utf8.DecodeLastRuneInString(a)
	if (last == '-' || last == '\u00AD') && lsz < len(a) {
		before, _ := utf8.DecodeLastRuneInString(a[:len(a)-lsz])
		if unicode.IsLetter(before) && unicode.IsLower(first) {
			return a[:len(a)-lsz] + string(hyphenMark) + b
		}
	}
	if isCJK(last) && isCJK(first) {
		return a + b
	}
	return a + " " + b
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}

// endsSentence reports text ending the way a paragraph's last line does.
func endsSentence(s string) bool {
	s = strings.TrimRight(s, " ")
	r, _ := utf8.DecodeLastRuneInString(s)
	return strings.ContainsRune(".!?:;\"”’)»。！？", r)
}

// startsItem reports a line that opens a list item.
func startsItem(s string) bool {
	r, sz := utf8.DecodeRuneInString(s)
	if strings.ContainsRune("•◦▪▫■□●○‣⁃–—*", r) && sz < len(s) && s[sz] == ' ' {
		return true
	}
	// "1.", "2)", "(a)", "iv." followed by a space.
	i := 0
	if i < len(s) && s[i] == '(' {
		i++
	}
	j := i
	for j < len(s) && j-i < 4 && (s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'z' && j-i < 2) {
		j++
	}
	return j > i && j+1 < len(s) && (s[j] == '.' || s[j] == ')') && s[j+1] == ' ' && (s[i] >= '0' && s[i] <= '9' || s[0] == '(')
}

// resolveStandIns replaces the stand-ins for unmapped characters with
// the text the fonts' own maps give, or removes them.
func resolveStandIns(s string, pg *rawPage, fonts map[string]map[uint32]string) string {
	if !strings.ContainsFunc(s, isStandIn) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		k := standInIndex(r)
		if k < 0 {
			b.WriteRune(r)
			continue
		}
		if k >= len(pg.unmapped) {
			continue
		}
		u := pg.unmapped[k]
		name := pg.fonts[u.font]
		codes, ok := fonts[name]
		if !ok {
			codes = fonts[fontFamilyName(name)]
		}
		b.WriteString(codes[u.code])
	}
	return b.String()
}

// dehyphenate settles every hyphenMark in the blocks: the halves are
// joined ("docu-ment" → "document") unless the document itself spells the
// word with a hyphen somewhere inside a line and never without
// ("security-centric").
func dehyphenate(bs []block) {
	marked := false
	for _, b := range bs {
		if strings.ContainsRune(b.text, hyphenMark) {
			marked = true
			break
		}
	}
	if !marked {
		return
	}
	plain, hyphenated := map[string]bool{}, map[string]bool{}
	for _, b := range bs {
		for _, w := range strings.FieldsFunc(b.text, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != hyphenMark
		}) {
			if strings.ContainsRune(w, hyphenMark) {
				continue
			}
			w = strings.ToLower(strings.Trim(w, "-"))
			if strings.Contains(w, "-") {
				hyphenated[w] = true
			} else {
				plain[w] = true
			}
		}
	}
	for i := range bs {
		t := bs[i].text
		if !strings.ContainsRune(t, hyphenMark) {
			continue
		}
		var out strings.Builder
		for {
			k := strings.IndexRune(t, hyphenMark)
			if k < 0 {
				out.WriteString(t)
				break
			}
			left, right := t[:k], t[k+len(string(hyphenMark)):]
			l := lastWord(left)
			r := firstWord(right)
			joined := strings.ToLower(l + r)
			out.WriteString(left)
			if hyphenated[strings.ToLower(l+"-"+r)] && !plain[joined] {
				out.WriteByte('-')
			}
			t = right
		}
		bs[i].text = out.String()
	}
}

func lastWord(s string) string {
	i := strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return s[i+1:]
}

func firstWord(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if i < 0 {
		return s
	}
	return s[:i]
}
