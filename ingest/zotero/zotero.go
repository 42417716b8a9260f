// Package zotero parses a Zotero item read as one book into the
// format-neutral tree of package doc. It reads the bytes the walk makes of
// an item (see source.Options.ZoteroIn): a first line that names the
// format, a line of JSON with what Zotero's database says of the item (its
// fields, tags, collections, child notes and the annotations made on its
// attachments), then each attachment's file in turn. Each attachment is
// parsed by the parser of its format; their chapters follow one another,
// their pages numbered on, and a last chapter holds the user's notes and
// annotations, each a section cited by the page it was made on.
package zotero

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/meta"
	"github.com/grimoire-search/grimoire/source/zotero"
)

// ErrDamaged means the bytes are not those of a Zotero item.
var ErrDamaged = errors.New("zotero: not an item read from a Zotero library")

// maxHeader bounds the line that describes the item: an item with
// thousands of annotations stays far below it.
const maxHeader = 64 << 20

// header is the line of JSON that describes the item.
type header = zotero.BookHeader

// Parts reads an item's attachments, each by the parser of its format.
type Parts interface {
	// Parse reads one attachment's bytes as a book of format typ.
	// recognised, when not nil, is the text OCR read of its scanned
	// pages, by its own 1-based page (see ingest.Parsers.Parse).
	Parse(ctx context.Context, typ string, data []byte, recognised map[int]string) (*doc.Document, error)
	// Render draws pages of one attachment (its own, 1-based) for OCR.
	Render(ctx context.Context, typ string, data []byte, pages []int, dpi float64, each func(doc.PageImage) error) error
}

// split reads an item's bytes: its header, and each attachment's bytes
// in the header's order.
func split(data []byte) (*header, [][]byte, error) {
	rest, ok := bytes.CutPrefix(data, []byte(zotero.BookMagic))
	if !ok {
		return nil, nil, doc.Failf(ErrDamaged, "zotero: the book does not start as a Zotero item does")
	}
	line, _, ok := bytes.Cut(rest[:min(len(rest), maxHeader)], []byte{'\n'})
	if !ok {
		return nil, nil, doc.Failf(ErrDamaged, "zotero: the item's description does not end")
	}
	body := rest[len(line)+1:]
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, nil, doc.Failf(ErrDamaged, "zotero: the item's description: %v", err)
	}
	files := make([][]byte, len(h.Attachments))
	for i, a := range h.Attachments {
		if a.Size < 0 || a.Size > int64(len(body)) {
			return nil, nil, doc.Failf(ErrDamaged, "zotero: attachment %s is cut short", a.Name)
		}
		files[i], body = body[:a.Size], body[a.Size:]
	}
	return &h, files, nil
}

// Parse reads an item's bytes into a document, each attachment parsed by
// parts with the text OCR read of its pages (recognised, by the item's
// page, as the document numbers them; nil for none). An attachment that
// cannot be parsed is passed over while another one, or a note, gives the
// item text; else its error is the item's. The scanned pages of every
// attachment are the document's, numbered as its pages.
func Parse(ctx context.Context, data []byte, parts Parts, recognised map[int]string) (*doc.Document, error) {
	h, files, err := split(data)
	if err != nil {
		return nil, err
	}
	d := &doc.Document{Title: h.Title, Authors: h.Creators, Language: meta.LanguageTag(h.Language),
		SourceType: zotero.Type, Catalog: catalog(h)}
	type placed struct{ first, pages int }
	at := make(map[string]placed)
	var failed error
	labelled := false
	for i, a := range h.Attachments {
		sub, err := parts.Parse(ctx, a.Type, files[i], shifted(recognised, d.PageCount))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			failed = errors.Join(failed, fmt.Errorf("%s: %w", a.Name, err))
			continue
		}
		at[a.Key] = placed{first: d.PageCount, pages: sub.PageCount}
		if d.Title == "" {
			d.Title = sub.Title
		}
		if len(d.Authors) == 0 {
			d.Authors = sub.Authors
		}
		if d.Language == "" {
			d.Language = sub.Language
		}
		labelled = labelled || len(sub.PageLabels) > 0
		for p := 1; p <= sub.PageCount; p++ {
			label := strconv.Itoa(p)
			if p <= len(sub.PageLabels) && sub.PageLabels[p-1] != "" {
				label = sub.PageLabels[p-1]
			}
			d.PageLabels = append(d.PageLabels, label)
		}
		for _, p := range sub.Scanned {
			d.Scanned = append(d.Scanned, d.PageCount+p)
		}
		for _, c := range sub.Chapters {
			if i > 0 {
				c.Title = joinTitle(nameOf(a), c.Title)
			}
			shiftPages(&c, d.PageCount)
			d.Chapters = append(d.Chapters, c)
		}
		d.PageCount += sub.PageCount
	}
	if !labelled {
		// Numbers alone, as a file of the one format would be cited.
		d.PageLabels = nil
	}
	if c, ok := notesChapter(h, func(key string, index int) int {
		p, ok := at[key]
		if !ok || index < 0 || index >= p.pages {
			return 0
		}
		return p.first + index + 1
	}, func(p int) string {
		if p >= 1 && p <= len(d.PageLabels) {
			return d.PageLabels[p-1]
		}
		return strconv.Itoa(p)
	}); ok {
		d.Chapters = append(d.Chapters, c)
	}
	if len(d.Chapters) == 0 && len(d.Scanned) == 0 && failed != nil {
		return nil, failed
	}
	return d, nil
}

// RenderPages draws pages of an item (1-based, ascending, as Parse numbers
// them) for OCR, each by the attachment that holds it, handing each to
// each with the item's page number.
func RenderPages(ctx context.Context, data []byte, parts Parts, pages []int, dpi float64, each func(doc.PageImage) error) error {
	h, files, err := split(data)
	if err != nil {
		return err
	}
	first := 0
	for i, a := range h.Attachments {
		if len(pages) == 0 {
			return nil
		}
		// Parse numbers an attachment's pages as its parse with OCR
		// counts them; one that fails holds none.
		sub, err := parts.Parse(ctx, a.Type, files[i], map[int]string{})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		var own []int
		for len(pages) > 0 && pages[0] <= first+sub.PageCount {
			if pages[0] > first {
				own = append(own, pages[0]-first)
			}
			pages = pages[1:]
		}
		if len(own) > 0 {
			at := first
			err := parts.Render(ctx, a.Type, files[i], own, dpi, func(img doc.PageImage) error {
				img.Page += at
				return each(img)
			})
			if err != nil {
				return fmt.Errorf("%s: %w", a.Name, err)
			}
		}
		first += sub.PageCount
	}
	if len(pages) > 0 {
		return fmt.Errorf("zotero: the item has no page %d", pages[0])
	}
	return nil
}

// shifted is the text OCR read of the pages after the first ones, by
// their number from there; nil stays nil.
func shifted(recognised map[int]string, first int) map[int]string {
	if recognised == nil {
		return nil
	}
	out := make(map[int]string)
	for p, text := range recognised {
		if p > first {
			out[p-first] = text
		}
	}
	return out
}

// catalog is what Zotero says of the item beyond its title, creators and
// language.
func catalog(h *header) doc.Catalog {
	c := doc.Catalog{Publisher: h.Publisher, Publication: h.Publication, Published: h.Date, ItemType: h.ItemType,
		Abstract: h.Abstract, Collections: h.Collections}
	for _, t := range h.Tags {
		c.AddTag(t)
	}
	c.SetIdentifier("doi", h.DOI)
	c.SetIdentifier("isbn", h.ISBN)
	c.SetIdentifier("uri", h.URL)
	return c
}

// notesChapter makes the chapter of the user's notes and annotations;
// page gives the page of the book an annotation was made on (0 when not
// known) from its attachment and 0-based page index, and cited the name a
// citation gives that page.
func notesChapter(h *header, page func(attachment string, index int) int, cited func(page int) string) (doc.Chapter, bool) {
	c := doc.Chapter{Title: zotero.NotesChapter}
	for _, a := range h.Annotations {
		p := page(a.Attachment, a.PageIndex)
		s := doc.Section{Title: annotationTitle(a, cited(p))}
		if t := strings.TrimSpace(a.Text); t != "" {
			s.Blocks = append(s.Blocks, doc.Block{Kind: doc.Quote, Text: t, Page: p})
		}
		if t := strings.TrimSpace(a.Comment); t != "" {
			if len(s.Blocks) > 0 {
				t = "Your comment: " + t
			}
			s.Blocks = append(s.Blocks, doc.Block{Kind: doc.Paragraph, Text: t, Page: p})
		}
		if len(s.Blocks) > 0 {
			c.Sections = append(c.Sections, s)
		}
	}
	for _, n := range h.Notes {
		s := doc.Section{Title: "Your note"}
		if t := strings.TrimSpace(n.Title); t != "" {
			s.Title += ": " + t
		}
		for _, para := range strings.Split(n.Text, "\n\n") {
			if t := strings.TrimSpace(para); t != "" {
				s.Blocks = append(s.Blocks, doc.Block{Kind: doc.Paragraph, Text: t})
			}
		}
		if len(s.Blocks) > 0 {
			c.Sections = append(c.Sections, s)
		}
	}
	return c, len(c.Sections) > 0
}

// annotationTitle names an annotation as the user knows it: "Your
// highlight, p. 12". The page label is left out where the citation gives
// that page anyway (cited), so that it does not read "p. 12, p. 12".
func annotationTitle(a zotero.BookAnnotation, cited string) string {
	what := "Your annotation"
	switch a.Kind {
	case "highlight":
		what = "Your highlight"
	case "underline":
		what = "Your underline"
	case "note", "text":
		what = "Your note"
	case "image":
		what = "Your note on a figure"
	case "ink":
		what = "Your drawing's comment"
	}
	if l := strings.TrimSpace(a.PageLabel); l != "" && l != cited {
		what += ", p. " + l
	}
	return what
}

func nameOf(a zotero.BookAttachment) string {
	if t := strings.TrimSpace(a.Title); t != "" {
		return t
	}
	return a.Name
}

func joinTitle(file, title string) string {
	if title == "" {
		return file
	}
	return file + ": " + title
}

// shiftPages numbers a chapter's pages on from those before it.
func shiftPages(c *doc.Chapter, by int) {
	if by == 0 {
		return
	}
	for i := range c.Sections {
		for j := range c.Sections[i].Blocks {
			b := &c.Sections[i].Blocks[j]
			if b.Page > 0 {
				b.Page += by
			}
			if b.PageEnd > 0 {
				b.PageEnd += by
			}
		}
	}
}
