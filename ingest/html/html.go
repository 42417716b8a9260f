// Package html parses a saved web page (.html, .htm, .xhtml) and calibre's
// zipped HTML book (.htmlz) into the format-neutral tree of package doc.
// The page's h1–h6 headings are its outline. A web page keeps only its main
// content: scripts, styles, navigation, banners, asides, and the page's own
// header and footer are left out, and when the page marks its main content
// (<main>, role="main") only that is read. Preformatted text, such as a law
// published as one long <pre>, is kept line for line.
//
// A page's title, authors, language and catalogue (keywords, publisher,
// date, identifiers) come from its <meta> tags (Open Graph, Dublin Core,
// Highwire Press, author), its <title> and its lang attribute; an HTMLZ
// book's from its metadata.opf. Anchors cite the nearest element id
// ("#chapter-3"; "index.html#chapter-3" inside an HTMLZ).
package html

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/meta"
	"github.com/grimoire-search/grimoire/ingest/internal/outline"
	"github.com/grimoire-search/grimoire/ingest/internal/safezip"
	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
)

// Errors that Parse and ParseHTMLZ wrap, for errors.Is.
var (
	// ErrNotHTML reports a file that is no page: binary data, or an HTMLZ
	// that is not a zip or holds no page.
	ErrNotHTML = errors.New("not an HTML page")
	// ErrTooLarge reports an HTMLZ that would inflate past the caps.
	ErrTooLarge = errors.New("HTMLZ too large to read safely")
)

// Parse parses one web page, given whole in data, in whatever encoding its
// bytes, XML declaration or <meta charset> say. It fails with ErrNotHTML
// for binary data, or with ctx's error. Parse keeps no state between calls
// and is safe to call concurrently.
func Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	if binary(data) {
		return nil, fmt.Errorf("%w: the file holds binary data", ErrNotHTML)
	}
	conv, err := xhtml.Convert(ctx, data, xhtml.Options{Page: true})
	if err != nil {
		return nil, fmt.Errorf("html: %w", err)
	}
	d := &doc.Document{SourceType: doc.HTML}
	pageMeta(d, conv)
	if err := build(d, conv); err != nil {
		return nil, err
	}
	return d, nil
}

// ParseHTMLZ parses calibre's HTMLZ: a zip of one page (index.html), its
// pictures and style sheet, and metadata.opf. It fails with ErrNotHTML,
// ErrTooLarge or ctx's error.
func ParseHTMLZ(ctx context.Context, data []byte) (*doc.Document, error) {
	return parseHTMLZ(ctx, data, safezip.DefaultLimits())
}

func parseHTMLZ(ctx context.Context, data []byte, lim safezip.Limits) (*doc.Document, error) {
	a, err := safezip.Open(data, lim)
	if err != nil {
		return nil, zipError(err)
	}
	page := pagePath(a)
	if page == "" {
		return nil, fmt.Errorf("%w: the HTMLZ archive holds no .html page", ErrNotHTML)
	}
	body, err := a.Read(page)
	if err != nil {
		return nil, zipError(err)
	}
	if binary(body) {
		return nil, fmt.Errorf("%w: %s holds binary data", ErrNotHTML, page)
	}
	// The page is a book that calibre wrote, not a web page: nothing in it
	// is navigation to leave out.
	conv, err := xhtml.Convert(ctx, body, xhtml.Options{Path: page})
	if err != nil {
		return nil, fmt.Errorf("htmlz: %w", err)
	}
	d := &doc.Document{SourceType: doc.HTMLZ}
	if err := opfMeta(d, a); err != nil {
		return nil, err
	}
	own := &doc.Document{}
	pageMeta(own, conv)
	if d.Title == "" {
		d.Title = own.Title
	}
	if len(d.Authors) == 0 {
		d.Authors = own.Authors
	}
	if d.Language == "" {
		d.Language = own.Language
	}
	if d.Catalog.Empty() {
		d.Catalog = own.Catalog
	}
	if err := build(d, conv); err != nil {
		return nil, err
	}
	return d, nil
}

func zipError(err error) error {
	if errors.Is(err, safezip.ErrTooLarge) {
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	return fmt.Errorf("%w: %w", ErrNotHTML, err)
}

// pagePath returns the HTMLZ's page: index.html, else the first page at
// the archive's root, else the first page anywhere.
func pagePath(a *safezip.Archive) string {
	if a.Has("index.html") {
		name, _ := a.Canonical("index.html")
		return name
	}
	var anywhere string
	for _, n := range a.Names() {
		switch strings.ToLower(path.Ext(n)) {
		case ".html", ".htm", ".xhtml":
			if !strings.Contains(n, "/") {
				return n
			}
			if anywhere == "" {
				anywhere = n
			}
		}
	}
	return anywhere
}

// opfMeta reads the book's metadata.opf, which calibre writes beside the
// page. A missing or broken one leaves the page to speak for itself.
func opfMeta(d *doc.Document, a *safezip.Archive) error {
	if !a.Has("metadata.opf") {
		return nil
	}
	data, err := a.Read("metadata.opf")
	if err != nil {
		if errors.Is(err, safezip.ErrTooLarge) {
			return zipError(err)
		}
		return nil
	}
	var pkg struct {
		UniqueIdentifier string   `xml:"unique-identifier,attr"`
		Metadata         meta.OPF `xml:"metadata"`
	}
	if xhtml.NewXMLDecoder(data).Decode(&pkg) != nil {
		return nil
	}
	info := meta.FromOPF(&pkg.Metadata, pkg.UniqueIdentifier)
	d.Title, d.Authors, d.Language, d.Catalog = info.Title, info.Authors, info.Language, info.Catalog()
	return nil
}

// binary reports data that no page holds: NUL bytes, without the UTF-16
// signs that explain them.
func binary(data []byte) bool {
	head := data[:min(len(data), 4096)]
	if bytes.HasPrefix(head, []byte("\xff\xfe")) || bytes.HasPrefix(head, []byte("\xfe\xff")) {
		return false
	}
	return bytes.IndexByte(head, 0) >= 0
}

// pageMeta sets what a page says of itself: its title from Open Graph or
// Dublin Core, else its <title>; its authors; its language from the lang
// attribute, else its metadata.
func pageMeta(d *doc.Document, conv xhtml.Result) {
	first := func(names ...string) string {
		for _, n := range names {
			for _, m := range conv.Meta {
				if m.Name == n && m.Content != "" {
					return m.Content
				}
			}
		}
		return ""
	}
	d.Title = first("og:title", "dc.title", "dcterms.title", "citation_title")
	if d.Title == "" {
		d.Title = conv.Title
	}
	seen := make(map[string]bool)
	for _, m := range conv.Meta {
		switch m.Name {
		case "author", "dc.creator", "dcterms.creator", "citation_author", "article:author", "book:author":
		default:
			continue
		}
		for _, name := range strings.Split(m.Content, ";") {
			name = strings.TrimSpace(name)
			// Open Graph gives authors as links to their profiles.
			if name == "" || seen[name] || strings.Contains(name, "://") {
				continue
			}
			seen[name] = true
			d.Authors = append(d.Authors, name)
		}
	}
	d.Language = meta.LanguageTag(conv.Lang)
	if d.Language == "" {
		d.Language = meta.LanguageTag(first("dc.language", "dcterms.language", "language", "og:locale", "citation_language"))
	}
	d.Catalog = pageCatalog(conv.Meta)
}

// pageCatalog returns what a page's <meta> tags say of it beyond its
// title, authors and language: Dublin Core's, Highwire Press's (citation_*,
// as journals and Google Scholar use) and Open Graph's.
func pageCatalog(metas []xhtml.Meta) doc.Catalog {
	var c doc.Catalog
	for _, m := range metas {
		switch m.Name {
		case "keywords", "dc.subject", "dcterms.subject", "citation_keywords":
			c.AddKeywords(m.Content)
		case "article:tag", "book:tag":
			c.AddTag(m.Content)
		case "dc.publisher", "dcterms.publisher", "citation_publisher":
			if c.Publisher == "" {
				c.Publisher = m.Content
			}
		case "dc.date", "dcterms.date", "dcterms.issued", "citation_publication_date", "citation_date",
			"article:published_time", "book:release_date":
			if c.Published == "" {
				if c.Published = doc.DatePart(m.Content); c.Published == "" {
					c.Published = m.Content
				}
			}
		case "citation_doi":
			c.SetIdentifier(meta.Identifier("doi", m.Content))
		case "citation_isbn", "book:isbn":
			c.SetIdentifier(meta.Identifier("isbn", m.Content))
		case "dc.identifier", "dcterms.identifier":
			c.SetIdentifier(meta.Identifier("", m.Content))
		case "og:url":
			c.SetIdentifier(meta.Identifier("uri", m.Content))
		}
	}
	return c.Clean()
}

// build lays the converted page out as chapters from its headings. It
// fails with doc.ErrTooLarge for a page of more text than a book may hold.
func build(d *doc.Document, conv xhtml.Result) error {
	var b outline.Builder
	for _, p := range conv.Pieces {
		switch p.Kind {
		case xhtml.Heading:
			b.Heading(p.Level, p.Text, p.Anchor)
		case xhtml.Block:
			b.Block(doc.Block{Kind: p.Block, Text: p.Text, Anchor: p.Anchor})
		}
	}
	if err := b.Err(); err != nil {
		return err
	}
	d.Chapters = b.Chapters(d.Title)
	if d.Title == "" {
		d.Title = b.Name()
	}
	return nil
}
