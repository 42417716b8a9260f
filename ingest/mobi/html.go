package mobi

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/internal/xhtml"
)

type pieceKind uint8

const (
	pieceBlock pieceKind = iota
	pieceHeading
	// pieceMark is where a TOC entry starts.
	pieceMark
)

// piece is one item of the converted HTML, in reading order.
type piece struct {
	kind  pieceKind
	bkind doc.BlockKind
	level int // of a heading, 1 to 6
	text  string
	at    int // offset in the HTML where the block's text starts
	entry int // of a mark: index in the TOC
}

// maxHeading is the longest text, in characters, taken as a heading.
const maxHeading = 300

// convertHTML converts html, in Windows-1252 when cp1252 is set and UTF-8
// otherwise, to pieces, with a mark where each TOC entry starts. The
// shared converter reads it as it is, so that every piece knows its byte
// offset: MOBI6's filepos links and the TOC's positions are byte offsets.
func convertHTML(ctx context.Context, src []byte, cp1252 bool, toc []tocEntry) ([]piece, error) {
	opts := xhtml.Options{Offsets: true, Plain: true, Positions: make([]int, len(toc))}
	for i, e := range toc {
		opts.Positions[i] = e.at
	}
	if cp1252 {
		opts.Decode = decodeCP1252
	}
	res, err := xhtml.Convert(ctx, src, opts)
	if err != nil {
		return nil, fmt.Errorf("mobi: %w", err)
	}
	out := make([]piece, 0, len(res.Pieces))
	for _, p := range res.Pieces {
		switch p.Kind {
		case xhtml.Mark:
			out = append(out, piece{kind: pieceMark, entry: p.Entry, at: p.Offset})
		case xhtml.Heading:
			if utf8.RuneCountInString(p.Text) > maxHeading {
				// Not a heading but a paragraph in heading tags (or an
				// unclosed one): text, not a title.
				out = append(out, piece{kind: pieceBlock, bkind: doc.Paragraph, text: p.Text, at: p.Offset})
				continue
			}
			out = append(out, piece{kind: pieceHeading, level: p.Level, text: p.Text, at: p.Offset})
		default:
			out = append(out, piece{kind: pieceBlock, bkind: p.Block, text: p.Text, at: p.Offset})
		}
	}
	return out, nil
}
