package retrieve

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/source/mdbook"
	"github.com/grimoire-search/grimoire/source/zotero"
)

// Library is the read side of grimoire as people and models see it: what
// `grimoire list`, `outline`, `section`, `query` and `status` print and the
// MCP tools return, in one shape for both.
type Library struct {
	DB       *index.DB
	Searcher *Searcher
}

// SourceTypes are the types a book can have, as the search's filters take
// them.
func (l *Library) SourceTypes() []string {
	if l.Searcher == nil {
		return nil
	}
	return l.Searcher.opts.SourceTypes
}

// BookView is a book as `grimoire list --json` and list_books show it.
type BookView struct {
	Slug       string    `json:"slug"`
	Title      string    `json:"title"`
	Author     string    `json:"author"`
	Authors    []string  `json:"authors"`
	Language   string    `json:"language,omitempty"`
	SourceType string    `json:"source_type"`
	PageCount  int       `json:"page_count,omitempty"`
	Chapters   int       `json:"chapters"`
	Sections   int       `json:"sections"`
	Chunks     int       `json:"chunks"`
	Status     string    `json:"status"`
	Error      string    `json:"error,omitempty"`
	Paths      []string  `json:"paths"`
	Hash       string    `json:"hash"`
	Size       int64     `json:"size"`
	AddedAt    time.Time `json:"added_at"`
	CatalogView
}

// CatalogView is what a calibre library, or else the book's own file, says
// of a book beyond its title, authors and language; every field is left
// out when it says nothing.
type CatalogView struct {
	Series      string            `json:"series,omitempty"`
	SeriesIndex float64           `json:"series_index,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
	Publisher   string            `json:"publisher,omitempty"`
	Published   string            `json:"published,omitempty"`
	Identifiers map[string]string `json:"identifiers,omitempty"`
	// Collections, ItemType, Publication and Abstract are a Zotero
	// item's.
	Collections []string `json:"collections,omitempty"`
	ItemType    string   `json:"item_type,omitempty"`
	Publication string   `json:"publication,omitempty"`
	Abstract    string   `json:"abstract,omitempty"`
}

// TagSeparator parts a book's tags where text lists them on one line. A
// tag may hold commas (calibre's "Fiction, general", a subject heading's
// "Bennet, Elizabeth -- Fiction"), so a comma cannot part them; JSON keeps
// them as a list.
const TagSeparator = " | "

// JoinTags writes tags on one line, parted by TagSeparator.
func JoinTags(tags []string) string { return strings.Join(tags, TagSeparator) }

func catalogView(c library.Catalog) CatalogView {
	return CatalogView{Series: c.Series, SeriesIndex: c.SeriesIndex, Tags: c.Tags, Publisher: c.Publisher,
		Published: c.Published, Identifiers: c.Identifiers, Collections: c.Collections, ItemType: c.ItemType, Publication: c.Publication, Abstract: c.Abstract}
}

func bookView(b library.Book) BookView {
	return BookView{
		Slug: b.Slug, Title: b.Title, Author: b.Author(), Authors: nonNilStrings(b.Authors), Language: b.Language,
		SourceType: b.SourceType, PageCount: b.PageCount, Chapters: b.Chapters, Sections: b.Sections, Chunks: b.Chunks,
		Status: string(b.Status), Error: b.Error, Paths: nonNilStrings(b.Paths), Hash: b.Hash.String(), Size: b.Size,
		AddedAt: b.AddedAt, CatalogView: catalogView(b.Catalog),
	}
}

// Books lists the books that f selects. A type no format has is refused,
// naming the types, and a tag or series no book has is NotFound, naming
// the nearest; another filter that selects nothing is an empty list.
func (l *Library) Books(ctx context.Context, f index.BookFilter) ([]BookView, error) {
	if l.Searcher != nil {
		typ, err := checkType(f.Type, l.Searcher.opts.SourceTypes)
		if err != nil {
			return nil, err
		}
		f.Type = typ
	}
	f.Tag, f.Series = strings.TrimSpace(f.Tag), strings.TrimSpace(f.Series)
	f.Collection, f.ItemType = strings.TrimSpace(f.Collection), strings.TrimSpace(f.ItemType)
	if err := checkCatalog(ctx, l.DB, f); err != nil {
		return nil, err
	}
	books, err := l.DB.Books(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]BookView, len(books))
	for i, b := range books {
		out[i] = bookView(b)
	}
	return out, nil
}

// WhyNone says why f selects no book: the filter that leaves none, with
// the nearest authors or the types the library holds; nil when f selects
// some book or filters nothing.
func (l *Library) WhyNone(ctx context.Context, f index.BookFilter) error {
	return checkSelects(ctx, l.DB, f)
}

// OutlineView is a book's table of contents.
type OutlineView struct {
	Book       string        `json:"book"`
	Title      string        `json:"title"`
	Author     string        `json:"author"`
	SourceType string        `json:"source_type"`
	PageCount  int           `json:"page_count,omitempty"`
	Chapters   []ChapterView `json:"chapters"`
}

// ChapterView is one chapter of an outline. Index and the sections'
// Index are what `grimoire section` and get_section take.
type ChapterView struct {
	Index     int    `json:"index"`
	Title     string `json:"title"`
	PageStart *int   `json:"page_start"`
	PageEnd   *int   `json:"page_end"`
	// Sections lists every section, but in a compact outline (Compact)
	// none for a chapter that is one section of its own title.
	Sections []SectionRef `json:"sections,omitempty"`
}

// SectionRef is one section of an outline, without its text.
type SectionRef struct {
	Index       int    `json:"index"`
	Title       string `json:"title"`
	PageStart   *int   `json:"page_start"`
	PageEnd     *int   `json:"page_end"`
	Synthesized bool   `json:"synthesized"`
	Tokens      int    `json:"tokens"`
}

// OneSection reports whether the chapter is a single section of its own
// title, which an outline need not list: it is section 0.
func (c ChapterView) OneSection() bool {
	return len(c.Sections) == 1 && c.Sections[0].Title == c.Title
}

// Compact returns the outline without the sections that OneSection
// chapters repeat, for a model's context, where every line costs.
func (o OutlineView) Compact() OutlineView {
	out := o
	out.Chapters = make([]ChapterView, len(o.Chapters))
	for i, c := range o.Chapters {
		if c.OneSection() {
			c.Sections = nil
		}
		out.Chapters[i] = c
	}
	return out
}

// Outline returns the outline of the book with the given slug.
func (l *Library) Outline(ctx context.Context, slug string) (OutlineView, error) {
	b, err := l.book(ctx, slug)
	if err != nil {
		return OutlineView{}, err
	}
	chapters, err := l.DB.Outline(ctx, b.ID)
	if err != nil {
		return OutlineView{}, err
	}
	out := OutlineView{Book: b.Slug, Title: b.Title, Author: b.Author(), SourceType: b.SourceType, PageCount: b.PageCount, Chapters: []ChapterView{}}
	for _, c := range chapters {
		cv := ChapterView{Index: c.Index, Title: c.Title, PageStart: page(c.PageStart), PageEnd: page(c.PageEnd), Sections: []SectionRef{}}
		for _, s := range c.Sections {
			cv.Sections = append(cv.Sections, SectionRef{Index: s.Index, Title: s.Title, PageStart: page(s.PageStart), PageEnd: page(s.PageEnd), Synthesized: s.Synthesized, Tokens: s.Tokens})
		}
		out.Chapters = append(out.Chapters, cv)
	}
	return out, nil
}

// SectionView is one section with its text, or one page of it.
type SectionView struct {
	Book         string `json:"book"`
	Title        string `json:"title"`
	Author       string `json:"author"`
	ChapterIndex int    `json:"chapter_index"`
	SectionIndex int    `json:"section_index"`
	Chapter      string `json:"chapter"`
	Section      string `json:"section"`
	PageStart    *int   `json:"page_start"`
	PageEnd      *int   `json:"page_end"`
	Anchor       string `json:"anchor,omitempty"`
	Path         string `json:"path"`
	Citation     string `json:"citation"`
	Tokens       int    `json:"tokens"`
	// Text is the section's text from Offset (in characters); when more
	// follows, NextOffset says where the next page starts.
	Text       string `json:"text"`
	Offset     int    `json:"offset"`
	NextOffset *int   `json:"next_offset"`
	TotalChars int    `json:"total_chars"`
}

// Section returns a section's text from offset (in characters), at most
// maxChars of it (0: all), cut at a paragraph or line end where possible.
func (l *Library) Section(ctx context.Context, slug string, chapter, section, offset, maxChars int) (SectionView, error) {
	b, err := l.book(ctx, slug)
	if err != nil {
		return SectionView{}, err
	}
	if chapter < 0 || section < 0 {
		return SectionView{}, fault.Errorf(fault.Invalid, "chapter and section indexes start at 0")
	}
	s, chTitle, err := l.DB.Section(ctx, b.ID, chapter, section)
	if err != nil {
		if fault.CodeOf(err) == fault.NotFound {
			return SectionView{}, (&fault.Error{Code: fault.NotFound, Msg: fmt.Sprintf("%s has no section %d in chapter %d", slug, section, chapter)}).
				WithHints(fmt.Sprintf("`grimoire outline %s` lists the chapter and section indexes", b.Slug), "get_book_outline lists the chapter and section indexes")
		}
		return SectionView{}, err
	}
	runes := []rune(s.Text)
	if offset < 0 || offset > len(runes) {
		return SectionView{}, fault.Errorf(fault.Invalid, "offset %d is outside the section (0–%d characters)", offset, len(runes))
	}
	end := len(runes)
	if maxChars > 0 && offset+maxChars < end {
		end = cutPoint(runes, offset, offset+maxChars)
	}
	ps, pe := s.PageStart, s.PageEnd
	if ps > 0 && (offset > 0 || end < len(runes)) {
		if ps, pe, err = l.pagesOf(ctx, b.ID, s, runes, offset, end); err != nil {
			return SectionView{}, err
		}
	}
	v := SectionView{
		Book: b.Slug, Title: b.Title, Author: b.Author(), ChapterIndex: chapter, SectionIndex: section,
		Chapter: chTitle, Section: s.Title, PageStart: page(ps), PageEnd: page(pe), Anchor: s.Anchor,
		Path: firstPath(b), Tokens: s.Tokens, Text: string(runes[offset:end]), Offset: offset, TotalChars: len(runes),
	}
	v.Citation = citation(b, chTitle, s.Title, ps, pe)
	if end < len(runes) {
		v.NextOffset = &end
	}
	return v, nil
}

// pagesOf returns the pages that the characters from to to of section s's
// text lie on, from the pages of its chunks: a page of a long section cites
// its own pages, not the whole section's. The section's pages stand in
// when no chunk can be placed.
func (l *Library) pagesOf(ctx context.Context, bookID int64, s library.Section, text []rune, from, to int) (int, int, error) {
	chunks, err := l.DB.ChunkRange(ctx, bookID, s.FirstChunk, s.FirstChunk+s.ChunkCount-1)
	if err != nil {
		return 0, 0, err
	}
	starts := chunkStarts(string(text), chunks)
	ps, pe := 0, 0
	for i, k := range chunks {
		if starts[i] < 0 || k.PageStart <= 0 {
			continue
		}
		// A chunk stands for the text from its start to the next one's.
		end := len(text)
		for _, st := range starts[i+1:] {
			if st >= 0 {
				end = st
				break
			}
		}
		if starts[i] >= to || end <= from {
			continue
		}
		if ps == 0 || k.PageStart < ps {
			ps = k.PageStart
		}
		pe = max(pe, k.PageStart, k.PageEnd)
	}
	if ps == 0 {
		return s.PageStart, s.PageEnd, nil
	}
	return ps, pe, nil
}

// chunkStarts finds where each of a section's chunks begins in its text,
// in characters; -1 for one it cannot place. A chunk begins with a whole
// block or sentence of the text, or, for a run of words too long for one
// chunk, with its first word at least.
func chunkStarts(text string, chunks []library.Chunk) []int {
	starts := make([]int, len(chunks))
	from, runes := 0, 0 // in bytes; characters before from
	for i, k := range chunks {
		starts[i] = -1
		first, _, _ := strings.Cut(k.Text, "\n")
		word, _, _ := strings.Cut(first, " ")
		for _, key := range []string{truncateWords(first, 80), word} {
			if key == "" {
				continue
			}
			if j := strings.Index(text[from:], key); j >= 0 {
				runes += utf8.RuneCountInString(text[from : from+j])
				from += j
				starts[i] = runes
				break
			}
		}
	}
	return starts
}

// truncateWords cuts s to at most n bytes, at a space when it must cut.
func truncateWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], ' '); i > 0 {
		return s[:i]
	}
	return ""
}

// cutPoint finds a good place to end a page of text between from and limit:
// a paragraph break, else a line break, else a space, else limit.
func cutPoint(r []rune, from, limit int) int {
	floor := from + (limit-from)/2
	for _, sep := range []string{"\n\n", "\n", " "} {
		s := []rune(sep)
		for i := limit - len(s); i > floor; i-- {
			if string(r[i:i+len(s)]) == sep {
				return i + len(s)
			}
		}
	}
	return limit
}

// HitView is a search hit as `grimoire query --json` prints it: where the
// passage is, then the passage and its scores.
type HitView struct {
	PlaceView
	Text    string  `json:"text"`
	Context string  `json:"context,omitempty"`
	Score   float64 `json:"score"`
	Scores  Scores  `json:"scores"`
	// Coverage is the share (0–1) of the question's words, weighted by
	// rarity, that the passage holds.
	Coverage float64 `json:"coverage"`
	// NoMatch is the search's verdict, the same on every hit: the library
	// probably holds nothing that answers the question.
	NoMatch bool `json:"no_match"`
	// Missing are the question's words that no book holds, the same on
	// every hit.
	Missing []string `json:"missing,omitempty"`
	// AlsoIn lists the other books and editions that hold the same
	// passage, and the other place of its own book that says it again;
	// empty when only this one does.
	AlsoIn []PlaceView `json:"also_in"`
	// Series and Tags are the book's catalogue's (calibre's, or its
	// file's), left out when it has none: enough to tell a series'
	// volumes apart.
	Series      string   `json:"series,omitempty"`
	SeriesIndex float64  `json:"series_index,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	// Yours marks a passage the user wrote or marked: a note, highlight
	// or comment made in Zotero, not the paper's own text in its place.
	Yours bool `json:"yours,omitempty"`
	// Indexing is the search's, the same on every hit: set only while
	// books are still being indexed, when the hits come from the ready
	// ones and may be incomplete.
	Indexing *IndexingView `json:"indexing,omitempty"`
}

// IndexingView says how far indexing has got while it is under way:
// searches read Ready of Total books.
type IndexingView struct {
	Ready int `json:"ready"`
	Total int `json:"total"`
}

// SearchView is one search: its hits, the question's words that no book
// holds (with or without hits) and, while indexing is under way, how far
// it has got (nil once every book is indexed or failed).
type SearchView struct {
	Hits     []HitView
	Missing  []string
	Indexing *IndexingView
}

// PlaceView is where a book holds a passage, and its citation there.
type PlaceView struct {
	Book         string `json:"book"`
	Title        string `json:"title"`
	Author       string `json:"author"`
	SourceType   string `json:"source_type"`
	ChapterIndex int    `json:"chapter_index"`
	SectionIndex int    `json:"section_index"`
	ChunkIndex   int    `json:"chunk_index"`
	Chapter      string `json:"chapter"`
	Section      string `json:"section"`
	PageStart    *int   `json:"page_start"`
	PageEnd      *int   `json:"page_end"`
	// PageLabelStart and PageLabelEnd are the printed page names where they
	// differ from the numbers ("xiv" in a front matter).
	PageLabelStart *string  `json:"page_label_start,omitempty"`
	PageLabelEnd   *string  `json:"page_label_end,omitempty"`
	Anchor         string   `json:"anchor,omitempty"`
	Path           string   `json:"path"`
	Paths          []string `json:"paths"`
	Citation       string   `json:"citation"`
}

func placeView(h index.Hit) PlaceView {
	return PlaceView{
		Book: h.Book.Slug, Title: h.Book.Title, Author: h.Book.Author(), SourceType: h.Book.SourceType,
		ChapterIndex: h.ChapterIndex, SectionIndex: h.SectionIndex, ChunkIndex: h.Index,
		Chapter: h.ChapterTitle, Section: h.SectionTitle, PageStart: page(h.PageStart), PageEnd: page(h.PageEnd),
		PageLabelStart: pageLabel(h.Book, h.PageStart), PageLabelEnd: pageLabel(h.Book, h.PageEnd),
		Anchor: h.Anchor, Path: placePath(h.Book, h.Anchor), Paths: nonNilStrings(h.Book.Paths),
		Citation: citation(h.Book, h.ChapterTitle, h.SectionTitle, h.PageStart, h.PageEnd),
	}
}

// placePath is the file that holds a passage: the book's file, or for a
// book kept as a folder (an mdBook), the chapter file its anchor names.
func placePath(b library.Book, anchor string) string {
	p := firstPath(b)
	if b.SourceType == mdbook.Type {
		if f := mdbook.ChapterFile(p, anchor); f != "" {
			return f
		}
	}
	return p
}

// Elsewhere returns the hit as each of the places in AlsoIn holds it: the
// same text and scores, cited there. Measures that count a hit as found
// in any book that holds it (an evaluation's judged documents) read them.
func (h HitView) Elsewhere() []HitView {
	out := make([]HitView, len(h.AlsoIn))
	for i, p := range h.AlsoIn {
		v := h
		v.PlaceView, v.AlsoIn = p, []PlaceView{}
		out[i] = v
	}
	return out
}

// Scores are each arm's view of a hit.
type Scores struct {
	FTSRank     int     `json:"fts_rank,omitempty"`
	FTSScore    float64 `json:"fts_bm25,omitempty"`
	VectorRank  int     `json:"vector_rank,omitempty"`
	VectorScore float64 `json:"vector_cosine,omitempty"`
	// Subword is the sub-word similarity a hybrid search re-scored the
	// hit with (0–1).
	Subword float64 `json:"subword,omitempty"`
	// Rerank is the relevance the configured reranker gave the hit, on its
	// server's scale (a logit from llama.cpp's server and TEI, a
	// probability from vLLM, Jina and Cohere), and RerankProbability that
	// as a probability (0–1). Both are absent when the search was not
	// reranked; when it was, score is Rerank and the hits are in its
	// order. Unlike score otherwise, they compare across searches.
	Rerank            *float64 `json:"rerank,omitempty"`
	RerankProbability *float64 `json:"rerank_probability,omitempty"`
}

// Search runs a query and returns its hits as views, with how far indexing
// has got when books are still waiting for it.
func (l *Library) Search(ctx context.Context, q Query) (v SearchView, err error) {
	err = l.Searcher.withState(ctx, func(ctx context.Context) (err error) {
		v, err = l.search(ctx, q)
		return err
	})
	return v, err
}

func (l *Library) search(ctx context.Context, q Query) (SearchView, error) {
	st, err := l.Searcher.state(ctx)
	if err != nil {
		return SearchView{}, err
	}
	// As the search sees the library.
	indexing := indexingView(st.lib.Progress)
	hits, err := l.Searcher.Search(ctx, q)
	if err != nil {
		return SearchView{}, err
	}
	out := hitViews(hits, indexing)
	v := SearchView{Hits: out, Indexing: indexing}
	if len(hits) > 0 {
		v.Missing = hits[0].Missing
	} else if v.Missing, err = l.Searcher.Missing(ctx, q.Text); err != nil {
		return SearchView{}, err
	}
	return v, nil
}

// hitViews turns hits into their views, each with how far indexing has got.
func hitViews(hits []Hit, indexing *IndexingView) []HitView {
	out := make([]HitView, len(hits))
	for i, h := range hits {
		var rerank, probability *float64
		if h.Reranked {
			rerank, probability = &h.RerankScore, &h.RerankProbability
		}
		out[i] = HitView{
			PlaceView: placeView(h.Hit),
			Text:      h.Text, Context: h.Context, Score: h.Score, Coverage: h.Coverage, NoMatch: h.NoMatch, Missing: h.Missing,
			Scores: Scores{FTSRank: h.FTSRank, FTSScore: h.FTSScore, VectorRank: h.VectorRank, VectorScore: h.VectorScore, Subword: h.SubwordScore,
				Rerank: rerank, RerankProbability: probability},
			AlsoIn: make([]PlaceView, len(h.AlsoIn)),
			Series: h.Book.Catalog.Series, SeriesIndex: h.Book.Catalog.SeriesIndex, Tags: h.Book.Catalog.Tags,
			Yours: h.Book.SourceType == zotero.Type && h.ChapterTitle == zotero.NotesChapter,
		}
		for j, o := range h.AlsoIn {
			out[i].AlsoIn[j] = placeView(o)
		}
		out[i].Indexing = indexing
	}
	return out
}

// indexingView is p as a search shows it: nil when no book waits for
// indexing.
func indexingView(p index.Progress) *IndexingView {
	if p.Indexing == 0 {
		return nil
	}
	return &IndexingView{Ready: p.Ready, Total: p.Ready + p.Indexing}
}

// ChunkView is one chunk in book order, for reading around a hit. Its
// Text leaves out the start that repeats the end of the chunk before it
// in the same view (chunks of a section overlap by a sentence or two), so
// that the chunks read on from one another.
type ChunkView struct {
	ChunkIndex   int    `json:"chunk_index"`
	ChapterIndex int    `json:"chapter_index"`
	SectionIndex int    `json:"section_index"`
	Heading      string `json:"heading"`
	PageStart    *int   `json:"page_start"`
	PageEnd      *int   `json:"page_end"`
	Anchor       string `json:"anchor,omitempty"`
	Text         string `json:"text"`
}

// NeighborsView is a run of chunks around one.
type NeighborsView struct {
	Book        string      `json:"book"`
	Title       string      `json:"title"`
	TotalChunks int         `json:"total_chunks"`
	Chunks      []ChunkView `json:"chunks"`
}

// MaxNeighbors bounds before and after.
const MaxNeighbors = 10

// Neighbors returns the chunk at chunkIndex with up to before and after
// chunks around it, in book order.
func (l *Library) Neighbors(ctx context.Context, slug string, chunkIndex, before, after int) (NeighborsView, error) {
	b, err := l.book(ctx, slug)
	if err != nil {
		return NeighborsView{}, err
	}
	if before < 0 || after < 0 || before > MaxNeighbors || after > MaxNeighbors {
		return NeighborsView{}, fault.Errorf(fault.Invalid, "before and after must be between 0 and %d", MaxNeighbors)
	}
	if chunkIndex < 0 || chunkIndex >= b.Chunks {
		return NeighborsView{}, (&fault.Error{Code: fault.NotFound, Msg: fmt.Sprintf("%s has no chunk %d (it has %d, numbered from 0)", slug, chunkIndex, b.Chunks)}).
			WithHint("use the chunk_index of a search hit")
	}
	chunks, err := l.DB.ChunkRange(ctx, b.ID, chunkIndex-before, chunkIndex+after)
	if err != nil {
		return NeighborsView{}, err
	}
	out := NeighborsView{Book: b.Slug, Title: b.Title, TotalChunks: b.Chunks, Chunks: []ChunkView{}}
	for i, k := range chunks {
		text := k.Text
		if i > 0 && sameSection(chunks[i-1], k) {
			text = strings.TrimLeft(text[sharedStart(chunks[i-1].Text, text):], " \t\n")
		}
		out.Chunks = append(out.Chunks, ChunkView{ChunkIndex: k.Index, ChapterIndex: k.ChapterIndex, SectionIndex: k.SectionIndex,
			Heading: k.Heading, PageStart: page(k.PageStart), PageEnd: page(k.PageEnd), Anchor: k.Anchor, Text: text})
	}
	return out, nil
}

func sameSection(a, b library.Chunk) bool {
	return a.ChapterIndex == b.ChapterIndex && a.SectionIndex == b.SectionIndex
}

// sharedStart returns the length in bytes of the longest start of next
// that also ends prev, in whole words: the sentences that chunking repeats
// at the start of a chunk from the end of the one before it. 0 when they
// share none, or too little to tell a repeat from a text that says the
// same short thing twice (a closing brace on two lines of code).
func sharedStart(prev, next string) int {
	for n := min(len(prev), len(next)) - 1; n >= minShared; n-- {
		if isSpace(next[n]) && !isSpace(next[n-1]) && isSpace(prev[len(prev)-n-1]) && strings.HasSuffix(prev, next[:n]) {
			if len(strings.Fields(next[:n])) < 3 {
				return 0
			}
			return n
		}
	}
	return 0
}

// minShared is the least overlap sharedStart removes, in bytes.
const minShared = 16

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' }

// Where people and models find the slugs.
const (
	listHint     = "`grimoire list` shows the books and their slugs"
	listToolHint = "list_books shows the books and their slugs"
)

// book looks up a slug, refusing what cannot be one.
func (l *Library) book(ctx context.Context, slug string) (library.Book, error) {
	slug = strings.TrimSpace(slug)
	if slug == "" {
		return library.Book{}, fault.Errorf(fault.Invalid, "no book given").WithHints(listHint, listToolHint)
	}
	if len(slug) > 200 || strings.ContainsAny(slug, `/\`) {
		return library.Book{}, (&fault.Error{Code: fault.Invalid, Msg: fmt.Sprintf("%.80q is not a book slug (slugs look like \"alice-s-adventures-in-wonderland\")", slug)}).
			WithHints(listHint, listToolHint)
	}
	b, err := l.DB.Book(ctx, slug)
	if err != nil {
		return b, err
	}
	if b.Status != library.Ready {
		return b, (&fault.Error{Code: fault.NotFound, Msg: fmt.Sprintf("%s is not ready yet (%s)", slug, b.Status)}).
			WithHints("wait for the sync to finish; `grimoire status` shows progress", "library_status shows how far indexing has got")
	}
	return b, nil
}

// citation renders where a passage is, for a person or a model to quote:
// “Title” by Author, Chapter › Section, pp. 3–4.
func citation(b library.Book, chapter, section string, ps, pe int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "“%s”", b.Title)
	if a := b.Author(); a != "" {
		fmt.Fprintf(&sb, " by %s", a)
	}
	// A one-chapter document titled like its book, whose one section
	// is too.
	if strings.EqualFold(strings.TrimSpace(chapter), strings.TrimSpace(b.Title)) {
		chapter = ""
		if strings.EqualFold(strings.TrimSpace(section), strings.TrimSpace(b.Title)) {
			section = ""
		}
	}
	loc := headingLoc(chapter, section)
	if loc != "" {
		sb.WriteString(", " + loc)
	}
	sb.WriteString(pageCitation(b, ps, pe))
	return sb.String()
}

// pageCitation renders a page range by the book's printed page names when
// it has them, with the page of the file beside them ("p. xiv (PDF page
// 16)"), else by number.
func pageCitation(b library.Book, ps, pe int) string {
	if ps <= 0 {
		return ""
	}
	ls, le := b.PageLabel(ps), b.PageLabel(pe)
	switch {
	case pe > ps && (ls != "" || le != ""):
		return fmt.Sprintf(", pp. %s–%s (PDF pages %d–%d)", orNum(ls, ps), orNum(le, pe), ps, pe)
	case pe <= ps && ls != "":
		return fmt.Sprintf(", p. %s (PDF page %d)", ls, ps)
	}
	return ", " + pageRange(ps, pe)
}

// PageNote renders the pages of an outline entry, a section or a chunk
// view as the front ends print them after its title: gap, then "(p. 3)" or
// "(pp. 3–5)"; "" when it has none.
func PageNote(gap string, start, end *int) string {
	if start == nil {
		return ""
	}
	e := 0
	if end != nil {
		e = *end
	}
	return gap + "(" + pageRange(*start, e) + ")"
}

// pageRange renders pages ps to pe by number; pe may be 0 or ps for one page.
func pageRange(ps, pe int) string {
	if pe > ps {
		return fmt.Sprintf("pp. %d–%d", ps, pe)
	}
	return fmt.Sprintf("p. %d", ps)
}

func orNum(label string, p int) string {
	if label == "" {
		return fmt.Sprint(p)
	}
	return label
}

// pageLabel returns the printed name of page p, or nil when it is the
// number or the book has no pages.
func pageLabel(b library.Book, p int) *string {
	if l := b.PageLabel(p); l != "" {
		return &l
	}
	return nil
}

func headingLoc(chapter, section string) string {
	if section == "" || strings.EqualFold(section, chapter) {
		return chapter
	}
	if chapter == "" {
		return section
	}
	return chapter + " › " + section
}

func page(p int) *int {
	if p <= 0 {
		return nil
	}
	return &p
}

func firstPath(b library.Book) string {
	if len(b.Paths) > 0 {
		return b.Paths[0]
	}
	return ""
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
