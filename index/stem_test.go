package index

import (
	"context"
	"testing"
)

func TestStemsAreTheIndexTerms(t *testing.T) {
	ctx := context.Background()
	w := mustOpenWriter(t)
	words := []string{"Prisoners", "remembered", "Château", "running", "the", "…", "Pierre"}
	for round := range 2 { // the second round is served from the cache
		got, err := w.Stems(ctx, words)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"Prisoners": "prison", "remembered": "rememb", "Château": "chateau", "running": "run", "the": "the", "Pierre": "pierr"}
		if len(got) != len(want) {
			t.Errorf("round %d: %v, want %v", round, got, want)
		}
		for w, s := range want {
			if got[w] != s {
				t.Errorf("round %d: stem of %q = %q, want %q", round, w, got[w], s)
			}
		}
	}
	// A stem is what the index counts.
	h, _ := put(t, w, "/lib/a.txt", "a", Hash{})
	ingestFake(t, w, h, "Camp", "The prisoners remembered the camp.")
	s, _ := w.Stems(ctx, []string{"prisoners", "remembered"})
	docs, err := w.TermDocs(ctx, []string{s["prisoners"], s["remembered"]})
	if err != nil || docs["prison"] != 1 || docs["rememb"] != 1 {
		t.Errorf("term docs of the stems: %v %v", docs, err)
	}
}
