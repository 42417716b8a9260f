// Package epub parses an EPUB 2 or EPUB 3 book into the format-neutral tree
// of package doc: the table of contents (EPUB 3 nav, else EPUB 2 NCX, else
// the spine) gives the chapters and sections, and the XHTML content
// documents become plain-text blocks that cite their place in the book.
//
// Every Chapter, Section and Block carries an Anchor naming the content
// document by its full path inside the archive, with the fragment of the
// nearest element id where there is one ("OEBPS/ch01.xhtml#loomings",
// "OPS/chapter_001.xhtml"). EPUBs have no pages, so Block.Page stays 0.
//
// The archive is untrusted input: it is read in memory only, entries with
// unsafe names are ignored, decompression is capped per entry and in total,
// and DRM-encrypted books are reported as such instead of producing noise.
package epub

import (
	"context"
	"errors"
	"fmt"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// Errors that Parse wraps, so that callers can tell the kinds of failure
// apart with errors.Is; the messages themselves say what is wrong.
var (
	// ErrNotEPUB reports a file that is not a readable EPUB: not a zip, no
	// container, a missing or broken package document.
	ErrNotEPUB = errors.New("not an EPUB")
	// ErrDRM reports content that is encrypted with a scheme other than font
	// obfuscation.
	ErrDRM = errors.New("DRM-protected")
	// ErrTooLarge reports an archive that would decompress to more than a
	// book can plausibly need, which is how zip bombs look.
	ErrTooLarge = errors.New("EPUB too large to read safely")
)

// failf returns an error of the given kind whose message is the formatted
// text alone; a %w verb in format also makes its operand a cause.
func failf(kind error, format string, args ...any) error {
	return doc.Failf(kind, format, args...)
}

// limits bound what one book may cost. They are values, not package state,
// so that tests can shrink them.
type limits struct {
	// maxEntries is the most zip entries an archive may have.
	maxEntries int
	// maxEntry is the most bytes one entry may decompress to.
	maxEntry int64
	// maxTotal is the most bytes all entries read for one book may
	// decompress to together.
	maxTotal int64
	// maxTOCEntries bounds the table of contents; past it the rest is
	// ignored.
	maxTOCEntries int
}

func defaultLimits() limits {
	return limits{
		maxEntries:    20000,
		maxEntry:      64 << 20,
		maxTotal:      512 << 20,
		maxTOCEntries: 20000,
	}
}

// Parse parses one EPUB file, given whole in data, as one book.
//
// Title, Authors, Language and the Catalog come from the package document
// (OPF). The
// error is non-nil when data is not a readable EPUB (ErrNotEPUB), when its
// content is DRM-encrypted (ErrDRM), when it would decompress to more than
// 64 MB in one entry or 512 MB in all, or has more than 20,000 entries
// (ErrTooLarge), or holds more than doc.MaxText of text (doc.ErrTooLarge),
// or when ctx is done. A book whose documents hold no text
// yields a Document without chapters. Parse keeps no state between calls
// and is safe to call concurrently.
func Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	return parse(ctx, data, defaultLimits())
}

func parse(ctx context.Context, data []byte, lim limits) (*doc.Document, error) {
	b, err := readBook(ctx, data, lim)
	if err != nil {
		return nil, err
	}
	return &doc.Document{
		Title:      b.pkg.meta.Title,
		Authors:    b.pkg.meta.Authors,
		Language:   b.pkg.meta.Language,
		Catalog:    b.pkg.meta.Catalog(),
		SourceType: doc.EPUB,
		Chapters:   b.chapters(),
	}, nil
}

// readBook opens the archive, reads the package document and the table of
// contents, and converts every spine document.
func readBook(ctx context.Context, data []byte, lim limits) (*book, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("epub: %w", err)
	}
	a, err := openArchive(data, lim)
	if err != nil {
		return nil, err
	}
	pkg, err := readPackage(a)
	if err != nil {
		return nil, err
	}
	if err := pkg.checkDRM(); err != nil {
		return nil, err
	}
	b := &book{ctx: ctx, a: a, pkg: pkg, lim: lim}
	if err := b.load(); err != nil {
		return nil, err
	}
	return b, nil
}
