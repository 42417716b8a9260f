package index

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/library"
)

// TestCommonTermCountsStayFTS5s: the counts the writer keeps of the common
// terms are FTS5's own after every change to the chunks: added ones are
// added to them, removed or rewritten ones empty them until the writer
// counts again, and TermDocs counts in the meantime.
func TestCommonTermCountsStayFTS5s(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	words := []string{"the", "whales", "sea", "ship", "captain", "harpoon", "of", "white"}
	book := func(i int) library.Book {
		// "the" in every book, "whales" (the term "whale") in every
		// second one, the others in fewer.
		text := "the " + words[1+i%2*6] + " " + words[2+i%6] + fmt.Sprintf(" number%d", i)
		h, _ := put(t, w, fmt.Sprintf("/lib/b%02d.txt", i), text, library.Hash{})
		return ingestFake(t, w, h, fmt.Sprint("Book ", i), text)
	}
	var books []library.Book
	for i := range 12 {
		books = append(books, book(i))
	}
	terms := []string{"the", "whale", "sea", "ship", "captain", "harpoon", "white", "number3", "absent"}
	vocab := func() map[string]int {
		t.Helper()
		out := make(map[string]int)
		for _, term := range terms {
			var n int
			if err := w.db.QueryRowContext(ctx, `SELECT doc FROM chunk_vocab WHERE term = ?`, term).Scan(&n); err == nil {
				out[term] = n
			}
		}
		return out
	}
	held := func() map[string]int {
		t.Helper()
		out := make(map[string]int)
		if err := w.commonTermDocs(ctx, terms, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	check := func(when string, wantHeld bool) {
		t.Helper()
		got, err := w.TermDocs(ctx, terms)
		if err != nil {
			t.Fatal(err)
		}
		if want := vocab(); !maps.Equal(got, want) {
			t.Errorf("%s: TermDocs = %v, FTS5 counts %v", when, got, want)
		}
		h := held()
		if wantHeld != (len(h) > 0) {
			t.Errorf("%s: common_term holds %v", when, h)
		}
		for term, n := range h {
			if want := vocab()[term]; n != want {
				t.Errorf("%s: common_term says %q is in %d chunks, FTS5 %d", when, term, n, want)
			}
		}
		if err := w.Check(ctx); err != nil {
			t.Errorf("%s: %v", when, err)
		}
	}
	refresh := func() {
		t.Helper()
		if err := w.refreshCommonTerms(ctx, 0); err != nil {
			t.Fatal(err)
		}
	}

	check("before any count", false)
	refresh()
	check("counted", true)
	if h := held(); h["the"] == 0 || h["number3"] != 0 {
		t.Errorf("common_term holds %v, want the common terms (\"the\") and not the rare ones", h)
	}

	books = append(books, book(12))
	check("after a book was added", true)
	books = append(books, book(13))
	check("after another book was added", true)
	// A term counts once a chunk, whatever its case, accents and column.
	h, _ := put(t, w, "/lib/the.txt", "The the THÉ whales", library.Hash{})
	books = append(books, ingestFake(t, w, h, "The Book", "The the THÉ whales"))
	check("after a book that says the same term several times", true)

	remove(t, w, books[0].Paths[0])
	check("after a book was removed", false)
	refresh()
	check("counted again after a removal", true)

	setContext(t, w, books[1].ID, "the harpoon")
	check("after a chunk's context was written", false)
	refresh()
	check("counted again after a context", true)

	// A count that is not FTS5's is damage, which the health check finds.
	if _, err := w.exec(ctx, `UPDATE common_term SET docs = docs + 1 WHERE term = 'the'`); err != nil {
		t.Fatal(err)
	}
	if err := w.Check(ctx); err == nil || !strings.Contains(err.Error(), `"the"`) {
		t.Errorf("Check with a wrong count: %v", err)
	}
}

// TestCommonTermsWaitForALargeLibrary: a small library's terms cost little
// to count as searches ask, and are not counted ahead.
func TestCommonTermsWaitForALargeLibrary(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	h, _ := put(t, w, "/lib/a.txt", "the sea", library.Hash{})
	ingestFake(t, w, h, "A", "the sea")
	if err := w.RefreshCommonTerms(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, w, `SELECT count(*) FROM common_term`); n != 0 {
		t.Errorf("a library of one chunk has %d common terms counted", n)
	}
}

// TestCommonTermsChosenAgainAsTheLibraryGrows: a term that grows common
// after the terms were chosen is counted ahead too, once the library has
// grown by a tenth.
func TestCommonTermsChosenAgainAsTheLibraryGrows(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	add := func(i int, text string) {
		h, _ := put(t, w, fmt.Sprintf("/lib/b%02d.txt", i), text, library.Hash{})
		ingestFake(t, w, h, fmt.Sprint("Book ", i), text)
	}
	for i := range 20 {
		add(i, fmt.Sprintf("the sea number%d", i))
	}
	held := func() map[string]int {
		out := make(map[string]int)
		if err := w.commonTermDocs(ctx, []string{"the", "zebra"}, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if err := w.refreshCommonTerms(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if h := held(); h["the"] != 20 || h["zebra"] != 0 {
		t.Fatalf("counted first: %v", h)
	}
	add(20, "the zebra number20")
	if err := w.refreshCommonTerms(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if h := held(); h["the"] != 21 || h["zebra"] != 0 {
		t.Errorf("after a twentieth more: %v, want the terms kept and counted on", h)
	}
	for i := 21; i < 30; i++ {
		add(i, fmt.Sprintf("the zebra number%d", i))
	}
	if err := w.refreshCommonTerms(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if h := held(); h["the"] != 30 || h["zebra"] != 10 {
		t.Errorf("after half as many again: %v, want zebra chosen and counted", h)
	}
	if err := w.Check(ctx); err != nil {
		t.Fatal(err)
	}
}
