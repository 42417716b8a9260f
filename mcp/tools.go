package mcp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/plural"
	"github.com/grimoire-search/grimoire/retrieve"
)

type listBooksArgs struct {
	Author     string `json:"author,omitempty" jsonschema:"Only books whose author contains this text (case-insensitive)"`
	Type       string `json:"type,omitempty" jsonschema:"Only books of this type"`
	Query      string `json:"query,omitempty" jsonschema:"Only books whose title or author contains this text"`
	Tag        string `json:"tag,omitempty" jsonschema:"Only books with this tag (calibre's or Zotero's tags, or the subjects and keywords a book's file gives; case-insensitive)"`
	Series     string `json:"series,omitempty" jsonschema:"Only books of a series whose name contains this text (calibre's, or the one a book's file names)"`
	Collection string `json:"collection,omitempty" jsonschema:"Only the items of a Zotero library in this collection or its sub-collections: a path (Thesis/Methods) or a collection's name"`
	ItemType   string `json:"item_type,omitempty" jsonschema:"Only the items of a Zotero library of this type (journalArticle, book, bookSection, thesis, preprint...)"`
	Offset     int    `json:"offset,omitempty" jsonschema:"Where to start in the list: pass next_offset of the previous call"`
	Limit      int    `json:"limit,omitempty" jsonschema:"Books per page: 1 to 500 (default 100)"`
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
	Query      string   `json:"query" jsonschema:"What the user asked, in their words: a question, a claim, keywords or an exact sentence; coverage, no_match and missing are judged against it"`
	Queries    []string `json:"queries,omitempty" jsonschema:"More phrasings of the same question (synonyms, the terms a book would use); their rankings are fused with query's, but they do not count toward the verdict"`
	Book       string   `json:"book,omitempty" jsonschema:"Only this book (slug)"`
	Author     string   `json:"author,omitempty" jsonschema:"Only books whose author contains this text"`
	Type       string   `json:"type,omitempty" jsonschema:"Only books of this type"`
	Tag        string   `json:"tag,omitempty" jsonschema:"Only books with this tag (calibre's or Zotero's tags, or the subjects and keywords a book's file gives)"`
	Series     string   `json:"series,omitempty" jsonschema:"Only books of a series whose name contains this text"`
	Collection string   `json:"collection,omitempty" jsonschema:"Only the items of a Zotero library in this collection or its sub-collections: a path (Thesis/Methods) or a collection's name"`
	ItemType   string   `json:"item_type,omitempty" jsonschema:"Only the items of a Zotero library of this type (journalArticle, book, bookSection, thesis, preprint...)"`
	Limit      int      `json:"limit,omitempty" jsonschema:"Number of passages to return: 1 to 50 (default 10)"`
}

type searchResult struct {
	Query   string             `json:"query"`
	Results []retrieve.HitView `json:"results"`
	// NoMatch says that no passage holds most of the question's
	// distinctive words: the library probably does not answer it.
	NoMatch bool `json:"no_match"`
	// Missing are the query's words that no book holds.
	Missing []string `json:"missing,omitempty"`
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
	types := s.lib.SourceTypes()
	s.mcp.AddTool(tool("list_books", "List books",
		`List the books in the user's library: each with its slug (the name every other tool takes), title, author, source_type (`+orList(types)+`), how many chapters, sections and chunks it has, its status (ready, pending, parsed or failed, with the error) and paths. Use it to find a book's slug, or to see what the library holds; filter by author, type, query (a part of the title or author), tag or series, and for a Zotero library's items by collection (with its sub-collections) or item_type. Books also carry series, series_index, tags, publisher, published and identifiers where calibre, Zotero or the book's own file (EPUB, Kindle, FB2, PDF…) gives them, and a Zotero item its collections, item_type, publication and abstract. Books come in pages of 100 (limit up to 500), ordered by title; total counts them all, and when next_offset is present, call again with offset = next_offset for the next page.`,
		schemas[listBooksArgs, listBooksResult](), typeEnum(types)),
		mcpgo.NewTypedToolHandler(s.listBooks))

	s.mcp.AddTool(tool("get_book_outline", "Book outline",
		`Show a book's table of contents: its chapters, each with its index (the chapter_index that get_section takes), title and, for PDFs, pages (page_start, page_end); under a chapter, its sections with their index (the section_index), title, pages and size in tokens. A chapter listed without sections is one section of the same title: read it with section_index 0. Indexes start at 0. Use it to see how a book is organised before reading a part of it.`,
		schemas[outlineArgs, retrieve.OutlineView]()),
		mcpgo.NewTypedToolHandler(s.outline))

	s.mcp.AddTool(tool("get_section", "Read a section",
		`Read one whole section of a book (chapter_index and section_index come from get_book_outline or a search hit; both start at 0). This is how to read more than a search passage. Long sections come in pages of about 20,000 characters: when next_offset is present, call again with offset = next_offset to read on; nothing is cut silently. Each page carries its own pages of the book (page_start, page_end, for PDFs) and its own citation: cite with it.`,
		schemas[sectionArgs, retrieve.SectionView]()),
		mcpgo.NewTypedToolHandler(s.section))

	s.mcp.AddTool(tool("search", "Search the library",
		`Search the user's books and return the best passages, each with its citation: book (slug) and title, author, chapter and section (their titles, and chapter_index and section_index, which get_section takes), pages for PDFs (page_start, page_end), and chunk_index, which read_chunk_neighbors takes; a book with a series or tags (from calibre or Zotero, or from its own file) also gives them. A passage with yours true is the user's own highlight or note, made in Zotero (chapter "Your notes and highlights in Zotero"): a highlight quotes the paper, but a comment or note is the user's words, never the author's; say so when you cite it. Full text (BM25: good for names, terms and exact sentences) and vectors are combined. For a hard question, or a why or how question, pass two or three phrasings in queries (the user's words, and the words a book would use for the answer): they are searched separately and fused; the search matches words, not meaning. score orders the hits of one search, higher first; it is not a probability and does not compare across searches. scores gives each signal's part where it has one: fts_rank and fts_bm25 (full text), vector_cosine, subword (sub-word similarity), and vector_rank when the vector search ranked the passage; when the user runs a reranker, rerank (then the score) and rerank_probability (0-1), its estimate that the passage is relevant. A passage that several books hold (editions of one work, copies), or that one book says twice word for word, is one hit: also_in lists the other books, or the other place in the same book, with their book, path and chunk_index; it is the same text, not further evidence. coverage (0-1) is the share of the distinctive words of query (the user's question: queries find passages but do not vouch for them) that a passage holds; no_match is true when none of the best passages covers enough of it, which means the library probably does not answer it: say so rather than stretching the passages. missing lists the words of query that no book holds at all (a name, a tool, a version the library never mentions): tell the user the library has nothing on them. indexing (ready and total books) is present only while the library is still being indexed: the results then come from the ready books only and may be incomplete; tell the user so when it matters, especially when nothing matches. Quote and cite what you use as "Title, Chapter › Section, p. N".`,
		schemas[searchArgs, searchResult](), typeEnum(types)),
		mcpgo.NewTypedToolHandler(s.search))

	s.mcp.AddTool(tool("read_chunk_neighbors", "Read around a passage",
		`Read the passages just before and after a search hit, in book order (chunk_index from the hit; before and after: 0 to 10 passages, default 1). Passages of one section overlap by a sentence or two when stored; here each one leaves out what the one before it already gave, so that they read on from one another. Use it when a hit is cut mid-thought; use get_section to read the whole section.`,
		schemas[neighborsArgs, retrieve.NeighborsView]()),
		mcpgo.NewTypedToolHandler(s.neighbors))

	s.mcp.AddTool(tool("library_status", "Library status",
		`Show the state of the library index: how many books are ready, pending, being ingested (parsed) or failed (failures, with the reasons), its chunks and embedding model, the last sync (last_sync), removals held back for want of evidence (held), the library's files that are no book grimoire reads, counted by extension (unsupported, e.g. .cbz or .cbr comics the user may expect to find), and whether a sync or watcher is writing (writer, watch). Use it when a book the user mentions is missing from results.`,
		schemas[statusArgs, retrieve.StatusView]()),
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
	books, err := s.lib.Books(ctx, index.BookFilter{Author: a.Author, Type: a.Type, Query: a.Query, Tag: a.Tag, Series: a.Series,
		Collection: a.Collection, ItemType: a.ItemType})
	if err != nil {
		return s.toolError("list_books", err), nil
	}
	if a.Offset > len(books) {
		return mcpgo.NewToolResultError(fmt.Sprintf("offset %d is past the end of the list (%s)", a.Offset, plural.Count(len(books), "book"))), nil
	}
	res := listBooksResult{Offset: a.Offset, Total: len(books)}
	end := min(a.Offset+limit, len(books))
	res.Books = append([]retrieve.BookView{}, books[a.Offset:end]...)
	if end < len(books) {
		res.NextOffset = &end
	}
	var b strings.Builder
	switch {
	case res.NextOffset == nil && a.Offset == 0:
		fmt.Fprintf(&b, "%s\n", plural.Count(len(books), "book"))
	default:
		fmt.Fprintf(&b, "books %d–%d of %d\n", a.Offset+1, end, len(books))
	}
	for _, bk := range res.Books {
		fmt.Fprintf(&b, "- %s: %q", bk.Slug, bk.Title)
		if bk.Author != "" {
			fmt.Fprintf(&b, " by %s", bk.Author)
		}
		if bk.Series != "" {
			fmt.Fprintf(&b, " [%s]", seriesNote(bk.Series, bk.SeriesIndex))
		}
		fmt.Fprintf(&b, " (%s, %s, %s)", bk.SourceType, plural.Count(bk.Chapters, "chapter"), bk.Status)
		if len(bk.Tags) > 0 {
			fmt.Fprintf(&b, " tags: %s", retrieve.JoinTags(bk.Tags))
		}
		if len(bk.Collections) > 0 {
			fmt.Fprintf(&b, " collections: %s", retrieve.JoinTags(bk.Collections))
		}
		b.WriteString("\n")
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
	o = o.Compact()
	var b strings.Builder
	fmt.Fprintf(&b, "%s", o.Title)
	if o.Author != "" {
		fmt.Fprintf(&b, " by %s", o.Author)
	}
	fmt.Fprintf(&b, " (book=%s): %s\n", o.Book, plural.Count(len(o.Chapters), "chapter"))
	b.WriteString("Each line: chapter_index, title; indented under a chapter: section_index, title. A chapter without sections listed is section_index 0.\n")
	for _, c := range o.Chapters {
		fmt.Fprintf(&b, "%d %s%s\n", c.Index, c.Title, retrieve.PageNote(" ", c.PageStart, c.PageEnd))
		for _, sec := range c.Sections {
			fmt.Fprintf(&b, "  %d %s%s\n", sec.Index, sec.Title, retrieve.PageNote(" ", sec.PageStart, sec.PageEnd))
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
	v, err := s.lib.Search(ctx, retrieve.Query{Text: text, Phrasings: phrasings, Book: a.Book, Author: a.Author, Type: a.Type, Tag: a.Tag, Series: a.Series,
		Collection: a.Collection, ItemType: a.ItemType, Limit: a.Limit})
	if err != nil {
		return s.toolError("search", err), nil
	}
	hits := v.Hits
	var b strings.Builder
	if v.Indexing != nil {
		fmt.Fprintf(&b, "The library is still being indexed: %d of %d books are ready, and these results come from those only, so they may be incomplete. Searching again later may find more.\n\n", v.Indexing.Ready, v.Indexing.Total)
	}
	noMatch := retrieve.NoMatch(hits)
	if len(v.Missing) > 0 {
		b.WriteString(retrieve.MissingLine(v.Missing) + "\n")
	}
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
		if h.Yours {
			b.WriteString("    the user's own: a highlight or note made in Zotero; its comments and notes are the user's words, not the paper's\n")
		}
		for _, p := range h.AlsoIn {
			fmt.Fprintf(&b, "    also in: %s (book=%s chapter_index=%d section_index=%d chunk_index=%d)\n",
				p.Citation, p.Book, p.ChapterIndex, p.SectionIndex, p.ChunkIndex)
		}
		fmt.Fprintf(&b, "    %s\n\n", oneLine(h.Text, 1200))
	}
	if hits == nil {
		hits = []retrieve.HitView{}
	}
	return result(searchResult{Query: text, Results: hits, NoMatch: noMatch, Missing: v.Missing, Indexing: v.Indexing}, b.String()), nil
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
	fmt.Fprintf(&b, "%s: %s of %d, in book order; each leaves out what the one before it repeats\n", v.Title, plural.Count(len(v.Chunks), "chunk"), v.TotalChunks)
	heading := ""
	for _, k := range v.Chunks {
		// The heading path is said once for a run of chunks under it.
		if k.Heading != heading {
			fmt.Fprintf(&b, "\n%s\n", k.Heading)
			heading = k.Heading
		}
		fmt.Fprintf(&b, "[chunk_index %d, chapter_index %d, section_index %d%s]\n%s\n", k.ChunkIndex, k.ChapterIndex, k.SectionIndex, retrieve.PageNote(", ", k.PageStart, k.PageEnd), k.Text)
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
	fmt.Fprintf(&b, "%s ready, %d pending, %d being ingested, %d failed; %s; model %s\n", plural.Count(v.Ready, "book"), v.Pending, v.Parsed, v.Failed, plural.Count(v.Chunks, "chunk"), v.EmbeddingModel)
	if v.Writer.Running {
		fmt.Fprintf(&b, "a %s is running (pid %d)\n", v.Writer.Command, v.Writer.PID)
		if v.Writer.Trouble != "" {
			fmt.Fprintf(&b, "it is failing and retrying: %s\n", v.Writer.Trouble)
		}
	}
	if u := v.UnsupportedSummary(); u != "" {
		fmt.Fprintf(&b, "%s (left out: grimoire does not read these kinds of file)\n", u)
	}
	for _, h := range v.Held {
		fmt.Fprintf(&b, "held the removal of %s under %s (%s); their books stay searchable until the user runs `grimoire sync --prune`\n", plural.Count(h.Files, "file"), h.Root, h.Reason)
	}
	for _, z := range v.Zotero {
		fmt.Fprintf(&b, "%s\n", retrieve.ZoteroLine(z))
	}
	if v.LastSync != nil {
		fmt.Fprintf(&b, "last sync finished %s\n", v.LastSync.Finished.Format("2006-01-02 15:04:05 UTC"))
	}
	for _, f := range v.Failures {
		fmt.Fprintf(&b, "problem: %s: %s\n", f.Path, f.Error)
	}
	return result(v, b.String()), nil
}

// seriesNote names a book's place in its series: "Discworld 3".
func seriesNote(series string, index float64) string {
	if index == 0 {
		return series
	}
	return fmt.Sprintf("%s %s", series, strconv.FormatFloat(index, 'f', -1, 64))
}
