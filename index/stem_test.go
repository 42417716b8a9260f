package index

import (
	"context"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/index/fulltext"
	"github.com/grimoire-search/grimoire/library"
)

func TestStemsAreTheIndexTerms(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	words := []string{"Prisoners", "remembered", "Château", "running", "the", "…", "Pierre"}
	got := fulltext.Stems(words)
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
	h, _ := put(t, w, "/lib/a.txt", "a", library.Hash{})
	ingestFake(t, w, h, "Camp", "The prisoners remembered the camp.")
	s := fulltext.Stems([]string{"prisoners", "remembered"})
	docs, err := w.TermDocs(ctx, []string{s["prisoners"], s["remembered"]})
	if err != nil || docs["prison"] != 1 || docs["rememb"] != 1 {
		t.Errorf("term docs of the stems: %v %v", docs, err)
	}
}

// TestIndexTokenizerIsFulltexts: the full-text table cuts text as package
// fulltext does, so that the postings and FTS5 hold the same terms.
func TestIndexTokenizerIsFulltexts(t *testing.T) {
	if !strings.Contains(migrations[0], "tokenize = '"+fulltext.Tokenizer+"'") {
		t.Errorf("chunk_fts is not made with fulltext.Tokenizer (%q)", fulltext.Tokenizer)
	}
}
