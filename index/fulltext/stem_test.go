package fulltext

import (
	"database/sql"
	"strings"
	"testing"
)

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
		`CREATE VIRTUAL TABLE words USING fts5(w, tokenize = '` + Tokenizer + `')`,
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
	rows, err := tx.Query(`SELECT doc, term FROM word_terms ORDER BY doc, offset`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var doc int
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			t.Fatal(err)
		}
		if _, seen := first[doc]; !seen {
			first[doc] = term
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	out := make(map[string]string, len(words))
	for i, w := range words {
		if term, ok := first[i+1]; ok {
			out[w] = term
		}
	}
	return out
}
