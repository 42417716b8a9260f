package fulltext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/internal/testcorpus"
)

// TestTermOfMatchesFTS5 holds Term to FTS5's own tokenizer on every
// distinct token of awkward text and, where it is present, of the corpus's
// books.
func TestTermOfMatchesFTS5(t *testing.T) {
	texts := tokenCases
	if dir, ok := testcorpus.Find(); ok {
		for _, sub := range []string{"books/text", "books/markdown"} {
			filepath.WalkDir(filepath.Join(dir, sub), func(p string, e os.DirEntry, err error) error {
				if err == nil && !e.IsDir() {
					if b, err := os.ReadFile(p); err == nil {
						texts = append(texts, strings.ToValidUTF8(string(b), ""))
					}
				}
				return nil
			})
		}
	}
	seen := make(map[string]bool)
	var tokens []string
	for _, text := range texts {
		EachToken(text, func(tok string) {
			if !seen[tok] {
				seen[tok] = true
				tokens = append(tokens, tok)
			}
		})
	}
	tokens = append(tokens, porterCases...)
	want := ftsStems(t, tokens)
	bad := 0
	for _, tok := range tokens {
		if got := Term(tok); got != want[tok] {
			if bad++; bad <= 20 {
				t.Errorf("%q: %q, FTS5 %q", tok, got, want[tok])
			}
		}
	}
	t.Logf("%d tokens, %d differ", len(tokens), bad)
}

// porterCases reach every rule of the algorithm.
var porterCases = []string{
	"caresses", "ponies", "ties", "caress", "cats", "feed", "agreed", "plastered", "bled",
	"motoring", "sing", "conflated", "troubled", "sized", "hopping", "tanned", "falling",
	"hissing", "fizzed", "failing", "filing", "happy", "sky", "relational", "conditional",
	"rational", "valenci", "hesitanci", "digitizer", "conformabli", "radicalli",
	"differentli", "vileli", "analogousli", "vietnamization", "predication", "operator",
	"feudalism", "decisiveness", "hopefulness", "callousness", "formaliti", "sensitiviti",
	"sensibiliti", "triplicate", "formative", "formalize", "electriciti", "electrical",
	"hopeful", "goodness", "revival", "allowance", "inference", "airliner", "gyroscopic",
	"adjustable", "defensible", "irritant", "replacement", "adjustment", "dependent",
	"adoption", "homologou", "communism", "activate", "angulariti", "homologous",
	"effective", "bowdlerize", "probate", "rate", "cease", "controll", "roll", "aed",
	"yyy", "yes", "eyed", "ied", "ing", "ying", "archaeology", "blies", "sses",
}

func FuzzTermOf(f *testing.F) {
	for _, c := range porterCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		EachToken(s, func(tok string) {
			want := ftsStems(t, []string{tok})
			if got := Term(tok); got != want[tok] {
				t.Errorf("%q: %q, FTS5 %q", tok, got, want[tok])
			}
		})
	})
}
