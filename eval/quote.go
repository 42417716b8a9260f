package eval

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Normalize puts text in the form quotes are matched in. The same passage
// comes out of different extractors (pdftotext, PDFium, an XHTML strip,
// pandoc) with different typography, so everything that varies between
// them without changing the words is made one: compatibility forms
// (ligatures, full-width letters, the ellipsis character) by NFKC, case by
// Unicode case folding, typographic quotes and apostrophes to ' and ",
// dashes and minus signs to -, soft hyphens and zero-width characters
// dropped, and every run of white space (non-breaking spaces and line
// breaks included) to one space.
func Normalize(s string) string {
	s = cases.Fold().String(norm.NFKC.String(s))
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		switch r {
		case '\u00ad', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
			continue // soft hyphen, zero-width characters, BOM
		case '\u2018', '\u2019', '\u201a', '\u201b', '\u2032', '\u02bc':
			r = '\''
		case '\u201c', '\u201d', '\u201e', '\u201f', '\u2033', '\u00ab', '\u00bb':
			r = '"'
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\ufe58', '\ufe63':
			r = '-'
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// containsNormalized reports whether text holds quote, both already
// Normalized, starting and ending on word boundaries: a quote that begins
// or ends with a letter or digit does not match inside a longer word.
func containsNormalized(text, quote string) bool {
	if quote == "" {
		return false
	}
	for from := 0; from <= len(text)-len(quote); {
		i := strings.Index(text[from:], quote)
		if i < 0 {
			return false
		}
		start := from + i
		end := start + len(quote)
		if boundary(text[:start], quote, true) && boundary(text[end:], quote, false) {
			return true
		}
		from = start + 1
	}
	return false
}

// boundary reports whether the text beside a match (before it when atStart)
// leaves the quote's edge a word boundary.
func boundary(beside, quote string, atStart bool) bool {
	var edge, next rune
	if atStart {
		edge = firstRune(quote)
		next = lastRune(beside)
	} else {
		edge = lastRune(quote)
		next = firstRune(beside)
	}
	return next == 0 || !isWordRune(edge) || !isWordRune(next)
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

func firstRune(s string) rune {
	if s == "" {
		return 0
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	if s == "" {
		return 0
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// ContainsQuote reports whether text holds quote once both are Normalized,
// on word boundaries.
func ContainsQuote(text, quote string) bool {
	return containsNormalized(Normalize(text), Normalize(quote))
}
