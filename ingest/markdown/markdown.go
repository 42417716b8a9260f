// Package markdown parses a Markdown book (CommonMark with GFM tables and
// strikethrough, optional YAML or TOML front matter) into the format-neutral
// tree of package doc: headings become chapters and sections, and the text
// under them becomes plain-text blocks that remember their source line.
package markdown

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// ctxCheckEvery is how many top-level nodes are converted between two looks
// at the context: often enough to stop a huge file promptly, rarely enough to
// cost nothing.
const ctxCheckEvery = 256

// Parse parses one Markdown file as one book.
//
// data should be UTF-8; a leading byte order mark is dropped, CRLF and lone
// CR line endings are treated as LF, and invalid bytes become U+FFFD, so any
// input parses. Front matter supplies the title, authors and language when it
// has them; malformed front matter is ignored rather than failing the book.
// Block and heading lines are 1-based lines of data as given.
//
// The error is non-nil only when ctx is done or the Markdown parser failed
// internally; a file without text yields a Document without chapters.
func Parse(ctx context.Context, data []byte) (*doc.Document, error) {
	items, fm, err := parseItems(ctx, data)
	if err != nil {
		return nil, err
	}
	chapters, title := buildChapters(items, fm.title)
	return &doc.Document{
		Title:      title,
		Authors:    fm.authors,
		Language:   fm.language,
		Catalog:    fm.catalog,
		SourceType: doc.Markdown,
		Chapters:   chapters,
	}, nil
}

// Piece is one top-level piece of a Markdown file in source order: a
// heading, or a block of text.
type Piece struct {
	Heading bool
	// Level is a heading's level, 1–6.
	Level int
	// Title is a heading's text.
	Title string
	// Line is a heading's 1-based line; a block's is in Block.
	Line  int
	Block doc.Block
}

// Pieces reads data as Parse does (front matter dropped, lines as in data)
// and returns its headings and blocks in order, for a reader that lays out
// chapters its own way: an mdBook's chapter files, whose book-wide outline
// comes from its SUMMARY.md.
func Pieces(ctx context.Context, data []byte) ([]Piece, error) {
	items, _, err := parseItems(ctx, data)
	if err != nil {
		return nil, err
	}
	out := make([]Piece, len(items))
	for i, it := range items {
		out[i] = Piece{Heading: it.heading, Level: it.level, Title: it.title, Line: it.line, Block: it.block}
	}
	return out, nil
}

// parseItems reads data into its front matter and its top-level items.
func parseItems(ctx context.Context, data []byte) ([]item, frontMatter, error) {
	if err := ctx.Err(); err != nil {
		return nil, frontMatter{}, fmt.Errorf("markdown: %w", err)
	}
	src := normalize(data)
	fm, body, bodyLine := splitFrontMatter(src)
	body = limitNesting(body)

	root, err := parseAST(ctx, body)
	if err != nil {
		return nil, fm, err
	}
	c := converter{src: body, lines: newLineIndex(body, bodyLine)}
	items, err := c.collect(ctx, root)
	return items, fm, err
}

// parseAST runs goldmark over the body in its own goroutine, so that Parse
// returns when ctx is done even though goldmark itself cannot be interrupted.
// Its cost grows faster than linearly with nesting depth (a megabyte of ever
// deeper indented lists takes seconds), and a caller's deadline must hold.
// The returned tree's segments index body (the copy it parsed is identical).
func parseAST(ctx context.Context, body []byte) (ast.Node, error) {
	type result struct {
		root ast.Node
		err  error
	}
	done := make(chan result, 1) // buffered: an abandoned parse must not block
	// The goroutine may outlive Parse, so it reads its own copy: the caller
	// is free to reuse data once Parse has returned.
	own := bytes.Clone(body)
	go func() {
		root, err := parseGoldmark(own)
		done <- result{root, err}
	}()
	select {
	case r := <-done:
		return r.root, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("markdown: %w", ctx.Err())
	}
}

// parseGoldmark runs goldmark over the normalized body. goldmark is not
// expected to panic, but it is third-party code fed untrusted files, and one
// bad book must fail alone rather than take the whole sync down.
func parseGoldmark(body []byte) (root ast.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("markdown: parser failed: %v", r)
		}
	}()
	md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))
	return md.Parser().Parse(text.NewReader(body)), nil
}

// normalize returns data as valid UTF-8 with LF line endings and no byte
// order mark. goldmark copes with CRLF itself, but code block contents would
// keep their CRs; doing it once here keeps every later step simple. Line
// numbers are unchanged, since each CRLF or lone CR stays one line break.
func normalize(data []byte) []byte {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	clean := true
	for _, c := range data {
		if c == '\r' || c == 0 {
			clean = false
			break
		}
	}
	if clean && utf8.Valid(data) {
		return data
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\r':
			out = append(out, '\n')
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
			}
		case 0:
			// CommonMark replaces NUL with U+FFFD; doing it here also keeps
			// NULs out of the index.
			out = append(out, "\uFFFD"...)
		default:
			out = append(out, c)
		}
	}
	return bytes.ToValidUTF8(out, []byte("\uFFFD"))
}

// lineIndex maps byte offsets in the body to 1-based lines of the original
// file.
type lineIndex struct {
	starts []int // offset of the first byte of each body line
	base   int   // file line of the body's first line, minus one
}

func newLineIndex(body []byte, firstLine int) lineIndex {
	starts := make([]int, 1, bytes.Count(body, []byte{'\n'})+1)
	for i, c := range body {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return lineIndex{starts: starts, base: firstLine - 1}
}

// line returns the file line holding offset off, or 0 when off is unknown.
func (l lineIndex) line(off int) int {
	if off < 0 {
		return 0
	}
	i := sort.Search(len(l.starts), func(i int) bool { return l.starts[i] > off })
	return l.base + i
}

// anchor is the doc anchor of a file line.
func anchor(line int) string {
	if line <= 0 {
		return ""
	}
	return "L" + strconv.Itoa(line)
}

// maxLineNesting bounds how many containers (quote and list markers) a
// single line may open. goldmark's work grows with the square of the depth,
// so a few tens of kilobytes of "- - - … x" would take seconds; real
// documents nest a handful of levels.
const maxLineNesting = 32

// limitNesting backslash-escapes the first container marker past
// maxLineNesting on any line, so that it and the rest of the line are text.
// Lines keep their numbers; src is returned as is when no line is that deep.
// The scan cannot tell a fenced code line from any other, so such a line in
// code would gain a backslash; no real code starts with 33 nested markers.
func limitNesting(src []byte) []byte {
	var out []byte // nil until a line needs changing
	last := 0
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		if at := deepMarker(src[start:end]); at >= 0 {
			out = append(out, src[last:start+at]...)
			out = append(out, '\\')
			last = start + at
		}
		start = end + 1
	}
	if out == nil {
		return src
	}
	return append(out, src[last:]...)
}

// deepMarker returns the offset in line of the first container marker past
// maxLineNesting, or -1. Thematic breaks ("- - - -") are left alone: they
// open nothing.
func deepMarker(line []byte) int {
	depth := 0
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			return -1
		}
		at := i
		c := line[i]
		switch {
		case c == '>':
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			i += 2
		case c >= '0' && c <= '9':
			k := i
			for k < len(line) && k-i < 9 && line[k] >= '0' && line[k] <= '9' {
				k++
			}
			if k+1 >= len(line) || line[k] != '.' && line[k] != ')' || line[k+1] != ' ' && line[k+1] != '\t' {
				return -1
			}
			at, i = k, k+2 // "1\." is text, "\1." is not an escape
		default:
			return -1
		}
		depth++
		if depth > maxLineNesting {
			if isThematicBreak(line) {
				return -1
			}
			return at
		}
	}
	return -1
}

// isThematicBreak reports whether line is only one of "-", "*", "_" with
// spaces, as a thematic break is.
func isThematicBreak(line []byte) bool {
	var mark byte
	for _, c := range line {
		switch {
		case c == ' ' || c == '\t':
		case mark == 0 && (c == '-' || c == '*' || c == '_'):
			mark = c
		case c != mark:
			return false
		}
	}
	return mark != 0
}
