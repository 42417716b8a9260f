package retrieve

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/grimoire-search/grimoire/index"
)

// The words left out of the full-text query for being common still score
// as FTS5 would have scored them: the candidates come back in the order,
// and with the scores, of BM25 over the whole question.
func TestCommonWordsScoreAsBM25Would(t *testing.T) {
	b := book{title: "Valley", typ: "markdown"}
	otters := map[int]bool{1: true, 4: true, 9: true, 12: true, 22: true, 32: true}
	for i := range 40 {
		// "river" (as "rivers" too) is in 15 of the 41 chunks, above the
		// share that leaves it out and below half, where BM25 would give
		// it no weight; "otter" is in six, and a chunk of its own.
		text := fmt.Sprintf("Chunk %d tells of the valley and its stones.", i)
		switch {
		case i%4 == 0:
			text += " The river runs on, and rivers meet the river below."
		case i%8 == 1:
			text += " A river."
		}
		if otters[i] {
			text += " An otter swims there."
		}
		b.chunks = append(b.chunks, text)
		b.vecs = append(b.vecs, unit(1, 0, 0, 0))
	}
	b.chunks = append(b.chunks, "Otter, otter: the otter of the valley, with no word of water.")
	b.vecs = append(b.vecs, unit(0, 1, 0, 0))
	w := newIndex(t, []book{b})
	ctx := context.Background()
	s := New(&w.DB, nil, Options{Mode: FTS})

	q, err := s.matchExpr(ctx, "otter river")
	if err != nil {
		t.Fatal(err)
	}
	if q.match != `"otter"` || len(q.common) != 1 {
		t.Fatalf("query %+v: want river left out as common", q)
	}
	st, err := s.state(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := request{phrasings: []string{"otter river"}, pool: 50, texts: &textCache{store: s.store, lib: st.lib}}
	arm, err := s.ftsArm(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	lists := [][]index.FTSHit{arm[0].hits}
	if err := s.topUpAll(ctx, r, arm, lists); err != nil {
		t.Fatal(err)
	}
	whole, err := w.DB.SearchFTS(ctx, orExpr([]string{"otter", "river"}), index.BookFilter{}, s.opts.Columns, 50)
	if err != nil {
		t.Fatal(err)
	}
	var want []index.FTSHit
	for _, h := range whole {
		if slices.ContainsFunc(lists[0], func(g index.FTSHit) bool { return g.ChunkID == h.ChunkID }) {
			want = append(want, h)
		}
	}
	got := lists[0]
	if len(got) != 7 || len(want) != len(got) {
		t.Fatalf("got %d candidates, want the 7 with otter: %+v", len(got), got)
	}
	for i := range got {
		if got[i].ChunkID != want[i].ChunkID || got[i].Rank != i+1 || math.Abs(got[i].Score-want[i].Score) > 1e-9*math.Abs(want[i].Score) {
			t.Errorf("hit %d: got chunk %d score %.12f rank %d, BM25 over the whole question gives chunk %d score %.12f",
				i, got[i].ChunkID, got[i].Score, got[i].Rank, want[i].ChunkID, want[i].Score)
		}
	}
}

func TestWordsBeginning(t *testing.T) {
	tests := []struct {
		text     string
		prefixes []string
		want     []string
	}{
		{"the river, rivers; a riverbank", []string{"rive"}, []string{"river", "rivers", "riverbank"}},
		{"arrive derive river", []string{"rive"}, []string{"river"}},
		{"happy happiness", []string{"happ", "ha"}, []string{"happy", "happiness"}},
		{"", []string{"a"}, nil},
		{"naïve naive", []string{"naiv"}, []string{"naive"}},
	}
	for _, tc := range tests {
		if got := wordsBeginning(tc.text, tc.prefixes); !slices.Equal(got, tc.want) {
			t.Errorf("wordsBeginning(%q, %q) = %q, want %q", tc.text, tc.prefixes, got, tc.want)
		}
	}
}
