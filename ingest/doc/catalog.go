package doc

import (
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Catalog is what a book's file says of it beyond its title, authors and
// language, where the format has a place for it: an OPF's subjects and
// series, a Kindle book's EXTH records, FB2's genres and sequence, a PDF's
// Info. It is the book's catalogue unless a calibre library describes the
// book, whose description wins.
//
// Files are hostile input: the methods below trim what they are given,
// drop what cannot be a tag or an identifier, and stop at the caps, so
// that a PDF's Keywords full of junk make a few tags at most.
type Catalog struct {
	Publisher string
	// Tags are subjects, keywords and genres, each once whatever its case,
	// in the order the file gives them.
	Tags []string
	// Published is the date the file gives, as ISO 8601 where the format
	// has a date ("1813", "2004-05-01"), else as written.
	Published string
	// Identifiers map a lower-case scheme ("isbn", "uri", "doi", "asin")
	// to the book's identifier in it.
	Identifiers map[string]string
	Series      string
	// SeriesIndex is the book's place in Series; 0 when not given.
	SeriesIndex float64
	// Collections are the paths of the collections a reference manager
	// files the book in ("Thesis/Methods"), each once.
	Collections []string
	// Publication is the journal, proceedings or book a reference
	// manager says the book (an article, a chapter) appeared in.
	Publication string
	// ItemType is what a reference manager calls the book
	// ("journalArticle", "book", "thesis"); "" for other books.
	ItemType string
	// Abstract is the summary a reference manager keeps of the book.
	Abstract string
}

// The caps on what a file may say of itself.
const (
	// MaxTags is how many tags a book keeps: subjects past it are noise.
	MaxTags = 24
	// MaxTagLen is the longest tag, in characters; a longer "keyword" is
	// a sentence, a description, or junk, and is dropped, not clipped.
	MaxTagLen = 64
	// maxField is the longest publisher, series or date, in characters;
	// longer ones are clipped.
	maxField = 200
	// maxCollections is how many collections a book is listed in.
	maxCollections = 64
	// maxCollectionLen is the longest collection path, in characters.
	maxCollectionLen = 1000
	// maxAbstract is the longest abstract, in characters; longer ones
	// are clipped.
	maxAbstract = 8000
	// maxIdentifiers is how many schemes a book keeps identifiers in.
	maxIdentifiers = 8
	// maxIdentifierLen is the longest identifier; a longer one is junk.
	maxIdentifierLen = 256
	// maxSchemeLen is the longest identifier scheme.
	maxSchemeLen = 24
)

// Empty reports whether the catalogue says nothing.
func (c *Catalog) Empty() bool {
	return c.Publisher == "" && len(c.Tags) == 0 && c.Published == "" && len(c.Identifiers) == 0 && c.Series == "" &&
		len(c.Collections) == 0 && c.ItemType == "" && c.Abstract == "" && c.Publication == ""
}

// AddTag adds one tag (an OPF's dc:subject, an FB2 genre), whole: a
// subject such as "Bennet, Elizabeth (Fictitious character) -- Fiction"
// holds commas and is still one tag. It is dropped when empty, too long,
// already there (in any case), or past MaxTags.
func (c *Catalog) AddTag(tag string) {
	// Bullets and list marks before a keyword, and stops after it, are
	// how a PDF's Keywords were typed, not part of the tag.
	tag = strings.TrimRight(strings.TrimLeft(cleanField(tag), "•·‣∙◦▪*–—-#>: "), ".,;: ")
	if tag == "" || utf8.RuneCountInString(tag) > MaxTagLen || len(c.Tags) >= MaxTags {
		return
	}
	for _, t := range c.Tags {
		if strings.EqualFold(t, tag) {
			return
		}
	}
	c.Tags = append(c.Tags, tag)
}

// AddKeywords adds the tags of a keywords field ("poetry, war; 1914"),
// split at commas and semicolons.
func (c *Catalog) AddKeywords(keywords string) {
	for _, k := range strings.FieldsFunc(keywords, func(r rune) bool { return r == ',' || r == ';' }) {
		c.AddTag(k)
	}
}

// SetIdentifier records the book's identifier in scheme, unless it has one
// there already. A scheme that is not a short word of letters, digits and
// ".-_" is dropped, as is an empty or overlong value.
func (c *Catalog) SetIdentifier(scheme, value string) {
	scheme = strings.ToLower(strings.TrimSpace(scheme))
	value = cleanField(value)
	if !validScheme(scheme) || value == "" || utf8.RuneCountInString(value) > maxIdentifierLen {
		return
	}
	if _, ok := c.Identifiers[scheme]; ok {
		return
	}
	if len(c.Identifiers) >= maxIdentifiers {
		return
	}
	if c.Identifiers == nil {
		c.Identifiers = make(map[string]string)
	}
	c.Identifiers[scheme] = value
}

func validScheme(s string) bool {
	if s == "" || len(s) > maxSchemeLen {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// Clean returns the catalogue with every field held to the rules the
// methods above apply, for fields a parser set directly.
func (c Catalog) Clean() Catalog {
	out := Catalog{
		Publisher:   clipField(c.Publisher),
		Published:   clipField(c.Published),
		Series:      clipField(c.Series),
		ItemType:    clipField(c.ItemType),
		Publication: clipField(c.Publication),
		Abstract:    clip(cleanField(c.Abstract), maxAbstract),
	}
	for _, p := range c.Collections {
		p = cleanField(p)
		if p != "" && utf8.RuneCountInString(p) <= maxCollectionLen && len(out.Collections) < maxCollections && !slices.Contains(out.Collections, p) {
			out.Collections = append(out.Collections, p)
		}
	}
	// A file's timestamp says the day at most: calibre's midnight UTC is
	// no time of publication.
	if day := DatePart(out.Published); day != "" {
		out.Published = day
	}
	if out.Series != "" && c.SeriesIndex > 0 && c.SeriesIndex < 1e6 {
		out.SeriesIndex = c.SeriesIndex
	}
	for _, t := range c.Tags {
		out.AddTag(t)
	}
	// In order, so that the cap keeps the same ones every time.
	for _, s := range slices.Sorted(maps.Keys(c.Identifiers)) {
		out.SetIdentifier(s, c.Identifiers[s])
	}
	return out
}

// DatePart returns the ISO 8601 date a timestamp starts with ("2021-03-04"
// of "2021-03-04T10:00:00Z", "1998" of "1998"), or "" when it starts with
// none. A file's creation time says the day at most.
func DatePart(s string) string {
	s = strings.TrimSpace(s)
	digits := func(s string) bool {
		for _, r := range s {
			if r < '0' || r > '9' {
				return false
			}
		}
		return true
	}
	switch {
	case len(s) >= 10 && digits(s[:4]) && s[4] == '-' && digits(s[5:7]) && s[7] == '-' && digits(s[8:10]):
		return s[:10]
	case len(s) >= 7 && digits(s[:4]) && s[4] == '-' && digits(s[5:7]) && (len(s) == 7 || !unicode.IsDigit(rune(s[7]))):
		return s[:7]
	case len(s) >= 4 && digits(s[:4]) && (len(s) == 4 || !unicode.IsDigit(rune(s[4]))):
		return s[:4]
	}
	return ""
}

// cleanField collapses a field's white space and drops control characters.
func cleanField(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// clipField cleans s and clips it to maxField characters.
func clipField(s string) string { return clip(cleanField(s), maxField) }

// clip clips s to n characters, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
