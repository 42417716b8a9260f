package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/model/embed"
	"github.com/grimoire-search/grimoire/reconcile"
	"github.com/grimoire-search/grimoire/retrieve"
)

// maxSearchStatements bounds the SQL statements of one search, whatever
// it asks and however large the library: the index answers a search in a
// handful of questions, not one per word or per candidate.
const maxSearchStatements = 6

// editions is how many editions of one book the library holds: each of
// their passages is a candidate that many times.
const editions = 12

// TestSearchStatements counts the statements a server's search runs, once
// its vectors are loaded and its statistics read, on a library with
// several editions of one book, tables of contents and a name no book
// holds.
func TestSearchStatements(t *testing.T) {
	ctx := context.Background()
	lib := t.TempDir()
	voyage := statementsBook("The Voyage", 40)
	books := map[string]string{"garden.txt": statementsBook("The Garden", 30)}
	for i := range editions {
		books[fmt.Sprintf("voyage-%d.txt", i)] = fmt.Sprintf("Edition %d.\n\n", i+1) + voyage
	}
	for name, text := range books {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "g.db")
	w, err := index.OpenWriter(ctx, path, "test")
	if err != nil {
		t.Fatal(err)
	}
	emb := embed.NewBuiltin()
	if _, err := reconcile.Run(ctx, w, reconcile.Options{Roots: []string{lib}, Formats: ingest.Formats()}); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(ctx, w, ingest.Options{Embedder: emb}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r, log, err := index.OpenLoggingReader(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	queries := []retrieve.Query{
		{Text: "how the lanterns of the harbour were lit", Limit: 10},
		{Text: "the captain's lantern", Phrasings: []string{"lantern of the captain", "captain lamp ship"}, Limit: 5},
		{Text: "what did Ophelia say to the gardener", Limit: 10},
		{Text: "the whale and the moon", Limit: 10},
		{Text: "harbor lanturns", Limit: 10},
		{Text: "roses in the garden", Book: "the-garden", Limit: 3},
		{Text: "the of and", Limit: 10},
		{Text: "lantern", Limit: 50},
	}
	// As the product settles them for the built-in embedder; and as for
	// a model's vectors, where both arms always run, fused by rank.
	for name, opts := range map[string]retrieve.Options{"built-in": retrieve.ConfigDefaults(), "model": retrieve.DefaultOptions()} {
		opts.SourceTypes = ingest.Formats().Types()
		s, err := retrieve.Open(ctx, &r.DB, opts, func(context.Context) (embed.Embedder, error) { return emb, nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
		// A server loads its vectors as it starts, and reads the
		// library's state at its first search.
		if err := s.Prepare(ctx); err != nil {
			t.Fatal(err)
		}
		l := &retrieve.Library{DB: &r.DB, Searcher: s}
		if _, err := l.Search(ctx, retrieve.Query{Text: "warm up the harbour", Limit: 10}); err != nil {
			t.Fatal(err)
		}
		log.Take()
		for _, q := range queries {
			if _, err := l.Search(ctx, q); err != nil {
				t.Fatalf("%s: %q: %v", name, q.Text, err)
			}
			if stmts := log.Take(); len(stmts) > maxSearchStatements {
				t.Errorf("%s: %q ran %d statements, want at most %d:\n%s", name, q.Text, len(stmts), maxSearchStatements, strings.Join(stmts, "\n"))
			}
		}
	}
}

// statementsBook writes a book of chapters whose paragraphs share words
// across chapters, with a table of contents before them.
func statementsBook(title string, chapters int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nContents\n\n", title)
	for i := 1; i <= chapters; i++ {
		fmt.Fprintf(&b, "Chapter %d. The %s ........ %d\n", i, topics[i%len(topics)], i*7)
	}
	for i := 1; i <= chapters; i++ {
		fmt.Fprintf(&b, "\n\nCHAPTER %d. The %s\n\n", i, topics[i%len(topics)])
		for p := range 6 {
			fmt.Fprintf(&b, "The %s of chapter %d, paragraph %d: the captain lit the %s by the harbour while the crew mended the %s and the gardener planted %s in rows beside the %s.\n\n",
				topics[(i+p)%len(topics)], i, p, topics[(i*3+p)%len(topics)], topics[(i+2*p)%len(topics)], topics[(i*5+p)%len(topics)], topics[(i+p*7)%len(topics)])
		}
	}
	return b.String()
}

var topics = []string{"lantern", "rope", "sail", "rose", "tulip", "anchor", "compass", "lighthouse", "mast", "hedge", "orchard", "tide", "whale", "gull", "barrel", "ledger"}
