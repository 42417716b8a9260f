package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model"
)

func mustOpenWriter(t *testing.T) *Writer {
	t.Helper()
	w, err := OpenWriter(context.Background(), filepath.Join(t.TempDir(), "idx", "grimoire.db"), "grimoire test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func TestSlugify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Alice's Adventures in Wonderland", "alice-s-adventures-in-wonderland"},
		{"Candide, ou l'Optimisme", "candide-ou-l-optimisme"},
		{"  Über Café  ", "uber-cafe"},
		{"世界人権宣言", "世界人権宣言"},
		{"!!!", "book"},
		{"", "book"},
		{strings.Repeat("word ", 40), strings.TrimSuffix(strings.Repeat("word-", 12), "-")},
	}
	for _, tc := range tests {
		if got := Slugify(tc.in); got != tc.want {
			t.Errorf("Slugify(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSecondWriterIsRefusedWithHolder(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	_, err := OpenWriter(ctx, w.Path(), "grimoire other")
	if err == nil {
		t.Fatal("second writer opened")
	}
	if fault.CodeOf(err) != fault.Conflict {
		t.Errorf("code = %v, want fault.Conflict", fault.CodeOf(err))
	}
	if !strings.Contains(err.Error(), "grimoire test (pid") {
		t.Errorf("error does not name the holder: %v", err)
	}
	h, running := ReadLockHolder(w.Path())
	if !running || h.Command != "grimoire test" {
		t.Errorf("ReadLockHolder = %+v, %v", h, running)
	}
	w.Close()
	if _, running := ReadLockHolder(w.Path()); running {
		t.Error("lock still reported held after Close")
	}
	w2, err := OpenWriter(ctx, w.Path(), "grimoire again")
	if err != nil {
		t.Fatalf("reopen after close: %v", err)
	}
	w2.Close()
}

func TestReaderIsReadOnly(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	r, err := OpenReader(ctx, w.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES ('x', 'y')`); err == nil {
		t.Fatal("a reader could write")
	}
	if _, err := OpenReader(ctx, filepath.Join(t.TempDir(), "none.db")); fault.CodeOf(err) != fault.NotFound {
		t.Fatalf("reader on a missing index: %v", err)
	}
}

func TestPathsWithURICharacters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my books?#%")
	w, err := OpenWriter(context.Background(), filepath.Join(dir, "g.db"), "t")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r, err := OpenReader(context.Background(), filepath.Join(dir, "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
}

// put records path as holding content, as reconcile does.
func put(t *testing.T, w *Writer, path, content string, prev library.Hash) (library.Hash, bool) {
	t.Helper()
	h := library.SumBytes([]byte(content))
	var created bool
	err := w.Update(context.Background(), func(tx *Tx) error {
		var err error
		created, err = tx.PutFile(context.Background(), library.File{Path: path, Root: "/lib", Hash: h, Size: int64(len(content)), SourceType: "text"}, prev)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return h, created
}

func remove(t *testing.T, w *Writer, path string) int {
	t.Helper()
	var pruned int
	err := w.Update(context.Background(), func(tx *Tx) error {
		if err := tx.RemoveFile(context.Background(), path); err != nil {
			return err
		}
		gone, err := tx.Prune(context.Background())
		pruned = len(gone)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pruned
}

// ingestFake moves a book through the pipeline with one chunk.
func ingestFake(t *testing.T, w *Writer, h library.Hash, title, text string) library.Book {
	t.Helper()
	ctx := context.Background()
	books, err := w.queryBooks(ctx, `WHERE b.hash = ?`, h)
	if err != nil || len(books) != 1 {
		t.Fatalf("book for %s: %v %v", h.Short(), books, err)
	}
	b := books[0]
	ch := []library.Chapter{{Index: 0, Title: "One", Sections: []library.Section{{Index: 0, Title: "One", Text: text, ChunkCount: 1}}}}
	k := []library.Chunk{{Index: 0, Heading: title + " › One", Text: text, State: library.ChunkContextualized}}
	if err := w.StoreParsed(ctx, b.ID, BookMeta{Title: title, SourceType: "text"}, ch, k); err != nil {
		t.Fatal(err)
	}
	todo, err := w.ChunksToEmbed(ctx, b.ID, 10)
	if err != nil || len(todo) != 1 {
		t.Fatalf("ChunksToEmbed: %v %v", todo, err)
	}
	if err := w.StoreEmbeddings(ctx, []int64{todo[0].ID}, [][]float32{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.FinishBook(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	books, err = w.queryBooks(ctx, `WHERE b.hash = ?`, h)
	if err != nil || len(books) != 1 {
		t.Fatalf("book for %s after ingest: %v %v", h.Short(), books, err)
	}
	return books[0]
}

func count(t *testing.T, w *Writer, q string) int {
	t.Helper()
	var n int
	if err := w.db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestEditKeepsOldVersionUntilNewIsReady(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	h1, created := put(t, w, "/lib/a.txt", "first version", library.Hash{})
	if !created {
		t.Fatal("no book created for new content")
	}
	old := ingestFake(t, w, h1, "Alpha", "first version")
	if old.Slug != "alpha" {
		t.Fatalf("slug = %q", old.Slug)
	}

	h2, created := put(t, w, "/lib/a.txt", "second version", h1)
	if !created {
		t.Fatal("no book for the edit")
	}
	if n := remove(t, w, "/lib/none"); n != 0 {
		t.Fatalf("pruned %d while the new version is pending", n)
	}
	hits, err := w.SearchFTS(ctx, `"first"`, BookFilter{}, FTSWeights{Heading: 1, Context: 1, Text: 1}, 10)
	if err != nil || len(hits) != 1 {
		t.Fatalf("old version no longer answers: %v %v", hits, err)
	}
	nb := ingestFake(t, w, h2, "Alpha", "second version")
	if nb.Slug != "alpha" {
		t.Errorf("new version slug = %q, want the old one's", nb.Slug)
	}
	if n := count(t, w, `SELECT count(*) FROM book`); n != 1 {
		t.Errorf("%d books after the edit, want 1", n)
	}
	if hits, _ := w.SearchFTS(ctx, `"first"`, BookFilter{}, FTSWeights{Heading: 1, Context: 1, Text: 1}, 10); len(hits) != 0 {
		t.Errorf("old text still found: %v", hits)
	}
	if n := count(t, w, `SELECT count(*) FROM embedding`); n != 1 {
		t.Errorf("%d embeddings, want 1 (the old one cascaded away)", n)
	}
}

func TestEditTwiceBeforeIngestKeepsLastReadyVersion(t *testing.T) {
	w := mustOpenWriter(t)
	h1, _ := put(t, w, "/lib/a.txt", "v1", library.Hash{})
	ingestFake(t, w, h1, "A", "v1")
	h2, _ := put(t, w, "/lib/a.txt", "v2", h1)
	h3, _ := put(t, w, "/lib/a.txt", "v3", h2)
	remove(t, w, "/lib/none")
	// v2 never became ready: it is pruned; v1 answers until v3 is ready.
	if n := count(t, w, `SELECT count(*) FROM book`); n != 2 {
		t.Fatalf("%d books, want v1 and v3", n)
	}
	ingestFake(t, w, h3, "A", "v3")
	if n := count(t, w, `SELECT count(*) FROM book`); n != 1 {
		t.Fatalf("%d books after v3 is ready, want 1", n)
	}
}

// TestHashJSON checks that JSON carries a hash in its text form, the form
// `list --json` and `exclusions --json` both print, and reads it back.
func TestHashJSON(t *testing.T) {
	h := library.SumBytes([]byte("hello"))
	b, err := json.Marshal(Exclusion{Hash: h})
	if err != nil {
		t.Fatal(err)
	}
	if want := `"hash":"` + h.String() + `"`; !strings.Contains(string(b), want) {
		t.Fatalf("JSON %s, want %s in it", b, want)
	}
	var e Exclusion
	if err := json.Unmarshal(b, &e); err != nil || e.Hash != h {
		t.Fatalf("read back %v, %v", e.Hash, err)
	}
	if err := json.Unmarshal([]byte(`{"hash":"sha1-00"}`), &e); err == nil {
		t.Error("a hash of another algorithm was read")
	}
}

// TestLiftExclusionKeys lifts one exclusion by each name a user may give it.
func TestLiftExclusionKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		key  func(e Exclusion) string
		// legacy clears the stored slug, as in exclusions recorded before
		// slugs were kept.
		legacy bool
	}{
		{"slug", func(e Exclusion) string { return e.Slug }, false},
		{"title's slug of an old exclusion", func(e Exclusion) string { return "the-owl-book" }, true},
		{"prefix of the slug", func(e Exclusion) string { return "the-owl" }, false},
		{"prefix of the title's slug of an old exclusion", func(e Exclusion) string { return "the-o" }, true},
		{"full hash", func(e Exclusion) string { return e.Hash.String() }, false},
		{"hash prefix", func(e Exclusion) string { return e.Hash.String()[7:15] }, false},
		{"title", func(e Exclusion) string { return "the owl BOOK" }, false},
		{"path", func(e Exclusion) string { return e.Path }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			w := mustOpenWriter(t)
			h, _ := put(t, w, "/lib/owls.txt", "owls", library.Hash{})
			b := ingestFake(t, w, h, "The Owl Book", "owls")
			if _, err := w.DeleteBook(ctx, b.Slug); err != nil {
				t.Fatal(err)
			}
			if tc.legacy {
				if _, err := w.db.ExecContext(ctx, `UPDATE exclusion SET slug = ''`); err != nil {
					t.Fatal(err)
				}
			}
			ex, err := w.Exclusions(ctx)
			if err != nil || len(ex) != 1 {
				t.Fatalf("exclusions = %+v, %v", ex, err)
			}
			if !tc.legacy && ex[0].Slug != b.Slug {
				t.Errorf("stored slug %q, the book's was %q", ex[0].Slug, b.Slug)
			}
			if _, err := w.LiftExclusion(ctx, "no-such-book"); !errors.Is(err, fault.ErrNotFound) {
				t.Errorf("an unknown name: %v", err)
			}
			if _, err := w.LiftExclusion(ctx, tc.key(ex[0])); err != nil {
				t.Fatalf("lift %q: %v", tc.key(ex[0]), err)
			}
			if ex, _ := w.Exclusions(ctx); len(ex) != 0 {
				t.Errorf("still excluded: %+v", ex)
			}
		})
	}
}

func TestCopyMoveDeleteAndExclusion(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	h, _ := put(t, w, "/lib/a.txt", "content", library.Hash{})
	b := ingestFake(t, w, h, "A", "content")
	if _, created := put(t, w, "/lib/copy.txt", "content", library.Hash{}); created {
		t.Error("a copy created a book")
	}
	if n := remove(t, w, "/lib/a.txt"); n != 0 {
		t.Errorf("pruned %d while a copy still holds the book", n)
	}
	if n := remove(t, w, "/lib/copy.txt"); n != 1 {
		t.Errorf("pruned %d when the last file went, want 1", n)
	}
	if n := count(t, w, `SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH 'content'`); n != 0 {
		t.Errorf("FTS still has %d rows of a pruned book", n)
	}

	h, _ = put(t, w, "/lib/b.txt", "other", library.Hash{})
	b = ingestFake(t, w, h, "B", "other")
	if _, err := w.DeleteBook(ctx, b.Slug); err != nil {
		t.Fatal(err)
	}
	var created int
	w.Update(ctx, func(tx *Tx) error {
		var err error
		created, err = tx.EnsureBooks(ctx)
		return err
	})
	if created != 0 {
		t.Error("an excluded content came back")
	}
	if _, err := w.DeleteBook(ctx, b.Slug); !errors.Is(err, fault.ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	ex, err := w.Exclusions(ctx)
	if err != nil || len(ex) != 1 || ex[0].Path != "/lib/b.txt" {
		t.Fatalf("exclusions = %+v, %v", ex, err)
	}
	if _, err := w.LiftExclusion(ctx, ex[0].Hash.String()[7:19]); err != nil {
		t.Fatal(err)
	}
	w.Update(ctx, func(tx *Tx) error {
		var err error
		created, err = tx.EnsureBooks(ctx)
		return err
	})
	if created != 1 {
		t.Errorf("lifting the exclusion did not bring the book back (%d created)", created)
	}
}

func TestStoreParsedTwiceDoesNotDuplicate(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	h, _ := put(t, w, "/lib/a.txt", "x", library.Hash{})
	books, _ := w.BooksToIngest(ctx)
	id := books[0].ID
	ch := []library.Chapter{{Index: 0, Title: "C", Sections: []library.Section{{Index: 0, Title: "S", Text: "x y"}}}}
	k := []library.Chunk{{Index: 0, Heading: "h", Text: "x"}, {Index: 1, Heading: "h", Text: "y"}}
	for range 2 {
		if err := w.StoreParsed(ctx, id, BookMeta{Title: "T"}, ch, k); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, w, `SELECT count(*) FROM chunk`); n != 2 {
		t.Errorf("%d chunks, want 2", n)
	}
	if n := count(t, w, `SELECT count(*) FROM chunk_fts`); n != 2 {
		t.Errorf("%d FTS rows, want 2", n)
	}
	_ = h
	if err := w.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestStamp(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	s := model.Stamp{Provider: "builtin", Model: "m1", Dim: 256}
	if err := w.CheckStamp(ctx, s); err != nil {
		t.Fatalf("empty index refused a model: %v", err)
	}
	if err := w.SetStamp(ctx, s); err != nil {
		t.Fatal(err)
	}
	other := s
	other.Model = "m2"
	err := w.CheckStamp(ctx, other)
	if fault.CodeOf(err) != fault.Conflict || !strings.Contains(err.Error(), "reindex --embeddings") {
		t.Fatalf("model switch: %v", err)
	}
}

// TestCountVectors: all of them, counted another way than a range, and
// those after an id.
func TestCountVectors(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	for i := range 5 {
		text := fmt.Sprintf("chunk number %d", i)
		h, _ := put(t, w, fmt.Sprintf("/lib/b%d.txt", i), text, library.Hash{})
		b := ingestFake(t, w, h, fmt.Sprint("Book ", i), text)
		if i == 1 {
			remove(t, w, b.Paths[0]) // a gap in the ids
		}
	}
	var ids []int64
	if err := w.Vectors(ctx, 0, func(r VectorRow) error { ids = append(ids, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 4 {
		t.Fatalf("%d vectors, want 4", len(ids))
	}
	for _, tc := range []struct {
		after int64
		want  int
	}{{0, 4}, {-1, 4}, {ids[0], 3}, {ids[3], 0}} {
		if n, err := w.CountVectors(ctx, tc.after); err != nil || n != tc.want {
			t.Errorf("CountVectors(%d) = %d, %v; want %d", tc.after, n, err, tc.want)
		}
	}
}

func TestSampleChunksAndHitsOf(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	var ids []int64
	for i := range 40 {
		text := fmt.Sprintf("chunk number %d", i)
		h, _ := put(t, w, fmt.Sprintf("/lib/b%02d.txt", i), text, library.Hash{})
		b := ingestFake(t, w, h, fmt.Sprint("Book ", i), text)
		if i%3 == 0 {
			// Gaps in the ids, as pruned books leave.
			remove(t, w, b.Paths[0])
			continue
		}
		var id int64
		if err := w.db.QueryRow(`SELECT id FROM chunk WHERE book_id = ?`, b.ID).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	sample := func(n int) []string {
		var got []string
		if err := w.sampleChunks(ctx, n, len(ids), func(c ChunkText) { got = append(got, c.Text) }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if all := sample(100); len(all) != len(ids) {
		t.Fatalf("a sample larger than the index has %d chunks, want all %d", len(all), len(ids))
	}
	some := sample(8)
	if len(some) < 6 || len(some) > 8 {
		t.Fatalf("sample of 8: %d chunks: %q", len(some), some)
	}
	seen := make(map[string]bool)
	for _, s := range some {
		if seen[s] {
			t.Errorf("%q sampled twice", s)
		}
		seen[s] = true
	}
	// Spread over the index, not its first rows.
	var last int
	fmt.Sscanf(some[len(some)-1], "chunk number %d", &last)
	if some[0] != "chunk number 1" || last < 30 {
		t.Errorf("sample not spread over the index: %q", some)
	}
	if again := sample(8); strings.Join(again, "|") != strings.Join(some, "|") {
		t.Errorf("the same index gave another sample: %q, then %q", some, again)
	}

	hits, err := w.HitsOf(ctx, append(ids[:3:3], 999999), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 {
		t.Fatalf("HitsOf: %d chunks, want 3 (an unknown id left out)", len(hits))
	}
	c := hits[0]
	if c.ID != ids[0] || c.Text != "chunk number 1" || !strings.HasSuffix(c.Heading, "› One") || len(c.Vec) != 2 || c.Vec[0] != 1 {
		t.Errorf("HitsOf: %+v", c)
	}
}

func FuzzDecodeDF(f *testing.F) {
	f.Add(encodeDF([]uint64{1, 99, 1 << 60}, []uint32{2, 1, 7}))
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		keys, df, err := decodeDF(b)
		if err != nil {
			return
		}
		if !slices.IsSorted(keys) || len(keys) != len(df) {
			t.Fatalf("decoded %d keys (sorted: %v), %d counts", len(keys), slices.IsSorted(keys), len(df))
		}
		k2, df2, err := decodeDF(encodeDF(keys, df))
		if err != nil || !slices.Equal(k2, keys) || !slices.Equal(df2, df) {
			t.Fatalf("round trip: %d features, then %d (%v)", len(keys), len(k2), err)
		}
	})
}

func TestFeatureStatsRoundTrip(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	if _, ok, err := w.FeatureStats(ctx); ok || err != nil {
		t.Fatalf("a new index has statistics: %v %v", ok, err)
	}
	for i := range 5 {
		text := fmt.Sprintf("alpha beta %d", i)
		h, _ := put(t, w, fmt.Sprintf("/lib/%d.txt", i), text, library.Hash{})
		ingestFake(t, w, h, "Book", text)
	}
	words := func(text string, fn func(uint64, uint32)) {
		for _, w := range strings.Fields(text) {
			fn(uint64(len(w))*1000+uint64(w[0]), 1)
		}
	}
	st, err := w.SampleFeatureStats(ctx, words)
	if err != nil {
		t.Fatal(err)
	}
	if st.Docs != 5 || st.Chunks != 5 || st.Count(5*1000+'a') != 5 || st.Count(1000+'0') != 1 || st.Count(7) != 0 {
		t.Fatalf("sampled: %+v", st)
	}
	for range 2 {
		if err := w.PutFeatureStats(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := w.FeatureStats(ctx)
	if !ok || err != nil || got.Version != 2 || got.Docs != 5 || !slices.Equal(got.Keys, st.Keys) || !slices.Equal(got.DF, st.DF) {
		t.Fatalf("stored: %+v %v %v", got, ok, err)
	}
	if hdr, _, _ := w.FeatureStatsHeader(ctx); hdr.Version != 2 || hdr.Keys != nil {
		t.Errorf("header: %+v", hdr)
	}
	if !got.Stale(6) || got.Stale(5) {
		t.Errorf("5 chunks sampled: stale at 6 %v, at 5 %v", got.Stale(6), got.Stale(5))
	}
}

func TestFoldTermIsTheTokenizers(t *testing.T) {
	tests := []struct{ in, want string }{
		{"owls", "owls"},
		{"Owls", "owls"},
		{"Château", "chateau"},
		{"NAÏVE", "naive"},
		{"Ångström", "angstrom"},
		{"世界", "世界"},
	}
	for _, tc := range tests {
		if got := FoldTerm(tc.in); got != tc.want {
			t.Errorf("FoldTerm(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// The folded word is the term the full-text index holds.
	ctx := context.Background()
	w := mustOpenWriter(t)
	h, _ := put(t, w, "/lib/a.txt", "a", library.Hash{})
	ingestFake(t, w, h, "Menu", "Café crème")
	docs, err := w.TermDocs(ctx, []string{FoldTerm("Café"), FoldTerm("CRÈME")})
	if err != nil || docs["cafe"] != 1 || docs["creme"] != 1 {
		t.Errorf("terms of the folded words: %v %v", docs, err)
	}
}

// A section row holds its whole text, and SQLite reads a whole row to
// compare its key: counting a book's sections must read the section_title
// index, or listing books (and opening one by its slug) reads their text.
// Hits name the index outright.
func TestSectionKeysAreReadWithoutText(t *testing.T) {
	w := mustOpenWriter(t)
	for _, q := range []string{
		`SELECT ` + bookColumns + bookCounts + ` FROM book b WHERE b.id = 1`,
	} {
		plan := queryPlan(t, w, q)
		for _, step := range plan {
			// Every statement here names the section table s.
			if strings.HasPrefix(step, "SEARCH s ") && !strings.Contains(step, "COVERING INDEX section_title") {
				t.Errorf("plan of %q reads section rows: %q", q, plan)
			}
		}
	}
}

// TestChunksToEmbedAfter: a batch asked for after an index starts past
// it, skipping chunks embedded already or not, in book order.
func TestChunksToEmbedAfter(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	h, _ := putT(t, w, "/lib/a.txt", "six chunks")
	books, err := w.queryBooks(ctx, `WHERE b.hash = ?`, h)
	if err != nil || len(books) != 1 {
		t.Fatalf("book: %v %v", books, err)
	}
	id := books[0].ID
	var ks []library.Chunk
	for i := range 6 {
		ks = append(ks, library.Chunk{Index: i, Heading: "A › One", Text: fmt.Sprint("text ", i), State: library.ChunkContextualized})
	}
	ch := []library.Chapter{{Index: 0, Title: "One", Sections: []library.Section{{Index: 0, Title: "One", Text: "t", ChunkCount: len(ks)}}}}
	if err := w.StoreParsed(ctx, id, BookMeta{Title: "A", SourceType: "text"}, ch, ks); err != nil {
		t.Fatal(err)
	}
	first, err := w.ChunksToEmbed(ctx, id, 2)
	if err != nil || len(first) != 2 {
		t.Fatalf("ChunksToEmbed: %v %v", first, err)
	}
	if err := w.StoreEmbeddings(ctx, []int64{first[0].ID}, [][]float32{{1, 0}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name         string
		after, limit int
		want         []int
	}{
		{"from the start, past the embedded", -1, 3, []int{1, 2, 3}},
		{"after an index", 2, 10, []int{3, 4, 5}},
		{"after the last", 5, 10, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := w.ChunksToEmbedAfter(ctx, id, tc.after, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var idx []int
			for _, k := range got {
				idx = append(idx, k.Index)
			}
			if !slices.Equal(idx, tc.want) {
				t.Errorf("indexes %v, want %v", idx, tc.want)
			}
		})
	}
}

// TestChunksToEmbedSeeksToTheBatch: SQLite finds the next batch by
// seeking in the book's chunks to the index it starts after, not by
// stepping over every chunk before it (a cost that, batch after batch,
// grows with the square of the book's chunks).
func TestChunksToEmbedSeeksToTheBatch(t *testing.T) {
	w := mustOpenWriter(t)
	if got := strings.Join(queryPlan(t, w, chunksToEmbedSQL, 1, 5, 32), "; "); !strings.Contains(got, "idx>?") || strings.Contains(got, "TEMP B-TREE") {
		t.Errorf("plan %q, want a search on book_id and idx, in idx order", got)
	}
}

// TestChunksToReembedSeeksToTheBatch: the next batch of a model switch is
// found by seeking past the last chunk id, not by passing over every chunk
// done so far.
func TestChunksToReembedSeeksToTheBatch(t *testing.T) {
	w := mustOpenWriter(t)
	if got := strings.Join(queryPlan(t, w, chunksToReembedSQL, 5, 32), "; "); !strings.Contains(got, "rowid>?") || strings.Contains(got, "TEMP B-TREE") {
		t.Errorf("plan %q, want a search on the chunk's id, in id order", got)
	}
}

// queryPlan is SQLite's plan for query, step by step.
func queryPlan(t *testing.T, w *Writer, query string, args ...any) []string {
	t.Helper()
	rows, err := w.db.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestOldVersionCitedAtItsPath: while a changed file's new content waits
// for ingest, its old version answers, and its passages are cited at the
// path it was found at, which no file row holds any more.
func TestOldVersionCitedAtItsPath(t *testing.T) {
	w := mustOpenWriter(t)
	ctx := context.Background()
	h, _ := put(t, w, "/lib/tides.txt", "tides, first edition", library.Hash{})
	old := ingestFake(t, w, h, "Tides", "spring tides follow the full moon")
	put(t, w, "/lib/tides.txt", "tides, second edition", h)
	var id int64
	if err := w.db.QueryRowContext(ctx, `SELECT id FROM chunk WHERE book_id = ?`, old.ID).Scan(&id); err != nil {
		t.Fatal(err)
	}
	hits, err := w.HitsOf(ctx, []int64{id}, false)
	if err != nil || len(hits) != 1 {
		t.Fatalf("hits of the old version: %v, %v", hits, err)
	}
	if got := hits[0].Book.Paths; !slices.Equal(got, []string{"/lib/tides.txt"}) {
		t.Errorf("old version cited at %q, want its path", got)
	}
}
