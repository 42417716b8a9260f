package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index/fulltext"
	"github.com/grimoire-search/grimoire/internal/testcorpus"
	"github.com/grimoire-search/grimoire/library"
)

// setContext gives every chunk of book id the context text, whatever its
// state, with the length that goes with it.
func setContext(t *testing.T, w *Writer, id int64, text string) {
	t.Helper()
	ctx := context.Background()
	err := w.Update(ctx, func(tx *Tx) error {
		var ids []int64
		var lengths []int
		err := readAll(ctx, tx.tx, `SELECT id, heading, text FROM chunk WHERE book_id = ?`, func(r *sql.Rows) error {
			var k int64
			var heading, body string
			if err := r.Scan(&k, &heading, &body); err != nil {
				return err
			}
			ids, lengths = append(ids, k), append(lengths, fulltext.Length(heading, text, body))
			return nil
		}, id)
		for i, k := range ids {
			if err == nil {
				_, err = tx.tx.ExecContext(ctx, `UPDATE chunk SET context = ?, length = ? WHERE id = ?`, text, lengths[i], k)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// storeChunks stores a ready book titled title with one chunk per text.
func storeChunks(t *testing.T, w *Writer, title string, texts []string) library.Book {
	t.Helper()
	ctx := context.Background()
	h, _ := put(t, w, "/lib/"+title+".txt", title+strings.Join(texts, "|"), library.Hash{})
	books, err := w.queryBooks(ctx, `WHERE b.hash = ?`, h)
	if err != nil || len(books) != 1 {
		t.Fatalf("book %s: %v %v", title, books, err)
	}
	b := books[0]
	var chunks []library.Chunk
	var secs []library.Section
	for i, text := range texts {
		chunks = append(chunks, library.Chunk{Index: i, SectionIndex: i, Heading: title + " › Part " + fmt.Sprint(i), Context: "", Text: text, State: library.ChunkContextualized})
		secs = append(secs, library.Section{Index: i, Title: fmt.Sprint("Part ", i), Text: text, ChunkCount: 1})
	}
	ch := []library.Chapter{{Index: 0, Title: "One", Sections: secs}}
	if err := w.StoreParsed(ctx, b.ID, BookMeta{Title: title, SourceType: "text"}, ch, chunks); err != nil {
		t.Fatal(err)
	}
	todo, err := w.ChunksToEmbed(ctx, b.ID, len(texts)+1)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(todo))
	vecs := make([][]float32, len(todo))
	for i, k := range todo {
		ids[i], vecs[i] = k.ID, []float32{1, 0}
	}
	if err := w.StoreEmbeddings(ctx, ids, vecs); err != nil {
		t.Fatal(err)
	}
	if _, err := w.FinishBook(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	return b
}

// randomLibrary stores books of random passages over a small vocabulary
// with forms that stem and fold alike, so that terms repeat within and
// across chunks.
func randomLibrary(t *testing.T, w *Writer, rng *rand.Rand, books, chunks int) []string {
	vocab := []string{"whale", "whales", "Whaling", "ship", "Ships", "sea", "captain", "Captain's", "harpoon",
		"café", "cafe", "CAFÉ", "naïve", "the", "of", "and", "a", "storm", "stormy", "sail", "sailing", "sailed",
		"Ahab", "Ishmael", "Queequeg", "coffin", "1851", "3.14", "IL-6", "rock'n'roll", "Straße", "strasse"}
	for b := range books {
		var texts []string
		for range chunks {
			n := 5 + rng.Intn(60)
			words := make([]string, n)
			for i := range words {
				// Zipf-like: early words are common.
				words[i] = vocab[min(len(vocab)-1, int(rng.ExpFloat64()*6))]
			}
			texts = append(texts, strings.Join(words, " "))
		}
		storeChunks(t, w, fmt.Sprintf("book-%d", b), texts)
	}
	return vocab
}

// TestPostingsRankAsFTS5 compares the postings' ranking with bm25()'s on
// random queries: the same chunks, in the same order, with the same
// scores to the last few bits.
func TestPostingsRankAsFTS5(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	rng := rand.New(rand.NewSource(1))
	vocab := randomLibrary(t, w, rng, 12, 25)
	var lo, hi int64
	if err := w.db.QueryRow(`SELECT min(id), max(id) FROM chunk`).Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	weights := []FTSWeights{{Heading: 3, Context: 1, Text: 1}, {Heading: 1, Context: 1, Text: 1}, {Heading: 0.7, Context: 2.5, Text: 1.3}}
	for i := range 200 {
		words := make([]string, 1+rng.Intn(5))
		for j := range words {
			words[j] = vocab[rng.Intn(len(vocab))]
		}
		if i%7 == 0 {
			words = append(words, "absentword")
		}
		match := orExprForTest(words)
		wt := weights[i%len(weights)]
		a, b := lo, hi
		var allowed func(int64) bool
		if i%5 == 0 { // one book, as a filter gives
			a, b = lo+25, lo+49
			var book int64
			if err := w.db.QueryRow(`SELECT book_id FROM chunk WHERE id = ?`, a).Scan(&book); err != nil {
				t.Fatal(err)
			}
			allowed = func(id int64) bool { return id == book }
		}
		want, err := w.rankFTSRange(ctx, match, wt, a, b, 30)
		if err != nil {
			t.Fatal(err)
		}
		if _, single := fulltext.WordTerms(words); !single {
			continue // a phrase is left to FTS5
		}
		got, ok := rankFromPostings(t, &w.DB, words, wt, allowed, 30)
		if !ok {
			t.Fatalf("%s: the postings did not answer", match)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d hits, FTS5 %d", match, len(got), len(want))
		}
		for k := range want {
			// The logarithm is Go's, not SQLite's, and a column's
			// weight is multiplied, not added once per occurrence: the
			// scores may differ in their last bits.
			if got[k].ChunkID != want[k].ChunkID || math.Abs(got[k].Score-want[k].Score) > 1e-12*math.Abs(want[k].Score) {
				t.Fatalf("%s, weights %v: hit %d is chunk %d scored %v; FTS5: chunk %d scored %v", match, wt, k, got[k].ChunkID, got[k].Score, want[k].ChunkID, want[k].Score)
			}
		}
	}
}

// rankFromPostings ranks words as a search does, from the postings, over
// the chunks of allowed books (nil: all); ok is false when the postings
// cannot answer (some ready book has none, or a word is several tokens).
func rankFromPostings(t *testing.T, d *DB, words []string, w FTSWeights, allowed func(int64) bool, want int) ([]FTSHit, bool) {
	t.Helper()
	ctx := context.Background()
	lib, err := d.ReadLibrary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	terms, single := fulltext.WordTerms(words)
	if !single || !lib.Postings {
		return nil, false
	}
	lists, err := d.Terms(ctx, lib, TermsQuery{Terms: terms, ListsUpTo: math.MaxInt64})
	if err != nil {
		t.Fatal(err)
	}
	if lists.Snapshot.Key != lib.Key {
		t.Fatalf("the library changed between two reads: %q, then %q", lib.Key, lists.Snapshot.Key)
	}
	hits, err := lists.Rank(lib.Corpus(), terms, w, allowed, want)
	if err != nil {
		t.Fatal(err)
	}
	return hits, true
}

func orExprForTest(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
	}
	return strings.Join(q, " OR ")
}

// TestPostingsFollowTheBooks: postings go with their book, are dropped
// when its chunks change, and WritePostings writes what is missing; while
// a ready book has none, searches are FTS5's.
func TestPostingsFollowTheBooks(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	a := storeChunks(t, w, "alpha", []string{"the white whale", "a white sail"})
	b := storeChunks(t, w, "beta", []string{"white noise"})
	count := func() (books, rows int) {
		w.db.QueryRow(`SELECT (SELECT count(*) FROM fts_book), (SELECT count(*) FROM fts_posting)`).Scan(&books, &rows)
		return
	}
	// alpha, part, 0, 1, the, white, whale, a, sail; beta, part, 0,
	// white, nois.
	if books, rows := count(); books != 2 || rows != 14 {
		t.Fatalf("after two books: %d books, %d rows of postings; want 2, 14", books, rows)
	}
	search := func() []FTSHit {
		t.Helper()
		hits, err := w.SearchFTS(ctx, `"white"`, BookFilter{}, FTSWeights{Heading: 3, Context: 1, Text: 1}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	if hits := search(); len(hits) != 3 {
		t.Fatalf("white: %+v", hits)
	}
	// A changed chunk drops its book's postings; FTS5 answers meanwhile.
	setContext(t, w, a.ID, "changed")
	if books, _ := count(); books != 1 {
		t.Fatalf("after a change: %d books with postings, want 1", books)
	}
	if _, ok := rankFromPostings(t, &w.DB, []string{"white"}, FTSWeights{Heading: 3, Context: 1, Text: 1}, nil, 10); ok {
		t.Error("postings answered while a ready book has none")
	}
	if hits := search(); len(hits) != 3 {
		t.Fatalf("white, from FTS5: %+v", hits)
	}
	if n, err := w.WritePostings(ctx); err != nil || n != 1 {
		t.Fatalf("WritePostings: %d, %v", n, err)
	}
	if _, ok := rankFromPostings(t, &w.DB, []string{"white"}, FTSWeights{Heading: 3, Context: 1, Text: 1}, nil, 10); !ok {
		t.Error("postings written again, and still not used")
	}
	// A deleted book takes its postings along.
	if _, err := w.DeleteBook(ctx, b.Slug); err != nil {
		t.Fatal(err)
	}
	// alpha's, with "chang" from its changed context.
	if books, rows := count(); books != 1 || rows != 10 {
		t.Fatalf("after a delete: %d books, %d rows; want 1, 10", books, rows)
	}
	if hits := search(); len(hits) != 2 {
		t.Fatalf("white after the delete: %+v", hits)
	}
	if err := w.Check(ctx); err != nil {
		t.Fatal(err)
	}
	// A stray row is found, and a rebuild of the full-text index mends it.
	if _, err := w.db.Exec(`INSERT INTO fts_posting(shard, term, book_id, n, data) VALUES (?, 'stray', ?, 1, x'01')`, shardOf(a.ID), a.ID); err != nil {
		t.Fatal(err)
	}
	if err := w.Check(ctx); err == nil || !strings.Contains(err.Error(), "postings") {
		t.Errorf("a stray row of postings: check says %v", err)
	}
	if err := w.RebuildFTS(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Check(ctx); err != nil {
		t.Errorf("after RebuildFTS: %v", err)
	}
	if hits := search(); len(hits) != 2 {
		t.Fatalf("white after RebuildFTS: %+v", hits)
	}
}

// BenchmarkWritePostings writes the postings of War and Peace (from the
// corpus), in passages of about 1,600 characters.
func BenchmarkWritePostings(b *testing.B) {
	dir, ok := testcorpus.Find()
	if !ok {
		b.Skip("no corpus")
	}
	text, err := os.ReadFile(filepath.Join(dir, "books/text/2600-0.txt"))
	if err != nil {
		b.Skip(err)
	}
	var texts []string
	for s := string(text); len(s) > 0; {
		n := min(len(s), 1600)
		texts = append(texts, strings.ToValidUTF8(s[:n], ""))
		s = s[n:]
	}
	t := &testing.T{}
	w, err := OpenWriter(context.Background(), filepath.Join(b.TempDir(), "g.db"), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	book := storeChunks(t, w, "war and peace", texts)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for range b.N {
		err := w.Update(context.Background(), func(tx *Tx) error {
			if err := tx.writePostings(context.Background(), book.ID); err != nil {
				return err
			}
			return errRollback
		})
		if err != errRollback {
			b.Fatal(err)
		}
	}
}

var errRollback = fmt.Errorf("rolled back")

// TestPostingsAfterMigration: an index made before postings answers from
// FTS5 until WritePostings has written those of its ready books, then from
// the postings, with the same hits.
func TestPostingsAfterMigration(t *testing.T) {
	ctx := context.Background()
	before := slices.IndexFunc(migrations, func(m string) bool { return strings.Contains(m, "CREATE TABLE fts_posting") })
	path := filepath.Join(t.TempDir(), "g.db")
	w := olderIndex(t, path, before,
		`INSERT INTO book(id, hash, slug, title, source_type, status, added_at) VALUES (1, '`+library.SumBytes([]byte("moby")).String()+`', 'moby', 'Moby', 'text', 'ready', 0)`,
		`INSERT INTO chunk(book_id, idx, chapter_idx, section_idx, heading, text, state) VALUES
			(1, 0, 0, 0, 'Moby › Loomings', 'Call me Ishmael; the whale, the white whale', 'embedded'),
			(1, 1, 0, 1, 'Moby › The Carpet-Bag', 'a whaling voyage out of New Bedford', 'embedded'),
			(1, 2, 0, 2, 'Moby › The Spouter-Inn', 'no whale here, a harpooneer and a bed', 'embedded')`,
	)
	weights := FTSWeights{Heading: 3, Context: 1, Text: 1}
	words := []string{"whale", "harpooneer"}
	match := orExprForTest(words)
	if _, ok := rankFromPostings(t, &w.DB, words, weights, nil, 10); ok {
		t.Fatal("postings answered before they were written")
	}
	want, err := w.SearchFTS(ctx, match, BookFilter{}, weights, 10)
	if err != nil || len(want) != 3 { // "whaling" is "whale" too
		t.Fatalf("from FTS5: %+v, %v", want, err)
	}
	if n, err := w.WritePostings(ctx); n != 1 || err != nil {
		t.Fatalf("WritePostings: %d, %v", n, err)
	}
	got, ok := rankFromPostings(t, &w.DB, words, weights, nil, 10)
	if !ok {
		t.Fatal("postings written, and not used")
	}
	if len(got) != len(want) {
		t.Fatalf("from the postings: %+v; FTS5 gave %+v", got, want)
	}
	for i := range want {
		if got[i].ChunkID != want[i].ChunkID || math.Abs(got[i].Score-want[i].Score) > 1e-12*math.Abs(want[i].Score) {
			t.Errorf("from the postings: %+v; FTS5 gave %+v", got, want)
		}
	}
}

// TestBookTextIndexedAsOneSegment: a book's chunks go into FTS5 together,
// as one segment, rather than a segment per chunk merged again and again,
// and every chunk is found by its words.
func TestBookTextIndexedAsOneSegment(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	var texts []string
	for i := range 300 {
		texts = append(texts, fmt.Sprintf("the capybara number%d walks to the river", i))
	}
	storeChunks(t, w, "Capybaras", texts)
	var segments int
	if err := w.db.QueryRowContext(ctx, `SELECT count(DISTINCT segid) FROM chunk_fts_idx`).Scan(&segments); err != nil {
		t.Fatal(err)
	}
	if segments != 1 {
		t.Errorf("the book's text is in %d segments, want 1", segments)
	}
	for _, i := range []int{0, 150, 299} {
		var n int
		if err := w.db.QueryRowContext(ctx, `SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH ?`, fmt.Sprint("number", i)).Scan(&n); err != nil || n != 1 {
			t.Errorf("number%d: %d chunks hold it (%v), want 1", i, n, err)
		}
	}
	if err := w.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// Postings of a book that is not ready are damage: the health check names
// the book and its state.
func TestStrayPostingsAreNamedAndDropped(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	storeChunks(t, w, "alpha", []string{"the white whale"})
	if err := w.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.db.Exec(`INSERT INTO fts_book(book_id, terms) VALUES (999, '[]')`); err != nil {
		t.Fatal(err)
	}
	if err := w.Check(ctx); err == nil || !strings.Contains(err.Error(), "book 999 (deleted)") {
		t.Errorf("Check with the postings of a deleted book: %v", err)
	}
	wt := FTSWeights{Heading: 3, Context: 1, Text: 1}
	if _, ok := rankFromPostings(t, &w.DB, []string{"whale"}, wt, nil, 10); ok {
		t.Error("postings answer while they are not the ready books'")
	}
	// The next ingest run drops them.
	if _, err := w.WritePostings(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Check(ctx); err != nil {
		t.Error(err)
	}
	if _, ok := rankFromPostings(t, &w.DB, []string{"whale"}, wt, nil, 10); !ok {
		t.Error("postings do not answer once the stray ones are dropped")
	}
}

// A book pruned while it is ingested (its file edited or removed) cannot be
// finished: finishing it would leave postings that nothing drops.
func TestFinishBookPrunedMeanwhile(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	h, _ := put(t, w, "/lib/a.txt", "a book", library.Hash{})
	books, err := w.queryBooks(ctx, `WHERE b.hash = ?`, h)
	if err != nil || len(books) != 1 {
		t.Fatalf("book: %v %v", books, err)
	}
	id := books[0].ID
	ch := []library.Chapter{{Index: 0, Title: "One", Sections: []library.Section{{Index: 0, Title: "One", Text: "the white whale", ChunkCount: 1}}}}
	k := []library.Chunk{{Index: 0, Heading: "a › One", Text: "the white whale", State: library.ChunkContextualized}}
	if err := w.StoreParsed(ctx, id, BookMeta{Title: "a", SourceType: "text"}, ch, k); err != nil {
		t.Fatal(err)
	}
	if n := remove(t, w, "/lib/a.txt"); n != 1 {
		t.Fatalf("pruned %d books, want 1", n)
	}
	_, err = w.FinishBook(ctx, id)
	if !errors.Is(err, fault.ErrNotFound) {
		t.Errorf("FinishBook of a pruned book: %v, want not found", err)
	}
	if err := w.Check(ctx); err != nil {
		t.Error(err)
	}
}
