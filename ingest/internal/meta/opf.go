// Package meta reads the metadata that book formats share: the Dublin Core
// description of an OPF package document (EPUB's, calibre's metadata.opf)
// and BCP 47 language tags.
package meta

import (
	"slices"
	"strings"

	"golang.org/x/text/language"

	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
)

// Info is a book's description. Identifier and Date have no place in
// doc.Document yet; they are kept for when they do.
type Info struct {
	Title      string
	Authors    []string
	Language   string
	Identifier string
	Date       string
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
	Metas       []opfMeta   `xml:"meta"`
}

type dcElement struct {
	ID string `xml:"id,attr"`
	// Role and Event are EPUB 2's opf:role and opf:event.
	Role  string `xml:"role,attr"`
	Event string `xml:"event,attr"`
	Value string `xml:",chardata"`
}

type opfMeta struct {
	Refines  string `xml:"refines,attr"`
	Property string `xml:"property,attr"`
	Value    string `xml:",chardata"`
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
	return out
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
