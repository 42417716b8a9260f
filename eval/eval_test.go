package eval

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestJudge(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1}
	tests := []struct {
		name                string
		ranking             []string
		ndcg, r10, r100, rr float64
	}{
		{"perfect", []string{"a", "b", "x"}, 1, 1, 1, 1},
		{"second and third", []string{"x", "a", "b"}, (1/math.Log2(3) + 1/math.Log2(4)) / (1 + 1/math.Log2(3)), 1, 1, 0.5},
		{"one found at 11", append(strings.Split("x1 x2 x3 x4 x5 x6 x7 x8 x9 x10", " "), "a"), 0, 0, 0.5, 1.0 / 11},
		{"nothing", []string{"x", "y"}, 0, 0, 0, 0},
		{"empty", nil, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		n, r10, r100, rr := Judge(tc.ranking, rel)
		for _, c := range []struct {
			what      string
			got, want float64
		}{{"ndcg", n, tc.ndcg}, {"recall@10", r10, tc.r10}, {"recall@100", r100, tc.r100}, {"rr", rr, tc.rr}} {
			if math.Abs(c.got-c.want) > 1e-9 {
				t.Errorf("%s: %s = %v, want %v", tc.name, c.what, c.got, c.want)
			}
		}
	}
}

func TestLoadBEIR(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "qrels"), 0o755)
	os.WriteFile(filepath.Join(dir, "corpus.jsonl"), []byte(`{"_id":"d1","title":"T1","text":"one"}
{"_id":"d2","title":"T2","text":"two","metadata":{}}
`), 0o644)
	os.WriteFile(filepath.Join(dir, "queries.dev.jsonl"), []byte(`{"_id":"1","text":"q one","metadata":{"x":1}}
{"_id":"3","text":"unjudged"}
`), 0o644)
	os.WriteFile(filepath.Join(dir, "qrels", "dev.tsv"), []byte("query-id\tcorpus-id\tscore\n1\td2\t1\n"), 0o644)
	c, err := LoadBEIR(dir, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Docs) != 2 || len(c.Queries) != 1 || c.Queries[0].Relevant["d2"] != 1 {
		t.Fatalf("collection %+v", c)
	}
	if _, err := LoadBEIR(dir, "test"); err == nil {
		t.Error("a missing split loaded")
	}
}

func TestLoadGold(t *testing.T) {
	for _, in := range []string{
		`[{"query":"a","expected":[{"book":"x"}]},{"query":"b","expected":[]}]`,
		"{\"query\":\"a\",\"expected\":[{\"book\":\"x\"}]}\n\n{\"query\":\"b\",\"expected\":[]}\n",
	} {
		g, err := LoadGold(strings.NewReader(in))
		if err != nil || len(g) != 2 || g[0].Expected[0].Book != "x" || len(g[1].Expected) != 0 {
			t.Errorf("LoadGold(%q) = %+v, %v", in, g, err)
		}
	}
	if _, err := LoadGold(strings.NewReader("{not json")); err == nil {
		t.Error("bad gold set accepted")
	}
}
