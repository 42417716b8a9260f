// Package mobi parses Kindle books into the format-neutral tree of package
// doc: Mobipocket files (MOBI, AZW, "MOBI6"), KF8 files (AZW3), and the
// combined files kindlegen writes, which hold both; of those it reads the
// KF8 part, and falls back to the MOBI6 part when that one fails.
//
// The layers, bottom up: a Palm database of records (palmdb.go); record 0's
// MOBI header and EXTH metadata (header.go); the text records, PalmDOC- or
// HUFF/CDIC-compressed, with their trailing entries (text.go,
// decompress.go); the INDX records that hold the table of contents and
// KF8's skeleton and fragment tables (indx.go); KF8 reassembly (kf8.go);
// and the HTML that results, turned into blocks and cut into chapters at
// the table of contents (html.go, structure.go).
//
// Anchors are positions in the book's text as Kindle links name them:
// "filepos=12345" in MOBI6, "kindle:pos:fid:0004:off:0000000000" in KF8.
//
// Every offset and count read from the file is checked against the data it
// points into; decompression, index tables and reassembly are capped, so a
// hostile file costs bounded time and memory. DRM-protected books fail with
// ErrDRM and are never decoded into noise.
package mobi

import (
	"context"
	"errors"
	"fmt"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// Errors that Parse wraps, so that callers can tell the kinds of failure
// apart with errors.Is; the messages themselves say what is wrong.
var (
	// ErrNotMOBI reports a file that is no Kindle book: not a Palm
	// database, or one of another kind (Topaz, KFX).
	ErrNotMOBI = errors.New("not a MOBI file")
	// ErrDRM reports a book whose text is encrypted.
	ErrDRM = errors.New("DRM-protected")
	// ErrDamaged reports a Kindle book whose structure is broken: text
	// records that do not decompress, headers that point outside the file.
	ErrDamaged = errors.New("damaged MOBI file")
	// ErrTooLarge reports a book whose text would decompress past the
	// limits, which is how decompression bombs look.
	ErrTooLarge = errors.New("MOBI text too large to read safely")
)

// failf returns an error of the given kind whose message is the kind's
// text, a colon, and the formatted details; a %w verb in format also makes
// its operand a cause.
func failf(kind error, format string, args ...any) error {
	return doc.Failf(kind, "%s: "+format, append([]any{kind.Error()}, args...)...)
}

// limits bound what one book may cost. They are values, not package state,
// so that tests can shrink them.
type limits struct {
	// maxRecords is the most records a Palm database may declare.
	maxRecords int
	// maxText is the most bytes the text records may decompress to.
	maxText int
	// maxRecordText is the most bytes one text record may decompress to;
	// writers use 4096.
	maxRecordText int
	// maxIndexEntries bounds each INDX table (TOC, skeletons, fragments).
	maxIndexEntries int
	// maxHuffDepth bounds the nesting of HUFF/CDIC dictionary phrases.
	maxHuffDepth int
}

func defaultLimits() limits {
	return limits{
		maxRecords:      65535,
		maxText:         256 << 20,
		maxRecordText:   64 << 10,
		maxIndexEntries: 100000,
		maxHuffDepth:    32,
	}
}

// Parse parses one Kindle book, given whole in data.
//
// Title, Authors and Language come from the EXTH metadata, else the MOBI
// header. Chapters and sections follow the book's NCX index, else its
// headings. The error wraps ErrNotMOBI when data is no Kindle book, ErrDRM
// when its text is encrypted, ErrDamaged when its structure is broken,
// ErrTooLarge when it would decompress past 256 MB, and ctx's error when
// ctx is done. Parse keeps no state between calls and is safe to call
// concurrently.
func Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	return parse(ctx, data, defaultLimits())
}

func parse(ctx context.Context, data []byte, lim limits) (*doc.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("mobi: %w", err)
	}
	db, err := readPalmDB(data, lim)
	if err != nil {
		return nil, err
	}
	b, err := readBook(ctx, db, lim)
	if err != nil {
		return nil, err
	}
	return b.document(ctx)
}
