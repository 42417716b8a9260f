package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/model/embed"
)

// TestRunTellsEachBookAndItsStages checks what a run tells as it goes:
// each book that is ready or failed, once, with the slug and chunks the
// index holds, an edited file's new version as replacing the old, and
// the stages of the book in work with a measure that only grows.
func TestRunTellsEachBookAndItsStages(t *testing.T) {
	l := newTestLibrary(t)
	l.write("small.md", []byte("# Small Book\n\nThe aardvark digs.\n"))
	var big strings.Builder
	big.WriteString("# Big Book\n\n")
	for i := range 400 {
		fmt.Fprintf(&big, "## Part %d\n\nParagraph %d tells of the capybara and the quokka at some length, so that there is plenty to chunk.\n\n", i, i)
	}
	l.write("big.md", []byte(big.String()))
	l.write("broken.pdf", []byte("not a PDF at all"))
	l.reconcile()

	var told []string
	var stages []Stage
	var last Progress
	grew := true
	opts := Options{
		Embedder: embed.NewBuiltin(),
		Finished: func(o Outcome) {
			switch {
			case len(o.Failures) > 0:
				told = append(told, "failed "+filepath.Base(o.Failures[0].Path))
			case o.Replaced:
				told = append(told, fmt.Sprintf("updated %s %s %d", o.Book.Title, o.Book.Slug, o.Book.Chunks))
			default:
				told = append(told, fmt.Sprintf("added %s %s %d", o.Book.Title, o.Book.Slug, o.Book.Chunks))
			}
		},
		Progress: func(p Progress) {
			if len(stages) == 0 || stages[len(stages)-1] != p.Stage {
				stages = append(stages, p.Stage)
			}
			if p.BytesDone < last.BytesDone || p.BytesDone > p.BytesTotal {
				grew = false
			}
			last = p
		},
	}
	if _, err := Run(context.Background(), l.w, opts); err != nil {
		t.Fatal(err)
	}
	chunks := map[string]int{}
	for _, b := range l.books() {
		chunks[b.Slug] = b.Chunks
	}
	if chunks["big-book"] <= 32 {
		t.Fatalf("the big book has %d chunks: too few to be embedded batch by batch", chunks["big-book"])
	}
	want := []string{
		fmt.Sprintf("added Big Book big-book %d", chunks["big-book"]),
		fmt.Sprintf("added Small Book small-book %d", chunks["small-book"]),
		"failed broken.pdf",
	}
	slices.Sort(told)
	if !slices.Equal(told, want) {
		t.Errorf("told %q, want %q", told, want)
	}
	if !grew || last.Stage != StageStatistics || last.BytesDone != last.BytesTotal || last.BooksDone != 3 {
		t.Errorf("progress did not grow to the end: grew %v, last %+v", grew, last)
	}
	for _, s := range []Stage{StageParsing, StageEmbedding} {
		if !strings.Contains(fmt.Sprint(stages), string(s)) {
			t.Errorf("stages %v lack %s", stages, s)
		}
	}

	t.Run("an edited file's new version replaces the old", func(t *testing.T) {
		l.write("small.md", []byte("# Small Book\n\nThe pangolin rolls into a ball.\n"))
		l.reconcile()
		told = nil
		if _, err := Run(context.Background(), l.w, opts); err != nil {
			t.Fatal(err)
		}
		if want := []string{"updated Small Book small-book 1"}; fmt.Sprint(told) != fmt.Sprint(want) {
			t.Errorf("told %q, want %q", told, want)
		}
	})
}

// TestBookRemovedWhileEmbeddedIsLeftOut removes a book's file once its
// last vectors are stored, before it is made ready, as a watcher's
// reconcile does while ingest runs: the run goes on without it, counts
// it as neither ingested nor failed, and leaves the index consistent.
func TestBookRemovedWhileEmbeddedIsLeftOut(t *testing.T) {
	l := newTestLibrary(t)
	path := l.write("big.md", bigBook())
	l.write("small.md", []byte("# Small Book\n\nThe aardvark digs.\n"))
	l.reconcile()
	removed := false
	opts := Options{
		Embedder: embed.NewBuiltin(),
		Progress: func(p Progress) {
			if removed || p.Stage != StageEmbedding || p.ChunksTotal == 0 || p.ChunksDone < p.ChunksTotal {
				return
			}
			removed = true
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			l.reconcile()
		},
	}
	res, err := Run(context.Background(), l.w, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !removed {
		t.Fatal("the big book's embedding never finished")
	}
	if res.Ingested != 1 || res.Failed != 0 {
		t.Errorf("ingested %d, failed %d; want the small book alone", res.Ingested, res.Failed)
	}
	if books := l.books(); len(books) != 1 || books[0].Title != "Small Book" {
		t.Errorf("books: %+v", books)
	}
	if err := l.w.Check(context.Background()); err != nil {
		t.Error(err)
	}
}
