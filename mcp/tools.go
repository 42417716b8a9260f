package mcp

import (
	"context"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/retrieve"
)

type listBooksArgs struct {
	Author string `json:"author,omitempty" jsonschema:"Only books whose author contains this text (case-insensitive)"`
	Type   string `json:"type,omitempty" jsonschema:"Only books of this type,enum=pdf,enum=epub,enum=markdown,enum=text"`
	Query  string `json:"query,omitempty" jsonschema:"Only books whose title or author contains this text"`
	Offset int    `json:"offset,omitempty" jsonschema:"Where to start in the list: pass next_offset of the previous call"`
	Limit  int    `json:"limit,omitempty" jsonschema:"Books per page: 1 to 500 (default 100)"`
}

type listBooksResult struct {
	Books []retrieve.BookView `json:"books"`
	// Offset is the position of the first book of this page in the list.
	Offset int `json:"offset"`
	// NextOffset is where the next page starts; null on the last page.
	NextOffset *int `json:"next_offset"`
	// Total counts every book the filters select.
	Total int `json:"total"`
}

type outlineArgs struct {
	Book string `json:"book" jsonschema:"The book's slug, as list_books or a search hit gives it"`
}

type sectionArgs struct {
	Book         string `json:"book" jsonschema:"The book's slug"`
	ChapterIndex int    `json:"chapter_index" jsonschema:"Chapter index from get_book_outline or a search hit (0-based)"`
	SectionIndex int    `json:"section_index" jsonschema:"Section index within the chapter (0-based)"`
	Offset       int    `json:"offset,omitempty" jsonschema:"Character offset to continue a long section from: pass next_offset of the previous call"`
}

type searchArgs struct {
	Query   string   `json:"query" jsonschema:"What to look for: a question, a claim, keywords or an exact sentence"`
	Queries []string `json:"queries,omitempty" jsonschema:"More phrasings of the same question (synonyms, the terms a book would use); their rankings are fused with query's"`
	Book    string   `json:"book,omitempty" jsonschema:"Only this book (slug)"`
	Author  string   `json:"author,omitempty" jsonschema:"Only books whose author contains this text"`
	Type    string   `json:"type,omitempty" jsonschema:"Only books of this type,enum=pdf,enum=epub,enum=markdown,enum=text"`
	Limit   int      `json:"limit,omitempty" jsonschema:"Number of passages to return: 1 to 50 (default 10)"`
}

type searchResult struct {
	Query   string             `json:"query"`
	Results []retrieve.HitView `json:"results"`
	// NoMatch says that no passage holds most of the question's
	// distinctive words: the library probably does not answer it.
	NoMatch bool `json:"no_match"`
	// Indexing is set while books are still being indexed: the results
	// come from the ready ones only.
	Indexing *retrieve.IndexingView `json:"indexing,omitempty"`
}

type neighborsArgs struct {
	Book       string `json:"book" jsonschema:"The book's slug"`
	ChunkIndex int    `json:"chunk_index" jsonschema:"chunk_index of a search hit"`
	Before     *int   `json:"before,omitempty" jsonschema:"Chunks to include before it: 0 to 10 (default 1)"`
	After      *int   `json:"after,omitempty" jsonschema:"Chunks to include after it: 0 to 10 (default 1)"`
}

type statusArgs struct{}

// maxSearchLimit is the most passages one search returns to a model, below
// retrieve.MaxLimit: every passage costs the model's context.
const maxSearchLimit = 50

// A page of list_books stays well under a megabyte (a book is about 700
// bytes of JSON), however large the library.
const (
	defaultListLimit = 100
	maxListLimit     = 500
)

func (s *Server) addTools() {
	s.mcp.AddTool(tool("list_books", "List books",
		`List the books in the user's library with their slug (the name every other tool takes), title, author, type, size in chapters/sections/chunks and status. Use it to find a book's slug, or to see what the library holds; filter by author, type or a part of the title. Books come in pages of 100 (limit up to 500) ordered by title; total counts them all, and when next_offset is not null, call again with offset = next_offset for the next page.`,
		mcpgo.WithInputSchema[listBooksArgs](), mcpgo.WithOutputSchema[listBooksResult]()),
		mcpgo.NewTypedToolHandler(s.listBooks))

	s.mcp.AddTool(tool("get_book_outline", "Book outline",
		`Show a book's table of contents: its chapters and their sections, each with the index that get_section takes and, for PDFs, the page range. Use it to see how a book is organised before reading a part of it.`,
		mcpgo.WithInputSchema[outlineArgs](), mcpgo.WithOutputSchema[retrieve.OutlineView]()),
		mcpgo.NewTypedToolHandler(s.outline))

	s.mcp.AddTool(tool("get_section", "Read a section",
		`Read one whole section of a book (chapter_index and section_index come from get_book_outline or a search hit). This is how to read more than a search passage. Long sections come in pages of about 20,000 characters: when next_offset is not null, call again with offset = next_offset to read on; nothing is cut silently. Cite with the returned citation.`,
		mcpgo.WithInputSchema[sectionArgs](), mcpgo.WithOutputSchema[retrieve.SectionView]()),
		mcpgo.NewTypedToolHandler(s.section))

	s.mcp.AddTool(tool("search", "Search the library",
		`Search the user's books and return the best passages, each with its citation: book (slug and title), author, chapter, section and, for PDFs, pages, plus chunk_index for read_chunk_neighbors and chapter_index/section_index for get_section. Search is hybrid: full-text (BM25, good for names, terms and exact sentences) and vectors, merged. For a hard question pass several phrasings in queries (e.g. the user's words and the terms a textbook would use); they are searched separately and fused. score is the fused score: higher is better, but it only orders the hits of one search and is not a probability; scores.fts_rank / scores.vector_rank show which arm found a hit. When the user runs a reranker, score is its scores.rerank, and scores.rerank_probability (0-1) is its estimate that the passage is relevant. A passage that several books hold (editions of one work, copies) is one hit: also_in lists the other books with their book, path and chunk_index; it is the same text, not further evidence. coverage (0-1) is the share of the question's distinctive words a passage holds; no_match is true when none of the best passages covers enough of the question, which means the library probably does not answer it: say so rather than stretching the passages. indexing (ready and total books) is present only while the library is still being indexed: the results then come from the ready books only and may be incomplete; tell the user so when it matters, especially when nothing matches. For why and how questions, pass two or three phrasings in queries (the user's words, and the words a book would use for the answer): the search matches words, not meaning. Quote and cite what you use as "Title, Chapter › Section, p. N".`,
		mcpgo.WithInputSchema[searchArgs](), mcpgo.WithOutputSchema[searchResult]()),
		mcpgo.NewTypedToolHandler(s.search))

	s.mcp.AddTool(tool("read_chunk_neighbors", "Read around a passage",
		`Read the passages just before and after a search hit, in book order (chunk_index from the hit). Use it when a hit is cut mid-thought; use get_section to read the whole section.`,
		mcpgo.WithInputSchema[neighborsArgs](), mcpgo.WithOutputSchema[retrieve.NeighborsView]()),
		mcpgo.NewTypedToolHandler(s.neighbors))

	s.mcp.AddTool(tool("library_status", "Library status",
		`Show the state of the library index: how many books are ready, pending or failed (with the reasons), the last sync, and whether a sync or watcher is running. Use it when a book the user mentions is missing from results.`,
		mcpgo.WithInputSchema[statusArgs](), mcpgo.WithOutputSchema[retrieve.StatusView]()),
		mcpgo.NewTypedToolHandler(s.status))
}

func (s *Server) listBooks(ctx context.Context, _ mcpgo.CallToolRequest, a listBooksArgs) (*mcpgo.CallToolResult, error) {
	limit := a.Limit
	switch {
	case limit < 0 || limit > maxListLimit:
		return mcpgo.NewToolResultError(fmt.Sprintf("limit must be between 1 and %d (got %d)", maxListLimit, limit)), nil
	case a.Offset < 0:
		return mcpgo.NewToolResultError(fmt.Sprintf("offset must be 0 or more (got %d)", a.Offset)), nil
	case limit == 0:
		limit = defaultListLimit
	}
	books, err := s.lib.Books(ctx, index.BookFilter{Author: a.Author, Type: a.Type, Query: a.Query})
	if err != nil {
		return s.toolError("list_books", err), nil
	}
	if a.Offset > len(books) {
		return mcpgo.NewToolResultError(fmt.Sprintf("offset %d is past the end of the list (%d books)", a.Offset, len(books))), nil
	}
	res := listBooksResult{Offset: a.Offset, Total: len(books)}
	end := min(a.Offset+limit, len(books))
	res.Books = append([]retrieve.BookView{}, books[a.Offset:end]...)
	if end < len(books) {
		res.NextOffset = &end
	}
	var b strings.Builder
	switch {
	case len(books) == 0:
		b.WriteString("0 books\n")
	case res.NextOffset == nil && a.Offset == 0:
		fmt.Fprintf(&b, "%d books\n", len(books))
	default:
		fmt.Fprintf(&b, "books %d–%d of %d\n", a.Offset+1, end, len(books))
	}
	for _, bk := range res.Books {
		fmt.Fprintf(&b, "- %s: %q", bk.Slug, bk.Title)
		if bk.Author != "" {
			fmt.Fprintf(&b, " by %s", bk.Author)
		}
		fmt.Fprintf(&b, " (%s, %d chapters, %s)\n", bk.SourceType, bk.Chapters, bk.Status)
	}
	if res.NextOffset != nil {
		fmt.Fprintf(&b, "[more: call list_books again with offset %d]\n", end)
	}
	return result(res, b.String()), nil
}

func (s *Server) outline(ctx context.Context, _ mcpgo.CallToolRequest, a outlineArgs) (*mcpgo.CallToolResult, error) {
	o, err := s.lib.Outline(ctx, a.Book)
	if err != nil {
		return s.toolError("get_book_outline", err), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s", o.Title)
	if o.Author != "" {
		fmt.Fprintf(&b, " by %s", o.Author)
	}
	b.WriteString("\n")
	for _, c := range o.Chapters {
		fmt.Fprintf(&b, "chapter %d: %s%s\n", c.Index, c.Title, retrieve.PageNote(" ", c.PageStart, c.PageEnd))
		for _, sec := range c.Sections {
			fmt.Fprintf(&b, "  section %d.%d: %s%s\n", c.Index, sec.Index, sec.Title, retrieve.PageNote(" ", sec.PageStart, sec.PageEnd))
		}
	}
	return result(o, b.String()), nil
}

func (s *Server) section(ctx context.Context, _ mcpgo.CallToolRequest, a sectionArgs) (*mcpgo.CallToolResult, error) {
	v, err := s.lib.Section(ctx, a.Book, a.ChapterIndex, a.SectionIndex, a.Offset, s.opts.SectionChars)
	if err != nil {
		return s.toolError("get_section", err), nil
	}
	text := v.Citation + "\n\n" + v.Text
	if v.NextOffset != nil {
		text += fmt.Sprintf("\n\n[continues: call get_section again with offset %d; %d of %d characters shown so far]", *v.NextOffset, *v.NextOffset, v.TotalChars)
	}
	return result(v, text), nil
}

func (s *Server) search(ctx context.Context, _ mcpgo.CallToolRequest, a searchArgs) (*mcpgo.CallToolResult, error) {
	if _, err := retrieve.CheckLimit(a.Limit, maxSearchLimit); err != nil {
		return mcpgo.NewToolResultError(err.Error()), nil
	}
	if strings.TrimSpace(a.Query) == "" && len(a.Queries) == 0 {
		return mcpgo.NewToolResultError("query is empty: say what to look for"), nil
	}
	text, phrasings := a.Query, a.Queries
	if strings.TrimSpace(text) == "" {
		text, phrasings = phrasings[0], phrasings[1:]
	}
	v, err := s.lib.Search(ctx, retrieve.Query{Text: text, Phrasings: phrasings, Book: a.Book, Author: a.Author, Type: a.Type, Limit: a.Limit})
	if err != nil {
		return s.toolError("search", err), nil
	}
	hits := v.Hits
	var b strings.Builder
	if v.Indexing != nil {
		fmt.Fprintf(&b, "The library is still being indexed: %d of %d books are ready, and these results come from those only, so they may be incomplete. Searching again later may find more.\n\n", v.Indexing.Ready, v.Indexing.Total)
	}
	noMatch := retrieve.NoMatch(hits)
	switch {
	case len(hits) == 0 && v.Indexing != nil && v.Indexing.Ready == 0:
		b.WriteString("No passages match: no book is ready yet.\n")
	case len(hits) == 0 && v.Indexing != nil:
		fmt.Fprintf(&b, "No passages match among the %d books ready so far.\n", v.Indexing.Ready)
	case len(hits) == 0:
		b.WriteString("No passages match. Try other words, or list_books to see what the library holds.\n")
	case noMatch:
		b.WriteString("No passage matches the question well: the library probably does not hold the answer. The closest passages follow; do not present them as an answer.\n\n")
	}
	for i, h := range hits {
		fmt.Fprintf(&b, "[%d] %s\n    book=%s chapter_index=%d section_index=%d chunk_index=%d score=%.4f\n",
			i+1, h.Citation, h.Book, h.ChapterIndex, h.SectionIndex, h.ChunkIndex, h.Score)
		for _, p := range h.AlsoIn {
			fmt.Fprintf(&b, "    also in: %s (book=%s chapter_index=%d section_index=%d chunk_index=%d)\n",
				p.Citation, p.Book, p.ChapterIndex, p.SectionIndex, p.ChunkIndex)
		}
		fmt.Fprintf(&b, "    %s\n\n", oneLine(h.Text, 1200))
	}
	if hits == nil {
		hits = []retrieve.HitView{}
	}
	return result(searchResult{Query: text, Results: hits, NoMatch: noMatch, Indexing: v.Indexing}, b.String()), nil
}

func (s *Server) neighbors(ctx context.Context, _ mcpgo.CallToolRequest, a neighborsArgs) (*mcpgo.CallToolResult, error) {
	before, after := 1, 1
	if a.Before != nil {
		before = *a.Before
	}
	if a.After != nil {
		after = *a.After
	}
	v, err := s.lib.Neighbors(ctx, a.Book, a.ChunkIndex, before, after)
	if err != nil {
		return s.toolError("read_chunk_neighbors", err), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (chunks %d of %d)\n\n", v.Title, len(v.Chunks), v.TotalChunks)
	for _, k := range v.Chunks {
		fmt.Fprintf(&b, "[chunk %d] %s%s\n%s\n\n", k.ChunkIndex, k.Heading, retrieve.PageNote(" ", k.PageStart, k.PageEnd), k.Text)
	}
	return result(v, b.String()), nil
}

func (s *Server) status(ctx context.Context, _ mcpgo.CallToolRequest, _ statusArgs) (*mcpgo.CallToolResult, error) {
	v, err := s.lib.Status(ctx, s.opts.Roots)
	if err != nil {
		return s.toolError("library_status", err), nil
	}
	if s.opts.Status != nil {
		s.opts.Status(&v)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d books ready, %d pending, %d being ingested, %d failed; %d chunks; model %s\n", v.Ready, v.Pending, v.Parsed, v.Failed, v.Chunks, v.EmbeddingModel)
	if v.Writer.Running {
		fmt.Fprintf(&b, "a %s is running (pid %d)\n", v.Writer.Command, v.Writer.PID)
		if v.Writer.Trouble != "" {
			fmt.Fprintf(&b, "it is failing and retrying: %s\n", v.Writer.Trouble)
		}
	}
	for _, h := range v.Held {
		fmt.Fprintf(&b, "held the removal of %d files under %s (%s); their books stay searchable until the user runs `grimoire sync --prune`\n", h.Files, h.Root, h.Reason)
	}
	if v.LastSync != nil {
		fmt.Fprintf(&b, "last sync finished %s\n", v.LastSync.Finished.Format("2006-01-02 15:04:05 UTC"))
	}
	for _, f := range v.Failures {
		fmt.Fprintf(&b, "problem: %s: %s\n", f.Path, f.Error)
	}
	return result(v, b.String()), nil
}
