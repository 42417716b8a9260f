// Package docx parses a Word document (Office Open XML, .docx) into the
// format-neutral tree of package doc. Headings are the document's own:
// paragraphs whose outline level, given directly or by their style and
// the styles it is based on, puts them in the navigation pane, or whose
// style is a Heading N (also under a localized name); a Title paragraph is
// the document's title. Lists carry their numbers as Word shows them,
// tables become rows of cells joined by " | ", footnotes and endnotes
// follow the text of the section that cites them, and the title, authors,
// language, subject, category, keywords and creation date come from
// docProps/core.xml.
//
// Anchors cite a heading by its bookmark when a visible one marks it
// ("#introduction"), and a paragraph by its number in the document
// ("p412"). The file is untrusted input: it is read with the caps of
// package safezip, and nesting past a bound shapes nothing but keeps its
// text.
package docx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/meta"
	"github.com/grimoire-search/grimoire/ingest/internal/safezip"
	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
)

// Errors that Parse wraps, for errors.Is.
var (
	// ErrNotDOCX reports a file that is no Word document: not a zip, no
	// document part, an old binary .doc or an encrypted one.
	ErrNotDOCX = errors.New("not a DOCX document")
	// ErrDamaged reports a document part whose XML is broken.
	ErrDamaged = errors.New("damaged DOCX document")
	// ErrTooLarge reports an archive that would inflate past the caps.
	ErrTooLarge = errors.New("DOCX too large to read safely")
)

// oleMagic starts an OLE compound file: a Word 97–2003 .doc, or an Office
// document encrypted with a password, which Office wraps in one.
var oleMagic = []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")

const (
	relOfficeDocument = "/officeDocument"
	relStyles         = "/styles"
	relNumbering      = "/numbering"
	relFootnotes      = "/footnotes"
	relEndnotes       = "/endnotes"
	relCore           = "/metadata/core-properties"
)

// Parse parses one DOCX file, given whole in data. It fails with
// ErrNotDOCX, ErrDamaged or ErrTooLarge, or ctx's error. Parse keeps no
// state between calls and is safe to call concurrently.
func Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	return parse(ctx, data, safezip.DefaultLimits())
}

func parse(ctx context.Context, data []byte, lim safezip.Limits) (*doc.Document, error) {
	if bytes.HasPrefix(data, oleMagic) {
		return nil, fmt.Errorf("%w: this is an OLE compound file, either a Word 97-2003 .doc or a document encrypted with a password; save it as .docx without a password", ErrNotDOCX)
	}
	a, err := safezip.Open(data, lim)
	if err != nil {
		return nil, zipError(err)
	}
	pkg := readRels(a, "_rels/.rels", "")
	main := pkg.target(relOfficeDocument, "word/document.xml")
	if !a.Has(main) {
		return nil, fmt.Errorf("%w: the archive has no %s", ErrNotDOCX, main)
	}
	docRels := readRels(a, relsPath(main), path.Dir(main))
	dir := path.Dir(main)

	st, err := readStyles(a, docRels.target(relStyles, path.Join(dir, "styles.xml")))
	if err != nil {
		return nil, err
	}
	num, err := readNumbering(a, docRels.target(relNumbering, path.Join(dir, "numbering.xml")))
	if err != nil {
		return nil, err
	}
	r := &reader{ctx: ctx, styles: st, numbering: num, counters: make(map[string][]int)}
	for _, part := range []struct{ rel, name string }{{relFootnotes, "footnotes.xml"}, {relEndnotes, "endnotes.xml"}} {
		notes, err := readNotes(ctx, a, docRels.target(part.rel, path.Join(dir, part.name)), r)
		if err != nil {
			return nil, err
		}
		r.addNotes(notes)
	}
	body, err := a.Read(main)
	if err != nil {
		return nil, zipError(err)
	}
	if err := r.stream(body, main); err != nil {
		return nil, err
	}

	core, err := readCore(a, pkg.target(relCore, "docProps/core.xml"))
	if err != nil {
		return nil, err
	}
	d := &doc.Document{
		Title:      core.title,
		Authors:    core.authors,
		Language:   meta.LanguageTag(core.language),
		Catalog:    core.catalog,
		SourceType: doc.DOCX,
	}
	if d.Title == "" {
		d.Title = r.title
	}
	if d.Language == "" {
		d.Language = meta.LanguageTag(st.language)
	}
	if err := r.b.Err(); err != nil {
		return nil, err
	}
	d.Chapters = r.b.Chapters(d.Title)
	if d.Title == "" {
		d.Title = r.b.Name()
	}
	return d, nil
}

func zipError(err error) error {
	switch {
	case errors.Is(err, safezip.ErrTooLarge):
		return fmt.Errorf("%w: %w", ErrTooLarge, err)
	case errors.Is(err, safezip.ErrNotZip):
		return fmt.Errorf("%w: %w", ErrNotDOCX, err)
	}
	return fmt.Errorf("%w: %w", ErrDamaged, err)
}

// rels are the relationships of one part: targets by type.
type rels map[string]string

// readRels reads a relationships part; dir is the directory its targets
// are relative to. A missing or broken one has no relationships: the parts
// have well-known names to fall back on.
func readRels(a *safezip.Archive, name, dir string) rels {
	out := make(rels)
	if !a.Has(name) {
		return out
	}
	data, err := a.Read(name)
	if err != nil {
		return out
	}
	var x struct {
		Rels []struct {
			Type       string `xml:"Type,attr"`
			Target     string `xml:"Target,attr"`
			TargetMode string `xml:"TargetMode,attr"`
		} `xml:"Relationship"`
	}
	if err := xhtml.NewXMLDecoder(data).Decode(&x); err != nil {
		return out
	}
	for _, r := range x.Rels {
		if strings.EqualFold(r.TargetMode, "External") {
			continue
		}
		t := strings.ReplaceAll(strings.TrimSpace(r.Target), `\`, "/")
		if strings.HasPrefix(t, "/") {
			t = t[1:]
		} else {
			t = path.Join(dir, t)
		}
		name, ok := safezip.EntryName(t)
		if !ok {
			continue
		}
		for _, suffix := range []string{relOfficeDocument, relStyles, relNumbering, relFootnotes, relEndnotes, relCore} {
			if strings.HasSuffix(r.Type, suffix) && out[suffix] == "" {
				out[suffix] = name
			}
		}
	}
	return out
}

// target returns the part a relationship of this type names, else
// fallback.
func (r rels) target(typ, fallback string) string {
	if t := r[typ]; t != "" {
		return t
	}
	return fallback
}

// relsPath is where the relationships of a part are kept:
// word/document.xml has word/_rels/document.xml.rels.
func relsPath(part string) string {
	return path.Join(path.Dir(part), "_rels", path.Base(part)+".rels")
}

// readPart returns an optional part's bytes: nil when the archive lacks it.
func readPart(a *safezip.Archive, name string) ([]byte, error) {
	if !a.Has(name) {
		return nil, nil
	}
	data, err := a.Read(name)
	if err != nil {
		return nil, zipError(err)
	}
	return data, nil
}

// decodePart decodes an optional part into v; a part that is not XML fails
// the document as damaged.
func decodePart(data []byte, name string, v any) error {
	if data == nil {
		return nil
	}
	if err := xhtml.NewXMLDecoder(data).Decode(v); err != nil {
		return fmt.Errorf("%w: %s is not valid XML (%v)", ErrDamaged, name, err)
	}
	return nil
}

// core is what docProps/core.xml says of the document.
type core struct {
	title    string
	authors  []string
	language string
	// catalog holds the subject, category and keywords as tags, the
	// creation date, and an identifier.
	catalog doc.Catalog
}

func readCore(a *safezip.Archive, name string) (core, error) {
	data, err := readPart(a, name)
	if err != nil {
		return core{}, err
	}
	var props struct {
		Title    string   `xml:"title"`
		Creators []string `xml:"creator"`
		Language string   `xml:"language"`
		Subject  string   `xml:"subject"`
		Category string   `xml:"category"`
		Keywords struct {
			Text string `xml:",chardata"`
			// Values are the keywords of each language, when the
			// document gives them so.
			Values []string `xml:"value"`
		} `xml:"keywords"`
		Identifier string `xml:"identifier"`
	}
	if data != nil {
		// Broken metadata costs the document its title, not its text.
		_ = xhtml.NewXMLDecoder(data).Decode(&props)
	}
	out := core{title: xhtml.CleanText(props.Title), language: xhtml.CleanText(props.Language)}
	out.catalog.AddTag(props.Subject)
	out.catalog.AddTag(props.Category)
	out.catalog.AddKeywords(props.Keywords.Text)
	for _, k := range props.Keywords.Values {
		out.catalog.AddKeywords(k)
	}
	out.catalog.SetIdentifier(meta.Identifier("", props.Identifier))
	out.catalog = out.catalog.Clean()
	for _, c := range props.Creators {
		// Word keeps several authors in one creator, separated by
		// semicolons.
		for _, name := range strings.Split(c, ";") {
			if name = xhtml.CleanText(name); name != "" {
				out.authors = append(out.authors, name)
			}
		}
	}
	return out, nil
}
