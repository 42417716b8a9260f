package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/reconcile"
	"github.com/grimoire-search/grimoire/retrieve"
)

type fixture struct {
	lib     string
	dbPath  string
	emb     embed.Embedder
	w       *index.Writer
	c       *client.Client
	library *retrieve.Library
}

// newFixture builds a small library, indexes it with the real pipeline,
// and connects an in-process MCP client to a server over a read-only view.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{lib: t.TempDir(), emb: embed.NewBuiltin()}
	f.dbPath = filepath.Join(t.TempDir(), "grimoire.db")
	var long strings.Builder
	for i := range 400 {
		fmt.Fprintf(&long, "Paragraph %d of the long section tells of lighthouse keepers and their lamps.\n\n", i)
	}
	f.write("lighthouses.md", "---\ntitle: Lighthouses\nauthor: K. Keeper\n---\n# Lamps\n\n## Keepers\n\n"+long.String()+"# Fog\n\n## Horns\n\nFog horns sound every thirty seconds.\n\n## Bells\n\nOlder stations rang bells by hand.\n")
	f.write("gardens.md", "# Gardens\n\nRoses need six hours of sun.\n\n## Soil\n\nLoam holds water but drains well.\n")
	w, err := index.OpenWriter(ctx, f.dbPath, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	f.w = w
	f.sync(t)

	r, err := index.OpenReader(ctx, f.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	s := retrieve.New(&r.DB, f.emb, retrieve.Options{Dim: f.emb.Info().Dim})
	f.library = &retrieve.Library{DB: &r.DB, Searcher: s}
	srv := New(f.library, Options{Roots: []string{f.lib}, SectionChars: 5000})
	c, err := client.NewInProcessClient(srv.MCPServer())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	f.c = c
	return f
}

func (f *fixture) write(name, content string) {
	os.WriteFile(filepath.Join(f.lib, name), []byte(content), 0o644)
}

func (f *fixture) sync(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if _, err := reconcile.Run(ctx, f.w, reconcile.Options{Roots: []string{f.lib}, Formats: ingest.Formats()}); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(ctx, f.w, ingest.Options{Embedder: f.emb}); err != nil {
		t.Fatal(err)
	}
}

// call runs a tool and returns its structured content as JSON, and whether
// it was a tool error (with its text).
func (f *fixture) call(t *testing.T, name string, args map[string]any) (json.RawMessage, string, bool) {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := f.c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	// The readable text is the first block; a result's second is its
	// structured content as JSON.
	var text string
	if len(res.Content) > 0 {
		text = mcpgo.GetTextFromContent(res.Content[0])
	}
	if res.IsError {
		return nil, text, true
	}
	b, _ := json.Marshal(res.StructuredContent)
	return b, text, false
}

func (f *fixture) mustCall(t *testing.T, name string, args map[string]any, v any) string {
	t.Helper()
	raw, text, isErr := f.call(t, name, args)
	if isErr {
		t.Fatalf("%s(%v): tool error: %s", name, args, text)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, raw)
	}
	return text
}

func TestToolsAndAnnotations(t *testing.T) {
	f := newFixture(t)
	res, err := f.c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"get_book_outline", "get_section", "library_status", "list_books", "read_chunk_neighbors", "search"}
	var got []string
	for _, tl := range res.Tools {
		got = append(got, tl.Name)
		a := tl.Annotations
		if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint ||
			a.IdempotentHint == nil || !*a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v", tl.Name, a)
		}
		if len(tl.Description) < 80 {
			t.Errorf("%s: description too thin for a model: %q", tl.Name, tl.Description)
		}
	}
	if strings.Join(sortStrings(got), ",") != strings.Join(want, ",") {
		t.Errorf("tools = %v", got)
	}
}

func sortStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestEveryTool(t *testing.T) {
	f := newFixture(t)
	var books struct{ Books []retrieve.BookView }
	f.mustCall(t, "list_books", nil, &books)
	if len(books.Books) != 2 {
		t.Fatalf("books: %+v", books)
	}
	f.mustCall(t, "list_books", map[string]any{"author": "keeper"}, &books)
	if len(books.Books) != 1 || books.Books[0].Slug != "lighthouses" {
		t.Fatalf("filtered books: %+v", books)
	}

	var outline retrieve.OutlineView
	f.mustCall(t, "get_book_outline", map[string]any{"book": "lighthouses"}, &outline)
	if outline.Title != "Lighthouses" || outline.Author != "K. Keeper" || len(outline.Chapters) != 2 || len(outline.Chapters[1].Sections) != 2 {
		t.Fatalf("outline: %+v", outline)
	}

	var sr struct{ Results []retrieve.HitView }
	text := f.mustCall(t, "search", map[string]any{"query": "fog horn interval", "queries": []string{"how often does a foghorn sound"}}, &sr)
	if len(sr.Results) == 0 || sr.Results[0].Section != "Horns" || sr.Results[0].Citation == "" {
		t.Fatalf("search: %+v", sr.Results)
	}
	if !strings.Contains(text, "Lighthouses") || !strings.Contains(text, "chunk_index=") {
		t.Errorf("text rendering: %s", text)
	}
	hit := sr.Results[0]
	var nm struct {
		NoMatch bool `json:"no_match"`
	}
	f.mustCall(t, "search", map[string]any{"query": "fog horn interval"}, &nm)
	if nm.NoMatch {
		t.Error("no_match for a question the library answers")
	}
	text = f.mustCall(t, "search", map[string]any{"query": "quantum chromodynamics in gluon plasma"}, &nm)
	if !nm.NoMatch || !strings.Contains(text, "does not hold the answer") {
		t.Errorf("no_match not set for an unrelated question: %s", text)
	}
	// A name no book holds is named, whatever phrasings come with it.
	var missing struct {
		Missing []string `json:"missing"`
		NoMatch bool     `json:"no_match"`
	}
	text = f.mustCall(t, "search", map[string]any{"query": "How does Kubernetes set the fog horn interval?", "queries": []string{"fog horn interval"}}, &missing)
	if len(missing.Missing) != 1 || missing.Missing[0] != "Kubernetes" || !missing.NoMatch ||
		!strings.Contains(text, `No book in the library holds the word "Kubernetes".`) {
		t.Errorf("a question naming what no book holds: %+v\n%s", missing, text)
	}

	var nb retrieve.NeighborsView
	f.mustCall(t, "read_chunk_neighbors", map[string]any{"book": hit.Book, "chunk_index": hit.ChunkIndex, "before": 1, "after": 1}, &nb)
	if len(nb.Chunks) < 2 || nb.Chunks[0].ChunkIndex != hit.ChunkIndex-1 {
		t.Fatalf("neighbours: %+v", nb)
	}

	var sec retrieve.SectionView
	f.mustCall(t, "get_section", map[string]any{"book": hit.Book, "chapter_index": hit.ChapterIndex, "section_index": hit.SectionIndex}, &sec)
	if !strings.Contains(sec.Text, "thirty seconds") || sec.NextOffset != nil {
		t.Fatalf("section: %+v", sec)
	}

	var st retrieve.StatusView
	f.mustCall(t, "library_status", map[string]any{}, &st)
	if st.Ready != 2 || st.Books != 2 || len(st.Library) != 1 {
		t.Fatalf("status: %+v", st)
	}
}

func TestLongSectionIsPagedNotTruncated(t *testing.T) {
	f := newFixture(t)
	var whole strings.Builder
	offset := 0
	pages := 0
	for {
		var sec retrieve.SectionView
		f.mustCall(t, "get_section", map[string]any{"book": "lighthouses", "chapter_index": 0, "section_index": 0, "offset": offset}, &sec)
		whole.WriteString(sec.Text)
		pages++
		if len([]rune(sec.Text)) > 5000 {
			t.Fatalf("page of %d characters", len([]rune(sec.Text)))
		}
		if sec.NextOffset == nil {
			if whole.Len() == 0 || len([]rune(whole.String())) != sec.TotalChars {
				t.Fatalf("pages add up to %d of %d characters", len([]rune(whole.String())), sec.TotalChars)
			}
			break
		}
		offset = *sec.NextOffset
	}
	if pages < 3 {
		t.Errorf("%d pages for a long section", pages)
	}
	if !strings.Contains(whole.String(), "Paragraph 0 ") || !strings.Contains(whole.String(), "Paragraph 399 ") {
		t.Error("paged text lost paragraphs")
	}
}

func TestBadArgumentsAreToolErrors(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"get_book_outline", map[string]any{"book": "no-such-book"}, "no book"},
		{"get_book_outline", map[string]any{"book": "../../etc/passwd"}, "not a book slug"},
		{"get_book_outline", map[string]any{"book": ""}, "no book"},
		{"get_section", map[string]any{"book": "gardens", "chapter_index": 9, "section_index": 0}, "no section"},
		{"get_section", map[string]any{"book": "gardens", "chapter_index": -1, "section_index": 0}, "start at 0"},
		{"get_section", map[string]any{"book": "gardens", "chapter_index": 0, "section_index": 0, "offset": 1 << 30}, "outside the section"},
		{"get_section", map[string]any{"book": "gardens", "chapter_index": "one", "section_index": 0}, ""},
		{"search", map[string]any{"query": ""}, "empty"},
		{"search", map[string]any{"query": "roses", "limit": -3}, "limit"},
		{"search", map[string]any{"query": "roses", "limit": 100000}, "limit"},
		{"search", map[string]any{"query": strings.Repeat("lighthouse ", 2000)}, "maximum"},
		{"search", map[string]any{"query": "roses", "book": "nope"}, "no book"},
		{"read_chunk_neighbors", map[string]any{"book": "gardens", "chunk_index": 999}, "no chunk"},
		{"read_chunk_neighbors", map[string]any{"book": "gardens", "chunk_index": 0, "before": 500}, "between 0 and"},
	}
	for _, tc := range tests {
		_, text, isErr := f.call(t, tc.tool, tc.args)
		if !isErr {
			t.Errorf("%s(%v): no tool error", tc.tool, tc.args)
			continue
		}
		if !strings.Contains(strings.ToLower(text), tc.want) {
			t.Errorf("%s(%v): error %q does not say %q", tc.tool, tc.args, text, tc.want)
		}
	}
	// FTS5 syntax and punctuation are only words: no error.
	for _, q := range []string{`"unbalanced`, `roses AND NOT (sun OR`, `title:fog NEAR(a b)`, `*`, `c++ -- ;`, `世界 人権`, `🌹`} {
		if _, text, isErr := f.call(t, "search", map[string]any{"query": q}); isErr {
			t.Errorf("search %q: %s", q, text)
		}
	}
	// The server is still alive.
	var st retrieve.StatusView
	f.mustCall(t, "library_status", nil, &st)
}

func TestNewBooksAppearWithoutRestart(t *testing.T) {
	f := newFixture(t)
	f.write("owls.md", "# Owls\n\nBarn owls swallow voles whole.\n")
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.sync(t)
	}()
	// Keep asking while the sync writes.
	for i := 0; ; i++ {
		var sr struct{ Results []retrieve.HitView }
		f.mustCall(t, "search", map[string]any{"query": "roses sun"}, &sr)
		if len(sr.Results) == 0 {
			t.Fatal("lost the existing books during a sync")
		}
		select {
		case <-done:
			var sr struct{ Results []retrieve.HitView }
			f.mustCall(t, "search", map[string]any{"query": "barn owls voles"}, &sr)
			if len(sr.Results) == 0 || sr.Results[0].Title != "Owls" {
				t.Fatalf("new book not found: %+v", sr.Results)
			}
			return
		default:
		}
	}
}

// TestSearchSaysIndexingIsUnderWay: while books wait to be indexed, a
// search says how many are ready, in its result and in its text, so that a
// model does not take a missing answer for a missing book; once they are
// indexed it says nothing of it.
func TestSearchSaysIndexingIsUnderWay(t *testing.T) {
	f := newFixture(t)
	f.write("owls.md", "# Owls\n\nBarn owls swallow voles whole.\n")
	f.write("tides.md", "# Tides\n\nSpring tides follow the full moon.\n")
	// Reconciled, not ingested: the new books are pending.
	if _, err := reconcile.Run(context.Background(), f.w, reconcile.Options{Roots: []string{f.lib}, Formats: ingest.Formats()}); err != nil {
		t.Fatal(err)
	}
	type searchOut struct {
		Results  []retrieve.HitView
		Indexing *retrieve.IndexingView
	}
	cases := []struct {
		name     string
		args     map[string]any
		hits     bool
		sentence string
	}{
		{"with hits", map[string]any{"query": "roses sun"}, true, "still being indexed: 2 of 4 books are ready"},
		// Only a pending book selected: nothing it can read yet.
		{"without hits", map[string]any{"query": "barn owls voles", "book": "owls"}, false, "No passages match among the 2 books ready so far"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out searchOut
			text := f.mustCall(t, "search", tc.args, &out)
			if out.Indexing == nil || *out.Indexing != (retrieve.IndexingView{Ready: 2, Total: 4}) {
				t.Errorf("indexing %+v, want 2 of 4", out.Indexing)
			}
			if (len(out.Results) > 0) != tc.hits {
				t.Errorf("%d results", len(out.Results))
			}
			if !strings.Contains(text, tc.sentence) || !strings.Contains(text, "may be incomplete") {
				t.Errorf("text lacks %q:\n%s", tc.sentence, text)
			}
		})
	}
	f.sync(t)
	raw, text, _ := f.call(t, "search", map[string]any{"query": "barn owls voles"})
	if strings.Contains(string(raw), `"indexing"`) || strings.Contains(text, "still being indexed") {
		t.Errorf("indexing reported once every book is ready:\n%s\n%s", raw, text)
	}
}

// TestListBooksIsPaged: a large library comes in pages, like a long
// section, and the pages add up to the whole list in order.
func TestListBooksIsPaged(t *testing.T) {
	f := newFixture(t)
	for i := range 5 {
		f.write(fmt.Sprintf("owls-%d.md", i), fmt.Sprintf("# Owls volume %d\n\nBarn owls swallow voles whole.\n", i))
	}
	f.sync(t)

	type page struct {
		Books      []retrieve.BookView `json:"books"`
		Offset     int                 `json:"offset"`
		NextOffset *int                `json:"next_offset"`
		Total      int                 `json:"total"`
	}
	var all page
	f.mustCall(t, "list_books", nil, &all)
	if len(all.Books) != 7 || all.Total != 7 || all.NextOffset != nil {
		t.Fatalf("default page of a small library: %d books, total %d, next %v", len(all.Books), all.Total, all.NextOffset)
	}

	var got []string
	offset, pages := 0, 0
	for {
		var p page
		text := f.mustCall(t, "list_books", map[string]any{"offset": offset, "limit": 3}, &p)
		pages++
		if len(p.Books) > 3 || p.Total != 7 || p.Offset != offset {
			t.Fatalf("page at %d: %d books, total %d, offset %d", offset, len(p.Books), p.Total, p.Offset)
		}
		for _, b := range p.Books {
			got = append(got, b.Slug)
		}
		if p.NextOffset == nil {
			break
		}
		if !strings.Contains(text, fmt.Sprintf("offset %d", *p.NextOffset)) {
			t.Errorf("text rendering does not say how to read on: %s", text)
		}
		offset = *p.NextOffset
	}
	var want []string
	for _, b := range all.Books {
		want = append(want, b.Slug)
	}
	if pages != 3 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%d pages gave %v, want %v", pages, got, want)
	}

	var filtered page
	f.mustCall(t, "list_books", map[string]any{"query": "owls", "limit": 2, "offset": 2}, &filtered)
	if filtered.Total != 5 || len(filtered.Books) != 2 || filtered.NextOffset == nil || *filtered.NextOffset != 4 {
		t.Errorf("filtered page: total %d, %d books, next %v", filtered.Total, len(filtered.Books), filtered.NextOffset)
	}

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"limit": -1}, "limit"},
		{map[string]any{"limit": 100000}, "limit"},
		{map[string]any{"offset": -1}, "offset"},
		{map[string]any{"offset": 8}, "offset"},
	} {
		_, text, isErr := f.call(t, "list_books", tc.args)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("list_books(%v): error %v %q", tc.args, isErr, text)
		}
	}
}

// TestToolsTakeSlugPrefixes names books by the beginning of their slug in
// every tool that takes one, and suggests the nearest slug for a typo.
func TestToolsTakeSlugPrefixes(t *testing.T) {
	f := newFixture(t)
	var outline retrieve.OutlineView
	f.mustCall(t, "get_book_outline", map[string]any{"book": "light"}, &outline)
	if outline.Book != "lighthouses" {
		t.Errorf("get_book_outline(light) gave %q", outline.Book)
	}
	var sec retrieve.SectionView
	f.mustCall(t, "get_section", map[string]any{"book": "gard", "chapter_index": 0, "section_index": 0}, &sec)
	if sec.Book != "gardens" {
		t.Errorf("get_section(gard) gave %q", sec.Book)
	}
	var nb retrieve.NeighborsView
	f.mustCall(t, "read_chunk_neighbors", map[string]any{"book": "gard", "chunk_index": 0}, &nb)
	if nb.Book != "gardens" {
		t.Errorf("read_chunk_neighbors(gard) gave %q", nb.Book)
	}
	var sr struct{ Results []retrieve.HitView }
	f.mustCall(t, "search", map[string]any{"query": "fog horns", "book": "li"}, &sr)
	for _, h := range sr.Results {
		if h.Book != "lighthouses" {
			t.Errorf("search in book li found a hit in %q", h.Book)
		}
	}
	if len(sr.Results) == 0 {
		t.Error("search in book li found nothing")
	}
	_, text, isErr := f.call(t, "get_book_outline", map[string]any{"book": "lihgthouses"})
	if !isErr || !strings.Contains(text, `did you mean "lighthouses"?`) {
		t.Errorf("a typo: %v %s", isErr, text)
	}
}

func TestLibraryStatusCountsFilesGrimoireDoesNotRead(t *testing.T) {
	f := newFixture(t)
	f.write("strip.cbz", "not a book")
	f.write("scan.cbr", "not a book")
	f.write("other.cbz", "not a book")
	f.sync(t)
	var st retrieve.StatusView
	text := f.mustCall(t, "library_status", nil, &st)
	want := []library.Unsupported{{Extension: ".cbz", Files: 2}, {Extension: ".cbr", Files: 1}}
	if st.UnsupportedFiles != 3 || !slices.Equal(st.Unsupported, want) {
		t.Errorf("unsupported: %d %+v", st.UnsupportedFiles, st.Unsupported)
	}
	if !strings.Contains(text, "3 files: 2 .cbz, 1 .cbr (left out: grimoire does not read these kinds of file)\n") {
		t.Errorf("text:\n%s", text)
	}
}
