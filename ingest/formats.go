package ingest

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/docx"
	"github.com/grimoire-search/grimoire/ingest/epub"
	"github.com/grimoire-search/grimoire/ingest/fb2"
	"github.com/grimoire-search/grimoire/ingest/html"
	"github.com/grimoire-search/grimoire/ingest/markdown"
	"github.com/grimoire-search/grimoire/ingest/mdbook"
	"github.com/grimoire-search/grimoire/ingest/mobi"
	"github.com/grimoire-search/grimoire/ingest/odt"
	"github.com/grimoire-search/grimoire/ingest/pdf"
	"github.com/grimoire-search/grimoire/ingest/rtf"
	"github.com/grimoire-search/grimoire/ingest/text"
	izotero "github.com/grimoire-search/grimoire/ingest/zotero"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/source/zotero"
)

// Format is one kind of book file that grimoire reads: how its files are
// named and how they start, the parser that reads them, and what a book of
// it without text means. Adding a format is a parser package and one entry
// in Formats.
type Format struct {
	// Type names the format in the index and to users: one of doc's
	// source types.
	Type string
	// Name is what people call the format, in the lists of formats that
	// users and models read (--help, the MCP server's instructions).
	Name string
	// Extensions are the endings of the format's file names, lower case,
	// with the dot (".fb2.zip" has two); no two formats share one. A
	// file's format is judged by its name alone, by the longest ending
	// that matches.
	Extensions []string
	// Magic is how the format's content starts, as its parser checks
	// before it reads anything ("%PDF-", which PDF readers accept anywhere
	// in the first kilobyte; the "PK\x03\x04" of a ZIP archive; a Kindle
	// book's "BOOKMOBI", at offset 60 of its Palm database header; for FB2,
	// whose XML may start many ways or come zipped, the root element it
	// requires): a format with magic reads only its own content. Empty for
	// a format that reads any text.
	Magic string
	// EmptyFails makes a document of the format without text fail its
	// book, where the user sees it and can act on it (OCR a scan), as a
	// file of 0 bytes is reported and never a book: a note of front
	// matter alone is no book of 0 passages. Only an mdBook, a folder
	// whose SUMMARY.md lists its chapters, is kept without text.
	EmptyFails bool
	// NoTextHint is the failure recorded for a book of the format without
	// text, unless its parser's error already names OCR; empty: the
	// parser's own words, else "no text found".
	NoTextHint string
	// Folder: the format's books are folders, which the walk finds (see
	// internal/mdbook); no extension names them, and the pipeline hands
	// the parser the folder's files as one stream of bytes.
	Folder bool
	// open makes the format's parser. A parser that holds something until
	// closed (PDFium) implements io.Closer; Parsers closes it.
	open func(log *slog.Logger) parser
}

// parser reads the files of one format.
type parser interface {
	// Parse reads a book's bytes into a document. A file it cannot read
	// fails with an error that says why; it stops at ctx's deadline.
	Parse(ctx context.Context, data []byte) (*doc.Document, error)
}

// parseFunc is a parser that holds nothing between books.
type parseFunc func(ctx context.Context, data []byte) (*doc.Document, error)

func (f parseFunc) Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	return f(ctx, data)
}

// stateless opens a parser that holds nothing between books.
func stateless(f parseFunc) func(*slog.Logger) parser {
	return func(*slog.Logger) parser { return f }
}

// Registry is the formats grimoire reads.
type Registry []Format

// Formats returns the formats grimoire reads. When a book's paths name
// several, those with magic are tried before the others, each group in this
// order: HTML says more than Markdown, which says more than plain text.
func Formats() Registry {
	return Registry{
		{
			Type: doc.PDF, Name: "PDF", Extensions: []string{".pdf"}, Magic: "%PDF-", EmptyFails: true,
			NoTextHint: "no text found: a scanned PDF needs OCR first (for example with ocrmypdf)",
			open: func(log *slog.Logger) parser {
				// PDFium starts on the first PDF only, not here.
				return pdf.NewExtractor(pdf.Options{Logger: log})
			},
		},
		{Type: doc.EPUB, Name: "EPUB", Extensions: []string{".epub"}, Magic: "PK\x03\x04", EmptyFails: true, open: stateless(epub.Parse)},
		// One parser reads both Kindle formats; they are two types because
		// users know them apart.
		{Type: doc.MOBI, Name: "MOBI", Extensions: []string{".mobi", ".azw", ".prc"}, Magic: "BOOKMOBI", EmptyFails: true, open: stateless(mobi.Parse)},
		{Type: doc.AZW3, Name: "AZW3", Extensions: []string{".azw3"}, Magic: "BOOKMOBI", EmptyFails: true, open: stateless(mobi.Parse)},
		{Type: doc.RTF, Name: "RTF", Extensions: []string{".rtf"}, Magic: "{\\rtf", EmptyFails: true, open: stateless(rtf.Parse)},
		{Type: doc.DOCX, Name: "Word (DOCX)", Extensions: []string{".docx"}, Magic: "PK\x03\x04", EmptyFails: true, open: stateless(docx.Parse)},
		{Type: doc.ODT, Name: "OpenDocument (ODT)", Extensions: []string{".odt"}, Magic: "PK\x03\x04", EmptyFails: true, open: stateless(odt.Parse)},
		{Type: doc.HTMLZ, Name: "HTMLZ", Extensions: []string{".htmlz"}, Magic: "PK\x03\x04", EmptyFails: true, open: stateless(html.ParseHTMLZ)},
		{
			Type: doc.DjVu, Name: "DjVu", Extensions: []string{".djvu", ".djv"}, Magic: "AT&TFORM", EmptyFails: true,
			NoTextHint: "no text found: the DjVu document has neither a text layer nor page images",
			open:       func(*slog.Logger) parser { return djvuParser{} },
		},
		{Type: doc.FB2, Name: "FB2", Extensions: []string{".fb2", ".fb2.zip"}, Magic: "<FictionBook", EmptyFails: true, open: stateless(fb2.Parse)},
		{
			Type: doc.HTML, Name: "HTML", Extensions: []string{".html", ".htm", ".xhtml"}, EmptyFails: true,
			NoTextHint: "no text found: the page's text may be written by scripts, which grimoire does not run; save the page from the browser once it shows the text",
			open:       stateless(html.Parse),
		},
		{Type: doc.MDBook, Name: "mdBook", Folder: true, Magic: mdbook.Magic, open: stateless(mdbook.Parse)},
		{
			Type: zotero.Type, Name: "Zotero item", Folder: true, Magic: zotero.BookMagic, EmptyFails: true,
			NoTextHint: "no text found in the item's attachments, and it has no notes",
			open:       func(*slog.Logger) parser { return zoteroParser{} },
		},
		{
			Type: doc.Markdown, Name: "Markdown", Extensions: []string{".md", ".markdown", ".mdown", ".mkd"}, EmptyFails: true,
			NoTextHint: "no text found: the file holds nothing but front matter, headings or blank lines",
			open:       stateless(parseMarkdown),
		},
		{Type: doc.Text, Name: "plain text", Extensions: []string{".txt", ".text"}, EmptyFails: true, open: stateless(text.Parse)},
	}
}

// parseMarkdown decodes a Markdown file as a text file first: Markdown
// files come in the same encodings (Windows-1252, UTF-16 from Windows
// editors).
func parseMarkdown(ctx context.Context, data []byte) (*doc.Document, error) {
	s, _, err := text.Decode(data)
	if err != nil {
		return nil, err
	}
	return markdown.Parse(ctx, []byte(s))
}

// Types returns the formats' types, in the registry's order.
func (r Registry) Types() []string {
	out := make([]string, len(r))
	for i, f := range r {
		out[i] = f.Type
	}
	return out
}

// Names returns the formats' names, in the registry's order.
func (r Registry) Names() []string {
	out := make([]string, len(r))
	for i, f := range r {
		out[i] = f.Name
	}
	return out
}

// TypeOf returns the source type of the file at path by its extension, or
// "" when grimoire does not read that kind of file.
func (r Registry) TypeOf(path string) string {
	name := strings.ToLower(filepath.Base(path))
	typ, longest := "", 0
	for _, f := range r {
		for _, ext := range f.Extensions {
			if len(ext) > longest && strings.HasSuffix(name, ext) {
				typ, longest = f.Type, len(ext)
			}
		}
	}
	return typ
}

// hasMagic reports whether data starts as the format's content does, as
// far as the first kilobyte tells (PDF readers accept "%PDF-" anywhere in
// it); a format without magic reads anything.
func (f Format) hasMagic(data []byte) bool {
	return f.Magic == "" || bytes.Contains(data[:min(len(data), 1024)], []byte(f.Magic))
}

// lookup returns the format of type typ, and false when none has it.
func (r Registry) lookup(typ string) (Format, bool) {
	for _, f := range r {
		if f.Type == typ {
			return f, true
		}
	}
	return Format{}, false
}

// order returns the types of a book's paths, each once, in the order they
// are tried: a format with magic takes only its own content while any text
// reads as Markdown or as text, so those come first. fallback is the book's
// own type, for a book without typed paths.
func (r Registry) order(files []library.File, fallback string) []string {
	seen := make(map[string]bool)
	for _, f := range files {
		seen[f.SourceType] = true
	}
	var out []string
	for _, magic := range []bool{true, false} {
		for _, f := range r {
			if (f.Magic != "") == magic && seen[f.Type] {
				out = append(out, f.Type)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, fallback)
	}
	return out
}

// zoteroParser reads a Zotero item, each of its attachments by the parser
// of its format (see compound).
type zoteroParser struct{}

func (zoteroParser) Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	return nil, errors.New("a Zotero item is read with the parsers of its attachments' formats")
}

func (zoteroParser) ParseParts(ctx context.Context, data []byte, recognised map[int]string, parts izotero.Parts) (*doc.Document, error) {
	return izotero.Parse(ctx, data, parts, recognised)
}

func (zoteroParser) RenderParts(ctx context.Context, data []byte, pages []int, dpi float64, each func(doc.PageImage) error, parts izotero.Parts) error {
	return izotero.RenderPages(ctx, data, parts, pages, dpi, each)
}
