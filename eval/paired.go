package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Rounds of the sign-flip test when its exact distribution is too large
// to enumerate, and the most non-zero differences that are enumerated.
const (
	signFlipRounds = 20000
	exactFlipsUpTo = 16
)

// signFlipSeed fixes the random sign flips, so that a comparison prints
// the same p-values every time it is run.
const signFlipSeed = 15

// SignFlip returns the two-sided p-value of a paired randomisation test of
// per-query differences (B − A): under the null hypothesis that the two
// runs are exchangeable, each difference is as likely to have the other
// sign, so the p-value is the share of sign assignments whose mean is at
// least as far from zero as the observed one. Differences of zero do not
// move the mean under any assignment and are left out. Up to
// exactFlipsUpTo non-zero differences every assignment is counted (an
// exact p-value); beyond, signFlipRounds random ones with a fixed seed, the
// observed assignment counted among them, so p is never 0. No difference at
// all gives 1.
func SignFlip(diffs []float64) float64 {
	var nz []float64
	observed := 0.0
	for _, d := range diffs {
		if d != 0 {
			nz = append(nz, math.Abs(d))
			observed += d
		}
	}
	if len(nz) == 0 {
		return 1
	}
	// Sums of equal values can differ in their last bits by the order
	// they are added in; a tolerance keeps ties tied.
	bar := math.Abs(observed) - 1e-9*(1+math.Abs(observed))
	if len(nz) <= exactFlipsUpTo {
		hits := 0
		total := 1 << len(nz)
		for mask := range total {
			s := 0.0
			for i, v := range nz {
				if mask&(1<<i) != 0 {
					s -= v
				} else {
					s += v
				}
			}
			if math.Abs(s) >= bar {
				hits++
			}
		}
		return float64(hits) / float64(total)
	}
	rng := rand.New(rand.NewPCG(signFlipSeed, uint64(len(nz))))
	hits := 1 // the observed assignment
	for range signFlipRounds {
		s := 0.0
		for _, v := range nz {
			if rng.Uint64()&1 == 0 {
				s += v
			} else {
				s -= v
			}
		}
		if math.Abs(s) >= bar {
			hits++
		}
	}
	return float64(hits) / float64(signFlipRounds+1)
}

// Comparison is one metric of one group of paired queries in two runs.
type Comparison struct {
	Collection string `json:"collection"`
	Kind       string `json:"kind"`
	// ModeA and ModeB are the modes compared (the same unless asked).
	ModeA  string `json:"mode_a"`
	ModeB  string `json:"mode_b"`
	Metric string `json:"metric"`
	// Pairs is the number of queries both runs have this metric for.
	Pairs int     `json:"pairs"`
	MeanA float64 `json:"mean_a"`
	MeanB float64 `json:"mean_b"`
	// Diff is MeanB − MeanA; P is SignFlip's two-sided p-value.
	Diff float64 `json:"diff"`
	P    float64 `json:"p"`
}

// Unpaired counts the records of each run that the other lacks.
type Unpaired struct {
	OnlyA, OnlyB int
}

// Compare pairs the records of two runs and tests every metric of every
// group (collection and kind, and Answerable as Summarize pools it) for a
// difference. With modeA and modeB empty, records pair when collection,
// id and mode agree; otherwise a's records of modeA pair with b's of
// modeB by collection and id (a and b may be the same run: fts against
// bm25). A query whose kind differs between the runs is an error: the two
// were not run on the same questions.
func Compare(a, b []Record, modeA, modeB string) ([]Comparison, Unpaired, error) {
	type pairKey struct{ collection, id, mode string }
	keyOf := func(r Record, fixed string) pairKey {
		if fixed != "" {
			return pairKey{r.Collection, r.ID, ""}
		}
		return pairKey{r.Collection, r.ID, r.Mode}
	}
	byKey := make(map[pairKey]Record)
	for _, r := range b {
		if modeB == "" || r.Mode == modeB {
			k := keyOf(r, modeB)
			if _, dup := byKey[k]; dup {
				return nil, Unpaired{}, fmt.Errorf("%s %s (%s) appears twice in the second run", r.Collection, r.ID, r.Mode)
			}
			byKey[k] = r
		}
	}
	type pair struct{ a, b Record }
	type groupKey struct{ collection, kind, modeA, modeB string }
	groups := make(map[groupKey][]pair)
	var order []groupKey
	var un Unpaired
	used := make(map[pairKey]bool)
	seenA := make(map[pairKey]bool)
	kinds := make(map[string][]string)
	for _, ra := range a {
		if modeA != "" && ra.Mode != modeA {
			continue
		}
		k := keyOf(ra, modeA)
		if seenA[k] {
			return nil, un, fmt.Errorf("%s %s (%s) appears twice in the first run", ra.Collection, ra.ID, ra.Mode)
		}
		seenA[k] = true
		rb, ok := byKey[k]
		if !ok {
			un.OnlyA++
			continue
		}
		used[k] = true
		if ra.Kind != rb.Kind {
			return nil, un, fmt.Errorf("%s %s is a %s question in one run and a %s one in the other", ra.Collection, ra.ID, ra.Kind, rb.Kind)
		}
		gk := groupKey{ra.Collection, ra.Kind, ra.Mode, rb.Mode}
		if _, ok := groups[gk]; !ok {
			order = append(order, gk)
		}
		groups[gk] = append(groups[gk], pair{ra, rb})
		if !slices.Contains(kinds[ra.Collection], ra.Kind) {
			kinds[ra.Collection] = append(kinds[ra.Collection], ra.Kind)
		}
	}
	un.OnlyB = len(byKey) - len(used)
	// The pooled answerable group of each collection that Summarize pools.
	var pooledOrder []groupKey
	for _, gk := range order {
		if !pooled(kinds[gk.collection]) || gk.kind == Negative {
			continue
		}
		pk := groupKey{gk.collection, Answerable, gk.modeA, gk.modeB}
		if _, ok := groups[pk]; !ok {
			pooledOrder = append(pooledOrder, pk)
		}
		groups[pk] = append(groups[pk], groups[gk]...)
	}
	order = append(order, pooledOrder...)
	// Collections as they came, kinds in their printing order.
	var collections []string
	for _, gk := range order {
		if !slices.Contains(collections, gk.collection) {
			collections = append(collections, gk.collection)
		}
	}
	slices.SortStableFunc(order, func(x, y groupKey) int {
		if d := slices.Index(collections, x.collection) - slices.Index(collections, y.collection); d != 0 {
			return d
		}
		return kindRank(x.kind) - kindRank(y.kind)
	})

	var out []Comparison
	for _, gk := range order {
		ps := groups[gk]
		present := make(map[string]bool)
		for _, p := range ps {
			for m := range p.a.Metrics {
				if _, ok := p.b.Metrics[m]; ok {
					present[m] = true
				}
			}
			if p.a.NoMatch != nil && p.b.NoMatch != nil {
				present[NoMatchRate] = true
			}
		}
		for _, m := range MetricNames(present) {
			var xs, ys, diffs []float64
			for _, p := range ps {
				x, okA := value(p.a, m)
				y, okB := value(p.b, m)
				if okA && okB {
					xs, ys, diffs = append(xs, x), append(ys, y), append(diffs, y-x)
				}
			}
			c := Comparison{Collection: gk.collection, Kind: gk.kind, ModeA: gk.modeA, ModeB: gk.modeB, Metric: m,
				Pairs: len(diffs), MeanA: mean(xs), MeanB: mean(ys), P: SignFlip(diffs)}
			c.Diff = c.MeanB - c.MeanA
			out = append(out, c)
		}
	}
	return out, un, nil
}

// value returns a record's metric, the no-match verdict as 0 or 1.
func value(r Record, metric string) (float64, bool) {
	if metric == NoMatchRate {
		if r.NoMatch == nil {
			return 0, false
		}
		if *r.NoMatch {
			return 1, true
		}
		return 0, true
	}
	v, ok := r.Metrics[metric]
	return v, ok
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
