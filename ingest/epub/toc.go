package epub

import (
	"context"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
)

// tocEntry is one entry of a table of contents, with its href as written
// (relative to the document that holds the TOC).
type tocEntry struct {
	title string
	href  string
	kids  []tocEntry
}

// maxTOCDepth bounds how deep entries nest; deeper ones are listed at that
// depth, after their parent, which keeps every walk over the tree cheap.
const maxTOCDepth = 32

// parseNav reads the table of contents of an EPUB 3 navigation document:
// the <nav epub:type="toc"> wherever it is in the document, and in it the
// nested ol > li > (a | span) entries. A label is the full text of its
// element, however it is marked up inside. At most limit entries are kept.
func parseNav(ctx context.Context, data []byte, limit int) []tocEntry {
	root := xhtml.ParseTree(ctx, xhtml.ToUTF8(data))
	nav := findNav(root)
	if nav == nil {
		return nil
	}
	list := findList(nav, 0)
	if list == nil {
		return nil
	}
	budget := limit
	return navList(list, 0, &budget)
}

// findNav returns the TOC nav element: the one typed "toc", else the first
// nav that is not typed as something else (landmarks, page-list).
func findNav(root *xhtml.Node) *xhtml.Node {
	var typed, plain *xhtml.Node
	var walk func(*xhtml.Node, int)
	walk = func(n *xhtml.Node, depth int) {
		if typed != nil || depth > xhtml.MaxTreeDepth {
			return
		}
		if n.Name == "nav" {
			types := navTypes(n)
			switch {
			case hasToken(types, "toc") || hasToken(types, "doc-toc"):
				typed = n
				return
			case strings.TrimSpace(types) == "" && plain == nil:
				plain = n
			}
		}
		for _, k := range n.Kids {
			walk(k, depth+1)
		}
	}
	walk(root, 0)
	if typed != nil {
		return typed
	}
	return plain
}

// navTypes returns the epub:type and role tokens of an element, whatever
// prefix the document bound to the EPUB namespace.
func navTypes(n *xhtml.Node) string {
	var parts []string
	for _, a := range n.Attrs {
		if a.Key == "role" || strings.HasSuffix(a.Key, ":type") {
			parts = append(parts, a.Val)
		}
	}
	return strings.Join(parts, " ")
}

// findList returns the first ol or ul inside n.
func findList(n *xhtml.Node, depth int) *xhtml.Node {
	if depth > xhtml.MaxTreeDepth {
		return nil
	}
	for _, k := range n.Kids {
		if k.Name == "ol" || k.Name == "ul" {
			return k
		}
		if k.Name != "" {
			if l := findList(k, depth+1); l != nil {
				return l
			}
		}
	}
	return nil
}

func navList(list *xhtml.Node, depth int, budget *int) []tocEntry {
	var out []tocEntry
	for _, li := range list.Kids {
		if *budget <= 0 {
			break
		}
		if li.Name != "li" {
			continue
		}
		*budget--
		var e tocEntry
		var label, sub *xhtml.Node
		for _, k := range li.Kids {
			switch {
			case label == nil && (k.Name == "a" || k.Name == "span"):
				label = k
			case sub == nil && (k.Name == "ol" || k.Name == "ul"):
				sub = k
			}
		}
		if label != nil {
			e.title = xhtml.TextOf(label)
			if a := findLink(label, 0); a != nil {
				e.href = strings.TrimSpace(a.Attr("href"))
			}
		} else {
			// No a or span: the label is the item's own text, without its
			// nested list.
			own := &xhtml.Node{Name: "li"}
			for _, k := range li.Kids {
				if k != sub {
					own.Kids = append(own.Kids, k)
				}
			}
			e.title = xhtml.TextOf(own)
		}
		if sub != nil {
			if depth+1 < maxTOCDepth {
				e.kids = navList(sub, depth+1, budget)
			} else {
				out = append(out, e)
				out = append(out, navList(sub, depth, budget)...)
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

// findLink returns n if it is a link, else the first link inside it: some
// books wrap the <a> of an entry in a <span>.
func findLink(n *xhtml.Node, depth int) *xhtml.Node {
	if n.Name == "a" && n.Attr("href") != "" {
		return n
	}
	if depth > xhtml.MaxTreeDepth {
		return nil
	}
	for _, k := range n.Kids {
		if k.Name != "" {
			if a := findLink(k, depth+1); a != nil {
				return a
			}
		}
	}
	return nil
}

// ncxDoc is an EPUB 2 NCX; only the navMap matters here.
type ncxDoc struct {
	Points []ncxPoint `xml:"navMap>navPoint"`
}

type ncxPoint struct {
	Label   string `xml:"navLabel>text"`
	Content struct {
		Src string `xml:"src,attr"`
	} `xml:"content"`
	Points []ncxPoint `xml:"navPoint"`
}

// parseNCX reads the navMap of an EPUB 2 NCX. At most limit entries are
// kept.
func parseNCX(data []byte, limit int) []tocEntry {
	var d ncxDoc
	if err := decodeXML(data, &d); err != nil && len(d.Points) == 0 {
		return nil
	}
	budget := limit
	return ncxEntries(d.Points, 0, &budget)
}

func ncxEntries(points []ncxPoint, depth int, budget *int) []tocEntry {
	var out []tocEntry
	for _, p := range points {
		if *budget <= 0 {
			break
		}
		*budget--
		e := tocEntry{title: xhtml.CleanText(p.Label), href: strings.TrimSpace(p.Content.Src)}
		if depth+1 < maxTOCDepth {
			e.kids = ncxEntries(p.Points, depth+1, budget)
			out = append(out, e)
		} else {
			out = append(out, e)
			out = append(out, ncxEntries(p.Points, depth, budget)...)
		}
	}
	return out
}
