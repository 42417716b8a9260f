package subword

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/grimoire-search/grimoire/index"
)

func TestIDFTable(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, n := range []int{0, 1, 7, 1000, 50000} {
		st := index.FeatureStats{Docs: 100}
		for range n {
			st.Keys = append(st.Keys, rng.Uint64())
		}
		st.Keys = append(st.Keys, 0, math.MaxUint64)
		slices.Sort(st.Keys)
		st.Keys = slices.Compact(st.Keys)
		for i := range st.Keys {
			st.DF = append(st.DF, uint32(i%100+1))
		}
		tab := newIDFTable(st)
		for i, k := range st.Keys {
			want := math.Log(101 / (float64(st.DF[i]) + 0.5))
			if got := tab.IDF(k); math.Abs(got-want) > 1e-5 {
				t.Fatalf("n=%d: idf of a stored feature %x: %v, want %v", n, k, got, want)
			}
		}
		for range 1000 {
			k := rng.Uint64()
			if _, found := slices.BinarySearch(st.Keys, k); !found && tab.IDF(k) != tab.unseen {
				t.Fatalf("n=%d: an unseen feature has idf %v", n, tab.IDF(k))
			}
		}
	}
}
