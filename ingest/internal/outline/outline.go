// Package outline lays out a document that a parser reads as a stream of
// headings and blocks (DOCX and ODT paragraphs, FB2 sections, HTML h1–h6)
// as the chapters and sections of package doc, from the document's own
// heading levels.
//
// The headings form a tree. Its top level gives the chapters and the level
// under each chapter its sections; deeper headings stay in their section as
// text. A top level that only wraps the book (a title over everything, one
// part that holds nearly all chapters, a "Contents" heading beside the
// book's title) gives way to the level under it. Text is never dropped.
package outline

import (
	"strings"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/ingest/doc"
)

// MaxLevel is the deepest heading level kept apart; deeper headings count
// as this level, so hostile nesting costs no deep recursion.
const MaxLevel = 32

// maxDerivedTitle is the longest first line an untitled heading takes as
// its title, in characters.
const maxDerivedTitle = 80

// Builder gathers a document's headings and blocks in reading order. The
// zero value is ready to use.
type Builder struct {
	items []item
	// open is 1 + the index in items of the block that lines of its kind
	// still join, 0 when none.
	open  int
	notes []doc.Block
	// name is the title of a heading that stood alone over all the others.
	name string
	// size is the bytes of text taken so far; past doc.MaxText, err is
	// set and no more text is taken.
	size int64
	err  error
}

// take counts n more bytes of text, and reports whether they fit.
func (b *Builder) take(n int) bool {
	if b.err != nil {
		return false
	}
	b.size += int64(n)
	b.err = doc.CheckText(b.size)
	return b.err == nil
}

// Err returns doc.ErrTooLarge's failure once the text given passes
// doc.MaxText, else nil. Text given after that is dropped, so a parser
// may check it only now and then, and must before Chapters.
func (b *Builder) Err() error { return b.err }

type item struct {
	heading bool
	level   int
	title   string
	untitle bool // a heading without a title of its own
	anchor  string
	block   doc.Block
}

// Heading starts a division. Level 0 is a document's title, 1 and deeper
// its divisions; an empty title is a division without one (an FB2 section),
// which takes the first line of its text as its title when that is short.
// Footnotes gathered so far end the division before it.
func (b *Builder) Heading(level int, title, anchor string) {
	b.flushNotes()
	level = max(0, min(level, MaxLevel))
	title = strings.TrimSpace(title)
	if !b.take(len(title)) {
		return
	}
	b.items = append(b.items, item{heading: true, level: level, title: title, untitle: title == "", anchor: anchor})
	b.open = 0
}

// Block adds a block of text. Blocks without text are ignored, and white
// space around the text of any but code goes.
func (b *Builder) Block(blk doc.Block) {
	if strings.TrimSpace(blk.Text) == "" {
		return
	}
	if blk.Kind != doc.Code {
		blk.Text = strings.TrimSpace(blk.Text)
	}
	if b.take(len(blk.Text)) {
		b.add(blk)
	}
}

func (b *Builder) add(blk doc.Block) {
	b.items = append(b.items, item{block: blk})
	b.open = 0
}

// Line adds one paragraph of a document that writes lists, code and quotes
// a paragraph a line: consecutive lines of kind List, Code or Quote join
// into one block, one line each; a Paragraph is a block of its own. Empty
// lines end nothing but a Code block keeps them inside.
func (b *Builder) Line(kind doc.BlockKind, text, anchor string) {
	if b.open > 0 && b.items[b.open-1].block.Kind == kind && kind != doc.Paragraph {
		blk := &b.items[b.open-1].block
		if (strings.TrimSpace(text) != "" || kind == doc.Code) && b.take(1+len(text)) {
			blk.Text += "\n" + strings.TrimRight(text, " \t")
		}
		return
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	if kind != doc.Code {
		text = strings.TrimSpace(text)
	}
	if !b.take(len(text)) {
		return
	}
	b.items = append(b.items, item{block: doc.Block{Kind: kind, Text: text, Anchor: anchor}})
	b.open = 0
	if kind != doc.Paragraph {
		b.open = len(b.items)
	}
}

// Note adds a footnote's text. Notes go after the text of the division
// that refers to them, before the next heading, where a reader of the
// division finds them.
func (b *Builder) Note(text, anchor string) {
	// A note cited many times is given each time: counted each time.
	if strings.TrimSpace(text) != "" && b.take(len(text)) {
		b.notes = append(b.notes, doc.Block{Kind: doc.Paragraph, Text: text, Anchor: anchor})
	}
}

func (b *Builder) flushNotes() {
	for _, n := range b.notes {
		n.Text = strings.TrimSpace(n.Text) // counted by Note
		b.add(n)
	}
	b.notes = b.notes[:0]
}

// Name returns, after Chapters, the title of a heading that stands alone
// at the top and holds all the others: the document's name, for a
// document whose metadata gives none. It is "" when there is no such
// heading.
func (b *Builder) Name() string { return b.name }

// node is a heading with what it holds: its own blocks up to the next
// heading, and the headings under it.
type node struct {
	it     *item
	blocks []doc.Block
	kids   []*node
	size   int // bytes of text in the node and all under it
	// leadIn is set when the node gave way: it keeps only its own blocks.
	leadIn bool
	// tookLine is set when an untitled node's first line became its title
	// and left its blocks.
	tookLine bool
}

// Chapters lays the document out. preamble names the chapter of text that
// comes before the first heading (the document's title, when it has one);
// empty, the chapter is named by its first line when that is short. A
// document without text has no chapters.
func (b *Builder) Chapters(preamble string) []doc.Chapter {
	b.flushNotes()
	root := &node{}
	stack := []*node{root}
	for i := range b.items {
		it := &b.items[i]
		if !it.heading {
			top := stack[len(stack)-1]
			top.blocks = append(top.blocks, it.block)
			continue
		}
		for len(stack) > 1 && stack[len(stack)-1].it.level >= it.level {
			stack = stack[:len(stack)-1]
		}
		n := &node{it: it}
		parent := stack[len(stack)-1]
		parent.kids = append(parent.kids, n)
		stack = append(stack, n)
	}
	// Levels are bounded and a heading's kids are deeper than it, so the
	// walks below recurse at most MaxLevel+2 deep.
	nameUntitled(root)
	measure(root)

	if len(root.kids) == 1 && len(root.kids[0].kids) > 0 {
		b.name = root.kids[0].it.title
	}
	var out []doc.Chapter
	if preamble == "" {
		// A preamble without a name is named like an untitled division.
		var took bool
		if preamble, root.blocks, took = takeTitle(root.blocks); took && len(root.blocks) == 0 {
			root.blocks = []doc.Block{{Kind: doc.Paragraph, Text: preamble}}
		}
	}
	if len(root.blocks) > 0 {
		out = append(out, doc.Chapter{Title: preamble, Sections: []doc.Section{{Blocks: root.blocks}}})
	}
	for _, n := range chapterNodes(root.kids) {
		if ch, ok := n.chapter(); ok {
			out = append(out, ch)
		}
	}
	return out
}

// measure sets the size of n and everything under it.
func measure(n *node) int {
	n.size = 0
	for _, blk := range n.blocks {
		n.size += len(blk.Text)
	}
	for _, k := range n.kids {
		n.size += measure(k)
	}
	return n.size
}

// nameUntitled gives untitled headings the first line of their text, when
// it is short enough to be a title. A block that is only that line is the
// heading, and leaves the text, as a title does.
func nameUntitled(n *node) {
	if n.it != nil && n.it.untitle {
		n.it.title, n.blocks, n.tookLine = takeTitle(n.blocks)
	}
	for _, k := range n.kids {
		nameUntitled(k)
	}
}

// takeTitle returns the first line of blocks when it is a paragraph's and
// short enough to be a title, and the blocks without it when it was a
// block of its own.
func takeTitle(blocks []doc.Block) (title string, rest []doc.Block, took bool) {
	if len(blocks) == 0 || blocks[0].Kind != doc.Paragraph {
		return "", blocks, false
	}
	first, more, _ := strings.Cut(strings.TrimSpace(blocks[0].Text), "\n")
	if first = strings.TrimSpace(first); utf8.RuneCountInString(first) > maxDerivedTitle {
		return "", blocks, false
	}
	if strings.TrimSpace(more) == "" {
		return first, blocks[1:], true
	}
	return first, blocks, false
}

// chapterNodes returns the headings that become chapters. While one node
// alone holds headings of its own and either stands alone or holds several
// and more than three quarters of the text, it only wraps the book: it
// keeps its lead-in text as a chapter, and the headings under it take its
// place.
func chapterNodes(level []*node) []*node {
	for range MaxLevel + 2 {
		var wrap *node
		total, parents := 0, 0
		for _, n := range level {
			total += n.size
			if len(n.kids) > 0 && !n.leadIn {
				wrap = n
				parents++
			}
		}
		if parents != 1 || (len(level) > 1 && (len(wrap.kids) < 2 || 4*wrap.size <= 3*total)) {
			return level
		}
		next := make([]*node, 0, len(level)+len(wrap.kids))
		for _, n := range level {
			next = append(next, n)
			if n == wrap {
				n.leadIn = true
				next = append(next, n.kids...)
			}
		}
		level = next
	}
	return level
}

// chapter builds the chapter a node heads; false when it holds no text.
func (n *node) chapter() (doc.Chapter, bool) {
	ch := doc.Chapter{Title: n.it.title, Anchor: n.it.anchor}
	lead := n.blocks
	if n.leadIn || len(n.kids) == 0 {
		if len(lead) == 0 {
			// A heading with nothing under it (a book's title over its
			// chapters, a byline) keeps its words as text.
			if n.it.title == "" {
				return doc.Chapter{}, false
			}
			lead = []doc.Block{{Kind: doc.Paragraph, Text: n.it.title, Anchor: n.it.anchor}}
		}
		ch.Sections = []doc.Section{{Anchor: n.it.anchor, Blocks: lead}}
		return ch, true
	}
	if len(lead) > 0 {
		ch.Sections = append(ch.Sections, doc.Section{Anchor: n.it.anchor, Blocks: lead})
	}
	for _, k := range n.kids {
		var blocks []doc.Block
		k.flatten(&blocks, false)
		if len(blocks) == 0 {
			// A heading with nothing under it before the next one (a
			// byline, a subtitle) is text, not a section.
			if k.it.title == "" {
				continue
			}
			hb := doc.Block{Kind: doc.Paragraph, Text: k.it.title, Anchor: k.it.anchor}
			if len(ch.Sections) == 0 {
				ch.Sections = append(ch.Sections, doc.Section{Anchor: n.it.anchor})
			}
			last := &ch.Sections[len(ch.Sections)-1]
			last.Blocks = append(last.Blocks, hb)
			continue
		}
		ch.Sections = append(ch.Sections, doc.Section{Title: k.it.title, Anchor: k.it.anchor, Blocks: blocks})
	}
	if len(ch.Sections) == 0 {
		return doc.Chapter{}, false
	}
	return ch, true
}

// flatten appends the blocks under n, with the titles of the headings
// below it as paragraphs; withTitle adds n's own title first.
func (n *node) flatten(out *[]doc.Block, withTitle bool) {
	if withTitle && n.it.title != "" && (!n.it.untitle || n.tookLine) {
		*out = append(*out, doc.Block{Kind: doc.Paragraph, Text: n.it.title, Anchor: n.it.anchor})
	}
	*out = append(*out, n.blocks...)
	for _, k := range n.kids {
		k.flatten(out, true)
	}
}
