package outline

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/internal/roman"
)

// headingName matches the names word processors give heading styles, in
// English (which Word writes for its built-in styles whatever the language
// of the user, and LibreOffice for its own) and in the languages whose
// tools write their own: "heading 1", "Heading1", "Überschrift 2",
// "Titre 3", "Заголовок 1".
var headingName = regexp.MustCompile(`(?i)^(heading|berschrift|überschrift|titre|titolo|título|titulo|encabezado|kop|rubrik|overskrift|otsikko|nagłówek|nadpis|címsor|başlık|заголовок|标题|標題|見出し|제목)\s*([1-9])$`)

// StyleLevel returns the heading level a paragraph style's name gives: 0
// for the document's title ("Title"), N for a heading N, and false for a
// style of body text.
func StyleLevel(name string) (int, bool) {
	name = strings.TrimSpace(name)
	if strings.EqualFold(name, "title") {
		return 0, true
	}
	if m := headingName.FindStringSubmatch(name); m != nil {
		return int(m[2][0] - '0'), true
	}
	return 0, false
}

// StyleKind returns the kind of block a paragraph style's name makes of
// its paragraphs, and false when the name does not say: code for source
// code and preformatted text, a quote for quotations, a paragraph for the
// styles of plain text, which end a search up the styles a style is based
// on.
func StyleKind(name string) (doc.BlockKind, bool) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "source code", "html preformatted", "code", "verbatim", "plain text", "macro text", "preformatted text":
		return doc.Code, true
	case "quote", "intense quote", "block text", "quotation", "quotations":
		return doc.Quote, true
	case "normal", "body text", "standard", "text body", "default paragraph style", "default style":
		return doc.Paragraph, true
	}
	return doc.Paragraph, false
}

// ListNumber writes n as a list numbers it in format: "lowerLetter" (a, b,
// … z, aa), "upperLetter", "lowerRoman" (i, ii), "upperRoman", else as a
// decimal.
func ListNumber(n int, format string) string {
	switch format {
	case "lowerLetter", "upperLetter":
		if n < 1 {
			break
		}
		s := strings.Repeat(string(rune('a'+(n-1)%26)), (n-1)/26+1)
		if format == "upperLetter" {
			s = strings.ToUpper(s)
		}
		return s
	case "lowerRoman", "upperRoman":
		if n < 1 || n > 3999 {
			break
		}
		s := roman.Format(n)
		if format == "lowerRoman" {
			s = strings.ToLower(s)
		}
		return s
	}
	return strconv.Itoa(n)
}
