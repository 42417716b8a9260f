package eval

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestSignFlipExact(t *testing.T) {
	tests := []struct {
		name  string
		diffs []float64
		want  float64
	}{
		// Five equal gains: only all-plus and all-minus are as extreme,
		// 2 of 2^5 assignments.
		{"five equal gains", []float64{1, 1, 1, 1, 1}, 2.0 / 32},
		// Zeros do not count: the same five gains among ties.
		{"ties left out", []float64{0, 1, 0, 1, 1, 0, 1, 1}, 2.0 / 32},
		// |±1 ±2 ±3| ≥ 6 only for +++ and −−−.
		{"unequal gains", []float64{1, 2, 3}, 2.0 / 8},
		// |±1 ±2 ±3| ≥ |1+2−3| = 0 always.
		{"cancelling", []float64{1, 2, -3}, 1},
		{"one loss", []float64{-0.5}, 1},
		{"nothing differs", []float64{0, 0, 0}, 1},
		{"no pairs", nil, 1},
		// Sums of tenths differ in their last bits by the order of the
		// additions; the test must still see the ties.
		{"float ties", []float64{0.1, 0.2, 0.3, 0.1, 0.2, 0.3}, 2.0 / 64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SignFlip(tc.diffs); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("SignFlip(%v) = %v, want %v", tc.diffs, got, tc.want)
			}
		})
	}
}

// binomialTwoSided is the exact p-value of k gains among n equal-sized
// non-zero differences: 2 × P(Binomial(n, ½) ≥ k) for k > n/2.
func binomialTwoSided(n, k int) float64 {
	tail := 0.0
	for i := k; i <= n; i++ {
		c := 1.0
		for j := 0; j < i; j++ {
			c = c * float64(n-j) / float64(j+1)
		}
		tail += c
	}
	return 2 * tail / math.Pow(2, float64(n))
}

func TestSignFlipSampled(t *testing.T) {
	// 30 queries, 20 gain a point and 10 lose one: too many to enumerate,
	// and the exact answer is a binomial tail.
	var diffs []float64
	for i := range 30 {
		if i < 20 {
			diffs = append(diffs, 1)
		} else {
			diffs = append(diffs, -1)
		}
	}
	want := binomialTwoSided(30, 20) // 0.0987
	got := SignFlip(diffs)
	// 20,000 rounds: a standard error of 0.002.
	if math.Abs(got-want) > 0.01 {
		t.Errorf("SignFlip = %v, want %v ± 0.01", got, want)
	}
	if again := SignFlip(diffs); again != got {
		t.Errorf("a second run gave %v, then %v: the seed is not fixed", got, again)
	}
	// 40 gains out of 40: the observed assignment alone.
	all := make([]float64, 40)
	for i := range all {
		all[i] = 0.25
	}
	if p := SignFlip(all); p != 1.0/(signFlipRounds+1) {
		t.Errorf("40 equal gains: p = %v, want %v", p, 1.0/(signFlipRounds+1))
	}
}

func rec(collection, id, kind, mode string, metrics map[string]float64, noMatch *bool) Record {
	return Record{Collection: collection, ID: id, Kind: kind, Mode: mode, Metrics: metrics, NoMatch: noMatch}
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func TestCompare(t *testing.T) {
	a := []Record{
		rec("books", "q1", Keyword, "hybrid", map[string]float64{Answer5: 0}, no()),
		rec("books", "q2", Paraphrase, "hybrid", map[string]float64{Answer5: 0}, yes()),
		rec("books", "q3", Negative, "hybrid", map[string]float64{}, no()),
		rec("books", "q4", Paraphrase, "hybrid", map[string]float64{Answer5: 1}, no()),
		rec("books", "q9", Keyword, "hybrid", map[string]float64{Answer5: 1}, no()), // only in A
		rec("sf", "1", KindBEIR, "bm25", map[string]float64{NDCG10: 0.5}, nil),
		rec("sf", "1", KindBEIR, "fts", map[string]float64{NDCG10: 0.7}, no()),
	}
	b := []Record{
		rec("books", "q1", Keyword, "hybrid", map[string]float64{Answer5: 1}, no()),
		rec("books", "q2", Paraphrase, "hybrid", map[string]float64{Answer5: 1}, no()),
		rec("books", "q3", Negative, "hybrid", map[string]float64{}, yes()),
		rec("books", "q4", Paraphrase, "hybrid", map[string]float64{Answer5: 1}, no()),
		rec("books", "q1", Keyword, "fts", map[string]float64{Answer5: 1}, no()), // only in B
		rec("sf", "1", KindBEIR, "bm25", map[string]float64{NDCG10: 0.5}, nil),
		rec("sf", "1", KindBEIR, "fts", map[string]float64{NDCG10: 0.8}, no()),
	}
	got, un, err := Compare(a, b, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if un.OnlyA != 1 || un.OnlyB != 1 {
		t.Errorf("unpaired %+v, want 1 and 1", un)
	}
	var lines []string
	for _, c := range got {
		lines = append(lines, strings.Join([]string{c.Collection, c.Kind, c.ModeA, c.Metric}, " ")+
			" "+fmtFloat(c.MeanA)+" "+fmtFloat(c.MeanB)+" "+fmtFloat(c.Diff)+" "+fmtFloat(c.P)+" "+strconv.Itoa(c.Pairs))
	}
	want := []string{
		"books keyword hybrid answer@5 0 1 1 1 1",
		"books keyword hybrid no_match 0 0 0 1 1",
		"books paraphrase hybrid answer@5 0.5 1 0.5 1 2",
		"books paraphrase hybrid no_match 0.5 0 -0.5 1 2",
		"books answerable hybrid answer@5 0.3333 1 0.6667 0.5 3",
		"books answerable hybrid no_match 0.3333 0 -0.3333 1 3",
		"books negative hybrid no_match 0 1 1 1 1",
		"sf beir bm25 ndcg@10 0.5 0.5 0 1 1", // bm25 has no verdict to compare
		"sf beir fts ndcg@10 0.7 0.8 0.1 1 1",
		"sf beir fts no_match 0 0 0 1 1",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("comparisons:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}

	// Two modes of one run against each other.
	got, _, err = Compare(a, a, "bm25", "fts")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ModeA != "bm25" || got[0].ModeB != "fts" || math.Abs(got[0].Diff-0.2) > 1e-12 {
		t.Errorf("bm25 against fts: %+v", got)
	}

	// The same id as another kind is not the same question.
	b[0].Kind = Paraphrase
	if _, _, err := Compare(a, b, "", ""); err == nil || !strings.Contains(err.Error(), "q1") {
		t.Errorf("a changed kind: err = %v", err)
	}
	b[0].Kind = Keyword
	if _, _, err := Compare(a, append(b, b[0]), "", ""); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a duplicate: err = %v", err)
	}
}

func fmtFloat(f float64) string {
	return strconv.FormatFloat(math.Round(f*1e4)/1e4+0, 'f', -1, 64)
}
