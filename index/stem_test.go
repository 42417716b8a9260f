package index

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

func TestStemsAreTheIndexTerms(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	words := []string{"Prisoners", "remembered", "Château", "running", "the", "…", "Pierre"}
	got := Stems(words)
	want := map[string]string{"Prisoners": "prison", "remembered": "rememb", "Château": "chateau", "running": "run", "the": "the", "Pierre": "pierr"}
	if len(got) != len(want) {
		t.Errorf("%v, want %v", got, want)
	}
	for w, s := range want {
		if got[w] != s {
			t.Errorf("stem of %q = %q, want %q", w, got[w], s)
		}
	}
	// A stem is what the index counts.
	h, _ := put(t, w, "/lib/a.txt", "a", Hash{})
	ingestFake(t, w, h, "Camp", "The prisoners remembered the camp.")
	s := Stems([]string{"prisoners", "remembered"})
	docs, err := w.TermDocs(ctx, []string{s["prisoners"], s["remembered"]})
	if err != nil || docs["prison"] != 1 || docs["rememb"] != 1 {
		t.Errorf("term docs of the stems: %v %v", docs, err)
	}
}

// TestStemsAsFTS5 holds Stems to FTS5's tokenizer on whole words and
// phrases: those it cuts into several tokens keep the first term, those
// it makes none of have none.
func TestStemsAsFTS5(t *testing.T) {
	var words []string
	for _, c := range tokenCases {
		words = append(words, strings.Fields(c)...)
	}
	words = append(words, tokenCases...)
	want := ftsStems(t, words)
	got := Stems(words)
	if len(got) != len(want) {
		t.Errorf("%d words with a term, FTS5 %d", len(got), len(want))
	}
	for _, w := range words {
		if got[w] != want[w] {
			t.Errorf("%q: %q, FTS5 %q", w, got[w], want[w])
		}
	}
}

// ftsStems returns the first term FTS5's tokenizer makes of each word, as
// Stems should, by running it over the words in a database in memory.
func ftsStems(t testing.TB, words []string) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one database in memory, not one per connection
	for _, q := range []string{
		`CREATE VIRTUAL TABLE words USING fts5(w, tokenize = '` + ftsTokenizer + `')`,
		`CREATE VIRTUAL TABLE word_terms USING fts5vocab(words, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for i, w := range words {
		if _, err := tx.Exec(`INSERT INTO words(rowid, w) VALUES (?, ?)`, i+1, w); err != nil {
			t.Fatal(err)
		}
	}
	first := make(map[int]string, len(words))
	err = readAll(context.Background(), tx, `SELECT doc, term FROM word_terms ORDER BY doc, offset`, func(r *sql.Rows) error {
		var doc int
		var term string
		if err := r.Scan(&doc, &term); err != nil {
			return err
		}
		if _, seen := first[doc]; !seen {
			first[doc] = term
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(words))
	for i, w := range words {
		if term, ok := first[i+1]; ok {
			out[w] = term
		}
	}
	return out
}
