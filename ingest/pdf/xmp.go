package pdf

import (
	"bytes"
	"encoding/xml"
	"strings"
)

// xmpMeta is the part of an XMP packet grimoire uses.
type xmpMeta struct {
	title    string
	creators []string
	language string
}

const (
	nsDC  = "http://purl.org/dc/elements/1.1/"
	nsRDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsXML = "http://www.w3.org/XML/1998/namespace"
)

// parseXMP reads dc:title (the x-default alternative first), dc:creator
// and dc:language. A malformed packet yields what was read before the
// error; XMP is a hint, never a reason to fail.
func parseXMP(data []byte) xmpMeta {
	var m xmpMeta
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	var (
		field    string // "title", "creator", "language" while inside one
		depth    int    // element depth inside the field
		li       bool
		liLang   string
		text     strings.Builder
		titles   = map[string]string{}
		firstLng string
	)
	for tokens := 0; tokens < 200_000; tokens++ {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if field == "" {
				if t.Name.Space == nsDC {
					switch t.Name.Local {
					case "title", "creator", "language":
						field, depth = t.Name.Local, 0
						text.Reset()
					}
				}
				continue
			}
			depth++
			if t.Name.Space == nsRDF && t.Name.Local == "li" {
				li, liLang = true, ""
				text.Reset()
				for _, a := range t.Attr {
					if a.Name.Local == "lang" && (a.Name.Space == nsXML || a.Name.Space == "xml") {
						liLang = strings.ToLower(a.Value)
					}
				}
			}
		case xml.CharData:
			if field != "" {
				text.Write(t)
			}
		case xml.EndElement:
			if field == "" {
				continue
			}
			if depth == 0 {
				// The field itself ends; plain text without rdf:li counts too.
				if s := cleanMeta(text.String()); s != "" && !li {
					m.add(field, s, "x-default", titles, &firstLng)
				}
				field, li = "", false
				continue
			}
			depth--
			if li && t.Name.Space == nsRDF && t.Name.Local == "li" {
				if s := cleanMeta(text.String()); s != "" {
					m.add(field, s, liLang, titles, &firstLng)
				}
				text.Reset()
			}
		}
	}
	if t, ok := titles["x-default"]; ok {
		m.title = t
	} else if firstLng != "" {
		m.title = titles[firstLng]
	}
	return m
}

func (m *xmpMeta) add(field, s, lang string, titles map[string]string, first *string) {
	switch field {
	case "title":
		if lang == "" {
			lang = "x-default"
		}
		if _, ok := titles[lang]; !ok {
			titles[lang] = s
			if *first == "" {
				*first = lang
			}
		}
	case "creator":
		m.creators = append(m.creators, s)
	case "language":
		if m.language == "" {
			m.language = s
		}
	}
}
