package djvu

import (
	"strconv"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// catalog returns what the metadata says of the book beyond its title,
// author and language. djvused's keys are BibTeX's (publisher, year,
// series, volume, isbn) and the PDF Info's (Subject, Keywords,
// CreationDate), lower-cased by metadata.
func catalog(meta map[string]string) doc.Catalog {
	c := doc.Catalog{Publisher: meta["publisher"], Series: meta["series"]}
	c.AddTag(meta["subject"])
	c.AddKeywords(meta["keywords"])
	c.Published = doc.DatePart(meta["year"])
	if c.Series != "" {
		for _, k := range []string{"volume", "number"} {
			if n, err := strconv.ParseFloat(strings.TrimSpace(meta[k]), 64); err == nil {
				c.SeriesIndex = n
				break
			}
		}
	}
	c.SetIdentifier("isbn", meta["isbn"])
	c.SetIdentifier("doi", meta["doi"])
	c.SetIdentifier("uri", meta["url"])
	return c.Clean()
}

// metadata reads the (metadata (key "value") ...) list of an annotation
// chunk's text, keys lower-cased; other annotations (links, colours, zoom)
// are skipped.
func metadata(ant string) map[string]string {
	out := make(map[string]string)
	i := strings.Index(ant, "(metadata")
	if i < 0 {
		return out
	}
	s := ant[i+len("(metadata"):]
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" || s[0] != '(' {
			return out
		}
		s = strings.TrimLeft(s[1:], " \t\r\n")
		end := strings.IndexAny(s, " \t\r\n\")")
		if end <= 0 {
			return out
		}
		key := strings.ToLower(s[:end])
		s = strings.TrimLeft(s[end:], " \t\r\n")
		value, rest, ok := quoted(s)
		if !ok {
			return out
		}
		rest = strings.TrimLeft(rest, " \t\r\n")
		if !strings.HasPrefix(rest, ")") {
			return out
		}
		if _, seen := out[key]; !seen {
			out[key] = clean([]byte(value))
		}
		s = rest[1:]
	}
}

// quoted reads a string in double quotes with backslash escapes (octal
// byte escapes too, as djvused writes non-ASCII) from the start of s.
func quoted(s string) (value, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", s, false
	}
	var b []byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return string(b), s[i+1:], true
		case c == '\\' && i+1 < len(s):
			i++
			switch e := s[i]; {
			case e >= '0' && e <= '7':
				n, j := 0, i
				for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
					n = n*8 + int(s[j]-'0')
				}
				b = append(b, byte(n))
				i = j - 1
			case e == 'n':
				b = append(b, '\n')
			case e == 't':
				b = append(b, '\t')
			default:
				b = append(b, e)
			}
		default:
			b = append(b, c)
		}
	}
	return "", s, false
}
