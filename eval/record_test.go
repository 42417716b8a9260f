package eval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	recs := []Record{
		rec("books", "q1", Paraphrase, "hybrid", map[string]float64{Answer5: 1, MRR: 0.5}, no()),
		rec("books", "q2", Negative, "hybrid", map[string]float64{}, yes()),
		rec("books", "q3", Keyword, "hybrid", map[string]float64{Answer5: 0, MRR: 0}, yes()),
		rec("books", "q4", Negative, "hybrid", map[string]float64{}, no()),
		rec("books", "q5", Keyword, "hybrid", map[string]float64{Answer5: 1, MRR: 1}, no()),
		rec("sf", "1", KindBEIR, "bm25", map[string]float64{NDCG10: 0.25}, nil),
		rec("sf", "2", KindBEIR, "bm25", map[string]float64{NDCG10: 0.75}, nil),
	}
	got := Summarize(recs)
	type row struct {
		collection, kind, mode string
		queries                int
		metrics                map[string]float64
		noMatch                float64 // -1: none
	}
	want := []row{
		{"books", Keyword, "hybrid", 2, map[string]float64{Answer5: 0.5, MRR: 0.5}, 0.5},
		{"books", Paraphrase, "hybrid", 1, map[string]float64{Answer5: 1, MRR: 0.5}, 0},
		{"books", Answerable, "hybrid", 3, map[string]float64{Answer5: 2.0 / 3, MRR: 0.5}, 1.0 / 3},
		{"books", Negative, "hybrid", 2, map[string]float64{}, 0.5},
		{"sf", KindBEIR, "bm25", 2, map[string]float64{NDCG10: 0.5}, -1},
	}
	if len(got) != len(want) {
		t.Fatalf("%d summaries, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		nm := -1.0
		if g.NoMatch != nil {
			nm = *g.NoMatch
		}
		if g.Collection != w.collection || g.Kind != w.kind || g.Mode != w.mode || g.Queries != w.queries ||
			!reflect.DeepEqual(g.Metrics, w.metrics) || nm != w.noMatch {
			t.Errorf("row %d = %+v (no_match %v), want %+v", i, g, nm, w)
		}
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	runs := map[string][]Record{
		"books-dev.jsonl": {rec("books-dev", "q1", Keyword, "hybrid", map[string]float64{Answer5: 1}, no()),
			rec("books-dev", "q2", Negative, "fts", nil, yes())},
		"scifact-dev.jsonl": {rec("scifact-dev", "1", KindBEIR, ModeBM25, map[string]float64{NDCG10: 0.5}, nil)},
	}
	var all []Record
	for _, name := range []string{"books-dev.jsonl", "scifact-dev.jsonl"} {
		var buf bytes.Buffer
		if err := WriteRecords(&buf, runs[name]); err != nil {
			t.Fatal(err)
		}
		if strings.Count(buf.String(), "\n") != len(runs[name]) {
			t.Errorf("%s: not one line per record:\n%s", name, buf.String())
		}
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		all = append(all, runs[name]...)
	}
	all[1].Metrics = map[string]float64{} // written as {}, read back empty
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not read"), 0o644)

	got, err := ReadRecords(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, all) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, all)
	}
	one, err := ReadRecords(filepath.Join(dir, "scifact-dev.jsonl"))
	if err != nil || len(one) != 1 || one[0].NoMatch != nil {
		t.Errorf("one file: %+v, %v", one, err)
	}
	os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte(`{"id": "x"}`+"\n"), 0o644)
	if _, err := ReadRecords(dir); err == nil || !strings.Contains(err.Error(), "bad.jsonl:1") {
		t.Errorf("a line that is no record: err = %v", err)
	}
	if _, err := ReadRecords(t.TempDir()); err == nil {
		t.Error("an empty folder read as a run")
	}
}

func TestBM25(t *testing.T) {
	ctx := context.Background()
	docs := []Doc{
		{ID: "cats", Title: "Cats", Text: "Cats sleep most of the day and hunt at night."},
		{ID: "dogs", Title: "Dogs", Text: "Dogs are loyal and like long walks."},
		{ID: "hunting", Title: "Hunting", Text: "Owls hunt mice; hunters hunted deer."},
		{ID: "empty", Title: "", Text: ""},
	}
	b, err := NewBM25(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tests := []struct {
		query string
		want  []string
	}{
		// Stemming: "hunting" finds "hunt", "hunted", "hunters"; the
		// document with more of them ranks first.
		{"hunting", []string{"hunting", "cats"}},
		// Words are OR'ed: one of them is enough; of two documents with
		// one rare word each, the shorter first.
		{"loyal owls", []string{"hunting", "dogs"}},
		// FTS5 syntax is only words.
		{`dogs" OR title:cats NOT (`, []string{"dogs", "cats"}},
		{"?!", nil},
		{"unicorns", nil},
	}
	for _, tc := range tests {
		got, err := b.Search(ctx, tc.query, 10)
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.query, got, tc.want)
		}
	}
	if got, _ := b.Search(ctx, "hunting", 1); len(got) != 1 {
		t.Errorf("limit 1: %v", got)
	}
}
