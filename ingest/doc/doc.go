// Package doc is the format-neutral document tree that every parser produces
// and the ingest pipeline consumes: a book made of chapters, sections and
// blocks of text, with the locations needed for citations.
//
// Parsers fill in what their format knows; the pipeline does the rest
// (splitting long sections, chunking, context, embedding), so a parser never
// needs to know about chunk sizes or the index.
package doc

import (
	"errors"
	"fmt"
	"strings"
)

// Source types, as stored in the index and shown to users.
const (
	Markdown = "markdown"
	Text     = "text"
	PDF      = "pdf"
	EPUB     = "epub"
	FB2      = "fb2"
	DOCX     = "docx"
	ODT      = "odt"
	HTML     = "html"
	// HTMLZ is calibre's zipped HTML: a page, its metadata.opf and its
	// pictures.
	HTMLZ = "htmlz"
	// MOBI is a Mobipocket or combined MOBI/KF8 Kindle book (.mobi, .azw).
	MOBI = "mobi"
	// AZW3 is a KF8 Kindle book.
	AZW3 = "azw3"
	RTF  = "rtf"
	// DjVu is a scanned document with a hidden text layer (.djvu, .djv).
	DjVu = "djvu"
	// MDBook is a book written as a folder of Markdown files whose
	// SUMMARY.md lists the chapters (mdBook's layout).
	MDBook = "mdbook"
)

// Document is one parsed book.
type Document struct {
	// Title is the book's title from its metadata (front matter, Gutenberg
	// header, OPF, PDF Info); empty when the format did not say, in which case
	// the pipeline falls back to the file name.
	Title string
	// Authors in the order the source lists them; may be empty.
	Authors []string
	// Language is a BCP 47 tag when known ("en", "fr"), else empty.
	Language string
	// Catalog is what else the file says of the book (publisher, tags,
	// date, identifiers, series); zero when it says nothing.
	Catalog Catalog
	// SourceType is one of the source types above.
	SourceType string
	// PageCount is the number of pages for paged formats, else 0.
	PageCount int
	// PageLabels are the printed page names ("iv", "12", "T-1") for paged
	// formats that define them: PageLabels[i] names the page with index
	// i+1. Empty when the format has none; then the index is the label.
	PageLabels []string
	// Scanned are the pages (1-based, ascending) that are images without a
	// text layer: scans, whose text only OCR can read. A page whose
	// recognised text was handed to the parser is still listed; its text
	// is in Chapters like any other.
	Scanned []int
	// Chapters in reading order. A parser returns at least one chapter for a
	// document with any text; a document without text has none.
	Chapters []Chapter
}

// Chapter is a top-level division: a PDF outline entry, an EPUB TOC entry, a
// Markdown top heading, a "CHAPTER I." line.
type Chapter struct {
	Title string
	// Anchor locates the chapter in the source: "L12" (line) for text and
	// Markdown, "ch1.xhtml#s2" for EPUB, empty for PDF (pages say it).
	Anchor string
	// Sections in order. Text before the first titled section is a section
	// with an empty Title. A chapter with text has at least one section.
	Sections []Section
}

// Section is a sub-division of a chapter (a sub-heading, a TOC sub-entry).
type Section struct {
	Title  string
	Anchor string
	Blocks []Block
}

// BlockKind says how a block may be split when chunking.
type BlockKind int

const (
	// Paragraph is running prose; it may be split at sentence boundaries.
	Paragraph BlockKind = iota
	// Code is preformatted text that is kept whole where it fits a chunk and
	// otherwise split only at line boundaries.
	Code
	// List, Table and Quote are kept together where possible, like Code, but
	// may be split at line boundaries.
	List
	Table
	Quote
)

// String names the kind, as golden files and logs show it.
func (k BlockKind) String() string {
	switch k {
	case Paragraph:
		return "paragraph"
	case Code:
		return "code"
	case List:
		return "list"
	case Table:
		return "table"
	case Quote:
		return "quote"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Block is a unit of text that chunking keeps together where it can.
type Block struct {
	Kind BlockKind
	Text string
	// Page is the 1-based page index for paged formats, else 0.
	Page int
	// PageEnd is the last page the block spans (0 when it is Page).
	PageEnd int
	// Line is the 1-based source line where the block starts, when known.
	Line int
	// Anchor is a format-specific location more precise than the section's
	// (an EPUB element id), when known.
	Anchor string
}

// ErrNoText reports a document that parsed but holds no text at all, such as
// a scanned PDF without a text layer.
var ErrNoText = errors.New("no text found")

// Text returns the section's text, blocks separated by blank lines.
func (s Section) Text() string {
	parts := make([]string, 0, len(s.Blocks))
	for _, b := range s.Blocks {
		if t := strings.TrimSpace(b.Text); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Blocks returns every block of the document, in reading order.
func (d *Document) Blocks() []Block {
	var out []Block
	for _, c := range d.Chapters {
		for _, s := range c.Sections {
			out = append(out, s.Blocks...)
		}
	}
	return out
}

// Text returns the text of every block, blocks separated by blank lines.
func (d *Document) Text() string {
	blocks := d.Blocks()
	parts := make([]string, len(blocks))
	for i, b := range blocks {
		parts[i] = b.Text
	}
	return strings.Join(parts, "\n\n")
}

// Empty reports whether the document has no text in any block.
func (d *Document) Empty() bool {
	for _, b := range d.Blocks() {
		if strings.TrimSpace(b.Text) != "" {
			return false
		}
	}
	return true
}
