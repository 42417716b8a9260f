// Package rtf parses Rich Text Format documents into the format-neutral
// tree of package doc: paragraphs become blocks, headings (outline levels,
// or the stylesheet's heading styles) make the chapters and sections, and
// tables and footnotes stay readable as text.
//
// The reader is a tokenizer over nested groups that tracks what each group
// holds: the body, a footnote, the document's title, author, subject or
// keywords, the font table and stylesheet it learns from, or a destination
// it skips (pictures, headers, field instructions, anything marked \*).
// Bytes written as \'hh are decoded in the code page of the current font
// (\fcharset) or the document (\ansicpg); \uN escapes are read with their
// \ucN fallbacks skipped, and the text after them kept.
//
// Blocks carry the line of the RTF file where their text starts, as the
// text and Markdown parsers do: the pipeline cites them as "L12". Group
// nesting deeper than a bound stops being tracked, and \bin data is
// skipped by its length, so a hostile file costs linear time.
package rtf

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// ErrNotRTF reports a file that does not start as an RTF document.
var ErrNotRTF = errors.New("not an RTF document")

// limits bound what one document may cost; tests shrink them.
type limits struct {
	// maxDepth is the deepest group nesting whose state is tracked.
	maxDepth int
	// maxHeading is the longest paragraph, in characters, taken as a
	// heading.
	maxHeading int
}

func defaultLimits() limits {
	return limits{maxDepth: 512, maxHeading: 300}
}

// Parse parses one RTF document, given whole in data.
//
// Title, Authors and the Catalog's tags come from the \info group,
// Language from \deflang. The error wraps ErrNotRTF when data does not
// start with "{\rtf", and is ctx's error when ctx is done. A document
// without text yields a Document without chapters. Parse is safe to call
// concurrently.
func Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	return parse(ctx, data, defaultLimits())
}

func parse(ctx context.Context, data []byte, lim limits) (*doc.Document, error) {
	body := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if !bytes.HasPrefix(body, []byte(`{\rtf`)) {
		return nil, fmt.Errorf("%w: the file does not start with {\\rtf (%s)", ErrNotRTF, describe(data))
	}
	r := newReader(ctx, data, lim)
	if err := r.run(); err != nil {
		return nil, err
	}
	d := &doc.Document{
		Title:      r.title(),
		Authors:    r.authors(),
		Language:   doc.WindowsLanguage(r.deflang),
		Catalog:    r.catalog(),
		SourceType: doc.RTF,
		Chapters:   layout(r.pars),
	}
	if len(d.Chapters) > 0 && d.Chapters[0].Title == "" {
		// Text before the first heading, without one of its own: named as
		// the document.
		d.Chapters[0].Title = d.Title
	}
	return d, nil
}

// describe says what data looks like, for a file that is not RTF.
func describe(data []byte) string {
	switch {
	case len(data) == 0:
		return "the file is empty"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return "it is a zip archive, as DOCX files are"
	case bytes.HasPrefix(data, []byte("\xd0\xcf\x11\xe0")):
		return "it is an old Word document"
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return "it is a PDF"
	}
	if bytes.IndexByte(data[:min(len(data), 512)], 0) < 0 {
		return "it looks like plain text"
	}
	return "unknown content"
}
