// Package meta reads the metadata that book formats share: the Dublin Core
// description of an OPF package document (EPUB's, calibre's metadata.opf)
// and BCP 47 language tags.
package meta

import (
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/language"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
)

// Info is a book's description.
type Info struct {
	Title      string
	Authors    []string
	Language   string
	Identifier string
	Date       string
	// Publisher and Tags (dc:subject) as the package gives them.
	Publisher string
	Tags      []string
	// Series and SeriesIndex are calibre's (calibre:series metas, or
	// EPUB 3's belongs-to-collection).
	Series      string
	SeriesIndex float64
	// Identifiers map a lower-case scheme ("isbn", "uri") to a value;
	// calibre's own ids are left out.
	Identifiers map[string]string
}

// OPF is the <metadata> of an OPF package document (EPUB's, calibre's
// metadata.opf), to decode into. It holds every Dublin Core element of a
// kind, in order, because books repeat them (a main title and a subtitle, several creators) and
// EPUB 3 says which is which in separate <meta refines> elements.
type OPF struct {
	Titles      []dcElement `xml:"title"`
	Creators    []dcElement `xml:"creator"`
	Languages   []dcElement `xml:"language"`
	Identifiers []dcElement `xml:"identifier"`
	Dates       []dcElement `xml:"date"`
	Subjects    []dcElement `xml:"subject"`
	Publishers  []dcElement `xml:"publisher"`
	Metas       []opfMeta   `xml:"meta"`
}

type dcElement struct {
	ID string `xml:"id,attr"`
	// Role and Event are EPUB 2's opf:role and opf:event.
	Role  string `xml:"role,attr"`
	Event string `xml:"event,attr"`
	// Scheme is EPUB 2's opf:scheme of an identifier.
	Scheme string `xml:"scheme,attr"`
	Value  string `xml:",chardata"`
}

type opfMeta struct {
	Refines  string `xml:"refines,attr"`
	Property string `xml:"property,attr"`
	ID       string `xml:"id,attr"`
	Value    string `xml:",chardata"`
	// Name and Content are an EPUB 2 meta's, as calibre writes them.
	Name    string `xml:"name,attr"`
	Content string `xml:"content,attr"`
}

// nonAuthorRole reports creator roles (MARC relator codes) that never make
// someone an author of the text: people who produced the file, the cover or
// the pictures (book producer, markup editor, cover designer, book designer,
// designer, illustrator, photographer, artist, printer, publisher,
// transcriber, type designer, typographer).
func nonAuthorRole(role string) bool {
	switch role {
	case "bkp", "mrk", "cov", "bkd", "dsr", "ill", "pht", "art", "prt", "pbl", "trc", "tyd", "tyg":
		return true
	}
	return false
}

// FromOPF returns what md says of the book. uniqueID is the package's
// unique-identifier attribute, which names the identifier to prefer.
func FromOPF(md *OPF, uniqueID string) Info {
	// refines maps an element id to its EPUB 3 refinements: the values of
	// each property, in order (a creator may have several roles).
	refines := make(map[string]map[string][]string)
	for _, m := range md.Metas {
		id := strings.TrimPrefix(strings.TrimSpace(m.Refines), "#")
		prop := strings.ToLower(strings.TrimSpace(m.Property))
		if id == "" || prop == "" {
			continue
		}
		if refines[id] == nil {
			refines[id] = make(map[string][]string)
		}
		refines[id][prop] = append(refines[id][prop], strings.ToLower(strings.TrimSpace(m.Value)))
	}
	refined := func(e dcElement, prop string) []string {
		if e.ID == "" {
			return nil
		}
		return refines[e.ID][prop]
	}

	var out Info
	for _, t := range md.Titles {
		if v := xhtml.CleanText(t.Value); v != "" && slices.Contains(refined(t, "title-type"), "main") {
			out.Title = v
			break
		}
	}
	if out.Title == "" {
		out.Title = firstValue(md.Titles)
	}

	var authors, others []string
	seen := make(map[string]bool)
	for _, c := range md.Creators {
		name := xhtml.CleanText(c.Value)
		if name == "" || seen[name] {
			continue
		}
		roles := refined(c, "role")
		if r := strings.ToLower(strings.TrimSpace(c.Role)); r != "" {
			roles = append(roles, r)
		}
		switch {
		case slices.Contains(roles, "aut"):
			authors = append(authors, name)
		case len(roles) > 0 && !slices.ContainsFunc(roles, func(r string) bool { return !nonAuthorRole(r) }):
			continue // every role says this is not an author
		default:
			others = append(others, name)
		}
		seen[name] = true
	}
	out.Authors = append(authors, others...)

	out.Language = LanguageTag(firstValue(md.Languages))

	for _, id := range md.Identifiers {
		if v := xhtml.CleanText(id.Value); v != "" && id.ID != "" && id.ID == strings.TrimSpace(uniqueID) {
			out.Identifier = v
			break
		}
	}
	if out.Identifier == "" {
		out.Identifier = firstValue(md.Identifiers)
	}
	for _, d := range md.Dates {
		if v := xhtml.CleanText(d.Value); v != "" && (d.Event == "" || strings.EqualFold(d.Event, "publication")) {
			out.Date = v
			break
		}
	}
	out.Publisher = firstValue(md.Publishers)
	seenTag := make(map[string]bool)
	for _, t := range md.Subjects {
		if v := xhtml.CleanText(t.Value); v != "" && !seenTag[strings.ToLower(v)] {
			seenTag[strings.ToLower(v)] = true
			out.Tags = append(out.Tags, v)
		}
	}
	for _, id := range md.Identifiers {
		scheme, v := identifier(id)
		if scheme == "" || v == "" || scheme == "calibre" || scheme == "uuid" {
			continue
		}
		if out.Identifiers == nil {
			out.Identifiers = make(map[string]string)
		}
		if _, ok := out.Identifiers[scheme]; !ok {
			out.Identifiers[scheme] = v
		}
	}
	out.Series, out.SeriesIndex = series(md.Metas, refines)
	return out
}

// series returns the series a book belongs to and its place in it: from
// calibre's metas, else from EPUB 3's belongs-to-collection.
func series(metas []opfMeta, refines map[string]map[string][]string) (string, float64) {
	var name string
	var index float64
	for _, m := range metas {
		switch strings.ToLower(strings.TrimSpace(m.Name)) {
		case "calibre:series":
			name = xhtml.CleanText(m.Content)
		case "calibre:series_index":
			index, _ = strconv.ParseFloat(strings.TrimSpace(m.Content), 64)
		}
	}
	if name != "" {
		return name, index
	}
	for _, m := range metas {
		if strings.TrimSpace(m.Property) != "belongs-to-collection" || m.Refines != "" {
			continue
		}
		if v := xhtml.CleanText(m.Value); v != "" {
			if pos := refines[m.ID]["group-position"]; len(pos) > 0 {
				index, _ = strconv.ParseFloat(pos[0], 64)
			}
			return v, index
		}
	}
	return "", 0
}

// identifier returns an identifier's scheme, lower-case, and its value.
func identifier(id dcElement) (scheme, value string) {
	return Identifier(id.Scheme, id.Value)
}

// Identifier returns the scheme, lower-case, and the value of an
// identifier that may not say its scheme (EPUB 3 has no opf:scheme, nor
// HTML's dc.identifier): the value then says it ("urn:isbn:…", "doi:…", a
// web address). The scheme is "" when neither says.
func Identifier(scheme, value string) (string, string) {
	scheme = strings.ToLower(strings.TrimSpace(scheme))
	value = xhtml.CleanText(value)
	lower := strings.ToLower(value)
	for _, p := range []struct{ prefix, scheme string }{
		{"urn:isbn:", "isbn"}, {"isbn:", "isbn"}, {"urn:doi:", "doi"}, {"doi:", "doi"},
		{"urn:uuid:", "uuid"}, {"urn:issn:", "issn"},
	} {
		if strings.HasPrefix(lower, p.prefix) && (scheme == "" || scheme == p.scheme) {
			return p.scheme, strings.TrimSpace(value[len(p.prefix):])
		}
	}
	if scheme == "" && (strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")) {
		return "uri", value
	}
	return scheme, value
}

// Catalog returns what else than its title, authors and language the
// description says of the book, held to doc.Catalog's caps.
func (i Info) Catalog() doc.Catalog {
	date := i.Date
	if strings.HasPrefix(date, "0101-01-01") {
		date = "" // calibre's "no date"
	}
	c := doc.Catalog{Publisher: i.Publisher, Published: date, Tags: i.Tags, Identifiers: i.Identifiers,
		Series: i.Series, SeriesIndex: i.SeriesIndex}
	return c.Clean()
}

func firstValue(es []dcElement) string {
	for _, e := range es {
		if v := xhtml.CleanText(e.Value); v != "" {
			return v
		}
	}
	return ""
}

// LanguageTag returns a well-formed BCP 47 tag for s ("EN" gives "en",
// "en_US" "en-US"), or "" when s is not one.
func LanguageTag(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return ""
	}
	tag, err := language.Parse(strings.ReplaceAll(s, "_", "-"))
	if err != nil {
		return ""
	}
	return tag.String()
}
