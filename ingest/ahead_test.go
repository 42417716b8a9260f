package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/vec8"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model/embed"
)

// countingEmbedder is the built-in embedder that counts the texts it
// embeds, and fails the calls failFirst lists (1 is the first call).
type countingEmbedder struct {
	*embed.Builtin
	mu        sync.Mutex
	calls     int
	texts     map[string]int
	failFirst []int
}

func (e *countingEmbedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.calls++
	fail := slices.Contains(e.failFirst, e.calls)
	if !fail {
		for _, t := range texts {
			e.texts[t]++
		}
	}
	e.mu.Unlock()
	if fail {
		return nil, errors.New("the model server went away")
	}
	return e.Builtin.EmbedDocuments(ctx, texts)
}

func bigBook() []byte {
	var b strings.Builder
	b.WriteString("# A Long Book\n\n")
	for i := range 300 {
		fmt.Fprintf(&b, "## Part %d\n\nParagraph %d tells of the capybara and the quokka, who walk %d miles to the river.\n\n", i, i, i*7)
	}
	return []byte(b.String())
}

// TestLargeBookEmbeddedOnceEach checks that the vectors worked out while
// a large book is stored are the ones stored: each chunk is embedded once,
// and its vector is the one its text gets.
func TestLargeBookEmbeddedOnceEach(t *testing.T) {
	l := newTestLibrary(t)
	l.write("big.md", bigBook())
	l.reconcile()
	e := &countingEmbedder{Builtin: embed.NewBuiltin(), texts: map[string]int{}}
	if _, err := Run(context.Background(), l.w, Options{Embedder: e}); err != nil {
		t.Fatal(err)
	}
	checkEmbedded(t, l, e.Builtin)
	for text, n := range e.texts {
		if n != 1 {
			t.Errorf("embedded %d times: %.60q", n, text)
		}
	}
}

// TestEmbeddingAheadFailsQuietly checks that when the embedding worked out
// ahead fails (the model server refused it), the embedding stage embeds
// the book itself, and the book is ready.
func TestEmbeddingAheadFailsQuietly(t *testing.T) {
	l := newTestLibrary(t)
	l.write("big.md", bigBook())
	l.reconcile()
	// The first call is the first batch worked out ahead: the stage
	// waits for the work ahead to end before it embeds anything.
	e := &countingEmbedder{Builtin: embed.NewBuiltin(), texts: map[string]int{}, failFirst: []int{1}}
	if _, err := Run(context.Background(), l.w, Options{Embedder: e}); err != nil {
		t.Fatal(err)
	}
	checkEmbedded(t, l, e.Builtin)
}

// checkEmbedded checks that the library's one book is ready with more
// chunks than one embedding batch, each stored with its text's vector.
func checkEmbedded(t *testing.T, l *testLibrary, e embed.Embedder) {
	t.Helper()
	ctx := context.Background()
	books := l.books()
	if len(books) != 1 || books[0].Status != library.Ready || books[0].Chunks <= 32 {
		t.Fatalf("books: %+v", books)
	}
	chunks, err := l.w.ChunkRange(ctx, books[0].ID, 0, books[0].Chunks)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(chunks))
	texts := make([]string, len(chunks))
	for i, k := range chunks {
		ids[i], texts[i] = k.ID, EmbeddingText(k)
	}
	hits, err := l.w.HitsOf(ctx, ids, true)
	if err != nil {
		t.Fatal(err)
	}
	stored := make(map[int64]index.Hit, len(hits))
	for _, h := range hits {
		stored[h.ID] = h
	}
	want, err := e.EmbedDocuments(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		// Stored at the precision search scans at.
		if !slices.Equal(stored[id].Vec, vec8.Floats(vec8.Append(nil, want[i]))) {
			t.Fatalf("chunk %d: stored vector is not its text's", chunks[i].Index)
		}
	}
}

// TestEditedBookEmbedsOnlyWhatChanged: a book whose file changes (a
// Zotero item whose highlight was added, a note edited) is laid out anew,
// and only its passages that changed are embedded again; the others carry
// the vectors the previous content had, which are their texts' own.
func TestEditedBookEmbedsOnlyWhatChanged(t *testing.T) {
	l := newTestLibrary(t)
	book := bigBook()
	l.write("big.md", book)
	l.reconcile()
	e := &countingEmbedder{Builtin: embed.NewBuiltin(), texts: map[string]int{}}
	if _, err := Run(context.Background(), l.w, Options{Embedder: e}); err != nil {
		t.Fatal(err)
	}
	first := len(e.texts)
	edited := strings.Replace(string(book), "Paragraph 150 tells of the capybara", "Paragraph 150 tells of the wombat", 1)
	l.write("big.md", []byte(edited))
	l.reconcile()
	e.texts = map[string]int{}
	if _, err := Run(context.Background(), l.w, Options{Embedder: e}); err != nil {
		t.Fatal(err)
	}
	checkEmbedded(t, l, e.Builtin)
	var again []string
	for text := range e.texts {
		again = append(again, text)
	}
	if len(again) == 0 || len(again) > 2 {
		t.Fatalf("after one paragraph of %d passages changed, %d were embedded again: %.80q…", first, len(again), again[:min(3, len(again))])
	}
	if !strings.Contains(strings.Join(again, " "), "wombat") {
		t.Errorf("the changed passage was not embedded again: %.80q", again)
	}
}
