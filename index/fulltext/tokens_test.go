package fulltext

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testcorpus"
	_ "modernc.org/sqlite"
)

// TestTokenCharsMatchFTS5 asks FTS5's tokenizer again which code points
// it keeps in tokens, and compares with the table gentokens wrote.
func TestTokenCharsMatchFTS5(t *testing.T) {
	last := rune(0x10FFFF)
	if testing.Short() {
		last = 0xFFFF
	}
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := ProbeTokenChars(context.Background(), db, last)
	if err != nil {
		t.Fatal(err)
	}
	want := tokenChars
	if last < 0x10FFFF {
		want = nil
		for _, r := range tokenChars {
			if r[0] <= last {
				want = append(want, [2]rune{r[0], min(r[1], last)})
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("FTS5's token characters differ from tokenchars.go (%d ranges against %d): run go run ./index/internal/gentokens > index/fulltext/tokenchars.go", len(got), len(want))
	}
	if testing.Short() {
		return
	}
	folds, err := ProbeFolding(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(folds, tokenFolds) {
		t.Fatalf("FTS5's folding differs from tokenchars.go (%d changes against %d): run go run ./index/internal/gentokens > index/fulltext/tokenchars.go", len(folds), len(tokenFolds))
	}
}

// tokenCase is text in the scripts, marks and punctuation a library holds.
var tokenCases = []string{
	"Hello, world! It's 3.14 — or “so” they say…",
	"Élan, naïve café: crème brûlée, Ærøskøbing, Straße, İstanbul",
	"e\u0301te\u0301 (combining accents), ﬁne ligatures, ＦＵＬＬＷＩＤＴＨ",
	"Ѐто русский текст; ελληνικά; עברית; العربية; हिन्दी; 日本語のテキスト; 한국어",
	"snake_case, kebab-case, CamelCase, x²+y², ½, ①, ⅷ, 🙂 emoji, \u200b zero width, tab\tand\nnewline",
	"C++ & C#; IL-6/IL-10; 10,000; 1e-6; v1.2.3; a.b.c; O'Brien; rock'n'roll",
	"",
}

// TestTokensMatchFTS5 checks that the tokens EachToken cuts are those
// FTS5's tokenizer counts: on text made to be awkward, and on the
// corpus's books where it is present.
func TestTokensMatchFTS5(t *testing.T) {
	texts := slices.Clone(tokenCases)
	if dir, ok := testcorpus.Find(); ok {
		for _, name := range []string{"books/text/2600-0.txt", "books/text/Candide.txt"} {
			if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				for len(b) > 0 && len(texts) < 400 {
					n := min(len(b), 3000)
					texts = append(texts, strings.ToValidUTF8(string(b[:n]), ""))
					b = b[n:]
				}
			}
		}
	}
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one database in memory, not one per connection
	if _, err := db.Exec(`CREATE VIRTUAL TABLE texts USING fts5(w, tokenize = '` + Tokenizer + `')`); err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if _, err := db.Exec(`INSERT INTO texts(rowid, w) VALUES (?, ?)`, i+1, text); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.Query(`SELECT id, sz FROM texts_docsize ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int
		var sz []byte
		if err := rows.Scan(&id, &sz); err != nil {
			t.Fatal(err)
		}
		want, _ := Varint(sz)
		got := 0
		EachToken(texts[id-1], func(string) { got++ })
		if uint64(got) != want {
			t.Errorf("%.60q: %d tokens, FTS5 counts %d", texts[id-1], got, want)
		}
		n++
	}
	if n != len(texts) {
		t.Fatalf("%d texts counted, want %d", n, len(texts))
	}
}
