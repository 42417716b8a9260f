package retrieve

import (
	"context"
	"slices"
	"testing"

	"github.com/grimoire-search/grimoire/index"
)

func TestLendToFollowers(t *testing.T) {
	hit := func(id, book int64) index.FTSHit { return index.FTSHit{ChunkID: id, BookID: book} }
	tests := []struct {
		name  string
		hits  []index.FTSHit
		score []float64
		want  []float64
	}{
		{
			name:  "the next passage and the one after take their shares",
			hits:  []index.FTSHit{hit(10, 1), hit(40, 2), hit(11, 1), hit(12, 1)},
			score: []float64{1, 0.9, 0.1, 0.2},
			want:  []float64{1, 0.9, followShare, followShare * followDecay},
		},
		{
			name:  "a passage that scores better keeps its own score",
			hits:  []index.FTSHit{hit(10, 1), hit(11, 1)},
			score: []float64{1, 0.95},
			want:  []float64{1, 0.95},
		},
		{
			name:  "another book's passage takes nothing",
			hits:  []index.FTSHit{hit(10, 1), hit(11, 2)},
			score: []float64{1, 0.1},
			want:  []float64{1, 0.1},
		},
		{
			name:  "passages before a hit take nothing",
			hits:  []index.FTSHit{hit(10, 1), hit(9, 1)},
			score: []float64{1, 0.1},
			want:  []float64{1, 0.1},
		},
		{
			name:  "only the first candidates lend",
			hits:  []index.FTSHit{hit(10, 1), hit(20, 1), hit(30, 1), hit(40, 1), hit(41, 1)},
			score: []float64{1, 1, 1, 0.9, 0.1},
			want:  []float64{1, 1, 1, 0.9, 0.1},
		},
		{
			name:  "a lender's share is of its own score, not one it was lent",
			hits:  []index.FTSHit{hit(10, 1), hit(11, 1), hit(12, 1), hit(13, 1)},
			score: []float64{1, 0.1, 0.1, 0.05},
			want:  []float64{1, followShare, followShare * followDecay, followShare * 0.1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Clone(tc.score)
			lendToFollowers(tc.hits, got)
			for i := range got {
				if d := got[i] - tc.want[i]; d > 1e-9 || d < -1e-9 {
					t.Fatalf("scores %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestSearchFindsThePassageAfterTheScene(t *testing.T) {
	v := unit(0, 0, 0, 1)
	lib := []book{
		{"Voyage", "", "text", []string{
			"The whale rammed the ship at night and the ship sank.",
			"Everyone drowned but me; days later a passing vessel picked me up.",
			"So I came home to tell the tale.",
			"Years went by on land.",
		}, [][]float32{v, v, v, v}, nil},
		{"Harbour", "", "text", []string{
			"Fishermen mend their nets.",
			"A whale was seen near the harbour.",
		}, [][]float32{v, v}, nil},
		{"Port", "", "text", []string{
			"Sailors rest in port.",
			"The cook bakes bread.",
		}, [][]float32{v, v}, nil},
		{"Garden", "", "text", []string{
			"Roses bloom in June.", "Tulips come in spring.", "Weeds grow everywhere.",
			"Bees visit the flowers.", "The gardener digs.", "Rain waters the beds.",
		}, [][]float32{v, v, v, v, v, v}, nil},
	}
	w := newIndex(t, lib)
	// Without an embedder no vector arm adds every passage to the hits:
	// they are full text's candidates, reranked, and their followers.
	s := New(&w.DB, nil, Options{Fusion: Rerank, FTSWeight: 1})
	rank := func(hits []Hit, text string) int {
		for i, h := range hits {
			if h.Text == text {
				return i + 1
			}
		}
		return 0
	}
	tests := []struct {
		name    string
		mode    string
		passage string
		found   bool
	}{
		{"the passage after the scene is found", Hybrid, lib[0].chunks[1], true},
		{"and the one after it", Hybrid, lib[0].chunks[2], true},
		{"but not the third", Hybrid, lib[0].chunks[3], false},
		{"nor, after a book's last passage, the next book's first", Hybrid, lib[2].chunks[0], false},
		{"full text alone finds only what matches", FTS, lib[0].chunks[1], false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := s.Search(context.Background(), Query{Text: "whale ship", Mode: tc.mode})
			if err != nil {
				t.Fatal(err)
			}
			r := rank(hits, tc.passage)
			if (r > 0) != tc.found {
				t.Fatalf("rank %d of %d hits, want found %v", r, len(hits), tc.found)
			}
			if r > 0 && r <= rank(hits, lib[0].chunks[0]) {
				t.Errorf("the follower (rank %d) passed the passage it follows", r)
			}
		})
	}
}
