// Package mdbook parses a book written as a folder of Markdown files (an
// mdBook) into the format-neutral tree of package doc. It reads the bytes
// the pipeline makes of the folder: a first line that names the format, a
// line of JSON that lists SUMMARY.md's entries in order (title, nesting,
// part titles, and each chapter's file and size), then the chapter files
// one after the other. Top-level entries become chapters and the entries
// nested under them sections, named by SUMMARY.md; each file's own headings
// cut it further. Passages are cited by their file and line
// ("ch03-02-data-types.md#L12").
package mdbook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/grimoire-search/grimoire/ingest/doc"
	"github.com/grimoire-search/grimoire/ingest/markdown"
)

// Magic starts the bytes of a book read from an mdBook folder.
const Magic = "grimoire-mdbook 1\n"

// ErrDamaged means the bytes are not those of a folder book.
var ErrDamaged = errors.New("mdbook: not a book read from an mdBook folder")

// maxHeader bounds the line that lists the entries: ten thousand entries
// with long titles stay far below it.
const maxHeader = 16 << 20

// header is the line of JSON that lists the book's entries.
type header struct {
	Title    string   `json:"title"`
	Authors  []string `json:"authors"`
	Language string   `json:"language"`
	Entries  []entry  `json:"entries"`
}

type entry struct {
	Title string `json:"title"`
	Level int    `json:"level"`
	Part  bool   `json:"part"`
	File  string `json:"file"`
	Size  int64  `json:"size"`
}

// maxLevel is the deepest nesting read; deeper entries are read at it.
const maxLevel = 16

// Parse reads a folder book's bytes into a document.
func Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	rest, ok := bytes.CutPrefix(data, []byte(Magic))
	if !ok {
		return nil, doc.Failf(ErrDamaged, "mdbook: the book does not start as a folder book does")
	}
	line, body, ok := bytes.Cut(rest[:min(len(rest), maxHeader)], []byte{'\n'})
	if !ok {
		return nil, doc.Failf(ErrDamaged, "mdbook: the list of chapters has no end")
	}
	body = rest[len(line)+1:]
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, doc.Failf(ErrDamaged, "mdbook: the list of chapters does not read: %w", err)
	}
	files, err := split(h.Entries, body)
	if err != nil {
		return nil, err
	}
	b := builder{}
	for i, e := range h.Entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := b.add(ctx, e, files[i]); err != nil {
			return nil, err
		}
	}
	return &doc.Document{
		Title:      strings.TrimSpace(h.Title),
		Authors:    h.Authors,
		Language:   h.Language,
		SourceType: doc.MDBook,
		Chapters:   b.chapters,
	}, nil
}

// split cuts body into the entries' files, by their sizes, which must
// account for every byte.
func split(entries []entry, body []byte) ([][]byte, error) {
	out := make([][]byte, len(entries))
	for i, e := range entries {
		if e.File == "" {
			continue
		}
		if e.Size < 0 || e.Size > int64(len(body)) {
			return nil, doc.Failf(ErrDamaged, "mdbook: %s is said to hold %d bytes, past the end of the book", e.File, e.Size)
		}
		out[i], body = body[:e.Size], body[e.Size:]
	}
	if len(body) > 0 {
		return nil, doc.Failf(ErrDamaged, "mdbook: %d bytes after the last chapter", len(body))
	}
	return out, nil
}

// builder lays the entries out as chapters and sections.
type builder struct {
	chapters []doc.Chapter
	// part is the title of the part the entries at hand are in.
	part string
	// heads are the titles of the entries the one at hand is nested in,
	// by level; heads[0] is its chapter's.
	heads []string
}

func (b *builder) add(ctx context.Context, e entry, data []byte) error {
	title := strings.TrimSpace(e.Title)
	level := min(max(e.Level, 0), maxLevel)
	if e.Part {
		b.part, b.heads = title, b.heads[:0]
		return nil
	}
	if level == 0 || len(b.chapters) == 0 {
		name := title
		if b.part != "" {
			name = b.part + " › " + title
		}
		b.chapters = append(b.chapters, doc.Chapter{Title: name, Anchor: e.File})
		b.heads = append(b.heads[:0], title)
		level = 0
	} else {
		b.heads = append(b.heads[:min(level, len(b.heads))], title)
	}
	if e.File == "" {
		return nil
	}
	pieces, err := markdown.Pieces(ctx, StripDirectives(data))
	if err != nil {
		return err
	}
	// Sections are named by the path of entries below the chapter, then
	// the file's headings: "Data Types › Scalar Types". A chapter's own
	// file opens with a section named as the entry, without its part.
	path := b.heads
	if level > 0 {
		path = b.heads[1:]
	}
	ch := &b.chapters[len(b.chapters)-1]
	ch.Sections = append(ch.Sections, sections(pieces, strings.Join(path, " › "), e.File)...)
	return nil
}

// sections cuts a chapter file into sections at the headings one level
// under its title heading (the heading it opens with, which SUMMARY.md's
// entry names), and at any heading above that level (a closing "##
// Summary" in a file of "###" sections). Deeper headings stay in the text.
// Each section's title is prefix and its heading; the opening one's is
// prefix alone.
func sections(pieces []markdown.Piece, prefix, file string) []doc.Section {
	top := 0
	if len(pieces) > 0 && pieces[0].Heading {
		top = pieces[0].Level
		pieces = pieces[1:]
	}
	level := 0
	for _, p := range pieces {
		if p.Heading && p.Level > top && (level == 0 || p.Level < level) {
			level = p.Level
		}
	}
	if level == 0 {
		level = top // only headings as high as the title: each one a section
	}
	at := func(line int) string {
		if line <= 0 {
			return file
		}
		return file + "#L" + strconv.Itoa(line)
	}
	out := []doc.Section{{Title: prefix}}
	for _, p := range pieces {
		cur := &out[len(out)-1]
		switch {
		case p.Heading && p.Level <= level:
			t := p.Title
			if prefix != "" {
				t = prefix + " › " + t
			}
			out = append(out, doc.Section{Title: t, Anchor: at(p.Line)})
		case p.Heading:
			cur.Blocks = append(cur.Blocks, doc.Block{Kind: doc.Paragraph, Text: p.Title, Line: p.Line, Anchor: at(p.Line)})
		default:
			blk := p.Block
			blk.Anchor = at(blk.Line)
			if cur.Anchor == "" {
				cur.Anchor = blk.Anchor
			}
			cur.Blocks = append(cur.Blocks, blk)
		}
	}
	kept := out[:0]
	for _, s := range out {
		if len(s.Blocks) > 0 {
			kept = append(kept, s)
		}
	}
	return kept
}

// directive is an mdBook preprocessor call: {{#include file.rs}},
// {{#rustdoc_include …}}, {{#playground …}}, {{#title …}}.
var directive = regexp.MustCompile(`\{\{#[A-Za-z_][A-Za-z0-9_-]*[^}\n]*\}\}`)

// StripDirectives removes mdBook's preprocessor calls, which name files
// grimoire does not read: they are no text of the book. A line that held
// only calls becomes blank, so that lines keep their numbers.
func StripDirectives(data []byte) []byte {
	if !bytes.Contains(data, []byte("{{#")) {
		return data
	}
	return directive.ReplaceAll(data, nil)
}
