package text

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// Project Gutenberg headers name the book: "Title: …" fields, or in old
// files only a sentence. Where the header and footer lie is doc's rule
// (doc.FindGutenberg), the same for every format.
var (
	pgField = regexp.MustCompile(`^([A-Za-z][A-Za-z ]{0,30}?)\s*:\s*(.*)$`)
	// "The Project Gutenberg EBook of Candide, by Voltaire": the only title
	// line some old files have.
	pgTitleLine = regexp.MustCompile(`(?i)project gutenberg(?:['’]s)?\s+e-?(?:book|text)\s+of\s+(.+?)(?:,?\s+by\s+(.+?))?\s*$`)
)

// metadata is what a header says about the book.
type metadata struct {
	title    string
	authors  []string
	language string
}

// gutenberg is the result of looking for Project Gutenberg framing.
type gutenberg struct {
	meta  metadata
	start int // index of the first line of the book proper
	end   int // index just past its last line
	found bool
}

// findGutenberg locates the book between the licence header and footer,
// and reads what the header says about it.
func findGutenberg(lines []string) gutenberg {
	f := doc.FindGutenberg(lines)
	g := gutenberg{start: f.Start, end: f.End, found: f.Found(len(lines))}
	if f.Header >= 0 {
		g.meta = headerFields(lines[:f.Header])
	}
	if g.found && g.meta.title == "" {
		// Old headers have no "Title:" field, only a sentence naming the
		// book; it may also open the body.
		g.meta.fillFromTitleLine(lines[:min(g.start+12, g.end)])
	}
	return g
}

// headerFields reads "Key: value" lines, with indented continuation lines,
// from a Gutenberg header.
func headerFields(lines []string) metadata {
	var m metadata
	key := ""
	var values []string
	flush := func() {
		switch key {
		case "title":
			if m.title == "" {
				m.title = normalizeMeta(strings.Join(values, " "))
			}
		case "author", "authors":
			if len(m.authors) == 0 {
				// Newer headers put each further author on its own
				// continuation line.
				for _, v := range values {
					m.authors = append(m.authors, splitAuthors(v)...)
				}
			}
		case "language":
			if m.language == "" {
				m.language = languageTag(strings.Join(values, " "))
			}
		}
		key, values = "", nil
	}
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			flush()
			continue
		}
		if key != "" && (l[0] == ' ' || l[0] == '\t') {
			values = append(values, strings.TrimSpace(l))
			continue
		}
		flush()
		if f := pgField.FindStringSubmatch(l); f != nil {
			key = strings.ToLower(f[1])
			if v := strings.TrimSpace(f[2]); v != "" {
				values = append(values, v)
			}
		}
	}
	flush()
	return m
}

func (m *metadata) fillFromTitleLine(lines []string) {
	for i, l := range lines {
		f := pgTitleLine.FindStringSubmatch(l)
		if f == nil {
			continue
		}
		m.title = normalizeMeta(strings.TrimRight(f[1], " ,"))
		author := f[2]
		if author == "" && i+1 < len(lines) {
			// "The Project Gutenberg Etext of Candide" / "by Voltaire"
			if next := strings.TrimSpace(lines[i+1]); len(next) > 3 && strings.EqualFold(next[:3], "by ") {
				author = next[3:]
			}
		}
		if len(m.authors) == 0 && author != "" {
			m.authors = splitAuthors(author)
		}
		return
	}
}

// splitAuthors splits "A and B" or "A; B" into names, but only when every
// part still looks like a full name, so "Jacob and Wilhelm Grimm" stays one.
func splitAuthors(s string) []string {
	s = normalizeMeta(s)
	if s == "" {
		return nil
	}
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '&' })
	var out []string
	for _, p := range parts {
		out = append(out, splitOnAnd(strings.TrimSpace(p))...)
	}
	for _, p := range out {
		if len(strings.Fields(p)) < 2 && len(out) > 1 {
			return []string{s}
		}
	}
	return out
}

func splitOnAnd(s string) []string {
	var out []string
	for {
		i := strings.Index(s, " and ")
		if i < 0 {
			break
		}
		if p := strings.TrimSpace(s[:i]); p != "" {
			out = append(out, strings.TrimRight(p, ","))
		}
		s = s[i+5:]
	}
	if p := strings.TrimSpace(s); p != "" {
		out = append(out, p)
	}
	return out
}

// normalizeMeta tidies a title or author for display and matching: runs of
// whitespace become one space, and typographic apostrophes become ASCII ones,
// which is what users type and what EPUB metadata of the same books uses.
func normalizeMeta(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '’', '‘', 'ʼ':
			return '\''
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// languageNames maps the English language names Gutenberg headers use to
// BCP 47 tags.
var languageNames = map[string]string{
	"afrikaans": "af", "arabic": "ar", "basque": "eu", "bengali": "bn",
	"bulgarian": "bg", "catalan": "ca", "chinese": "zh", "croatian": "hr",
	"czech": "cs", "danish": "da", "dutch": "nl", "english": "en",
	"esperanto": "eo", "estonian": "et", "finnish": "fi", "french": "fr",
	"frisian": "fy", "galician": "gl", "german": "de", "greek": "el",
	"hebrew": "he", "hindi": "hi", "hungarian": "hu", "icelandic": "is",
	"irish": "ga", "italian": "it", "japanese": "ja", "korean": "ko",
	"latin": "la", "latvian": "lv", "lithuanian": "lt", "middle english": "enm",
	"norwegian": "no", "old english": "ang", "persian": "fa", "polish": "pl",
	"portuguese": "pt", "romanian": "ro", "russian": "ru", "sanskrit": "sa",
	"serbian": "sr", "slovak": "sk", "slovenian": "sl", "spanish": "es",
	"swedish": "sv", "tagalog": "tl", "turkish": "tr", "ukrainian": "uk",
	"welsh": "cy", "yiddish": "yi",
}

// languageTag turns a header's "English" (or "en", or "English, French") into
// a BCP 47 tag; it returns "" for names it does not know rather than guess.
func languageTag(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexAny(s, ",;/&("); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, " and "); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if tag, ok := languageNames[s]; ok {
		return tag
	}
	if isLanguageCode(s) {
		return s
	}
	return ""
}

// isLanguageCode accepts a bare BCP 47 primary subtag with optional
// subtags ("en", "pt-br").
func isLanguageCode(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts[0]) < 2 || len(parts[0]) > 3 {
		return false
	}
	for i, p := range parts {
		if p == "" || len(p) > 8 {
			return false
		}
		for _, r := range p {
			if r > unicode.MaxASCII || !(unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
				return false
			}
		}
	}
	return true
}
