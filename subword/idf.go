package subword

import (
	"context"
	"math"
	"sync"

	"github.com/grimoire-search/grimoire/index"
)

// Rarity reads the index's statistics as inverse document frequencies for
// one reader of the index. Safe for concurrent use.
type Rarity struct {
	feats *Extractor

	mu      sync.Mutex
	table   *IDFTable
	version int64 // of the index's statistics; 0 when sampled here
	chunks  int   // the index's size when sampled here
}

// NewRarity returns a Rarity that samples with feats when it must.
func NewRarity(feats *Extractor) *Rarity { return &Rarity{feats: feats} }

// Table returns the inverse document frequencies of features, from the
// statistics the index keeps (hdr, their header, ok false when it keeps
// none), loaded again when the writer has drawn new ones, or from a sample
// drawn here when it keeps none (an index not synced since it was
// upgraded), drawn again when the index's size, chunks, makes it out of
// date.
func (r *Rarity) Table(ctx context.Context, db *index.DB, hdr index.FeatureStats, ok bool, chunks int) (*IDFTable, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ok && r.version != hdr.Version {
		st, found, err := db.FeatureStats(ctx)
		if err != nil {
			return nil, err
		}
		if found {
			r.table, r.version = newIDFTable(st), st.Version
		}
	}
	if !ok && r.version != 0 {
		r.table = nil // the stored statistics are gone
	}
	if !ok || r.table == nil {
		if r.table == nil || (index.FeatureStats{Chunks: r.chunks}).Stale(chunks) {
			st, err := db.SampleFeatureStats(ctx, r.feats.Features)
			if err != nil {
				return nil, err
			}
			r.table, r.version, r.chunks = newIDFTable(st), 0, st.Chunks
		}
	}
	return r.table, nil
}

// IDFTable holds the inverse document frequency of each feature in the
// sample, ln((docs+1)/(df+0.5)). Its keys stay in the sorted order they are
// stored in, found through a directory of their top bits: building a hash
// table of a few hundred thousand features took longer than the search that
// needs it, in a one-shot `grimoire query`.
type IDFTable struct {
	keys   []uint64
	idfs   []float32
	dir    []int32 // dir[b]: the first key whose top bits are b or more
	shift  uint
	unseen float64 // of a feature no sampled chunk holds
}

func newIDFTable(st index.FeatureStats) *IDFTable {
	docs := float64(st.Docs)
	bits := 4
	for 1<<bits < len(st.Keys) && bits < 24 {
		bits++
	}
	t := &IDFTable{keys: st.Keys, idfs: make([]float32, len(st.Keys)), dir: make([]int32, 1<<bits+1),
		shift: uint(64 - bits), unseen: math.Log((docs + 1) / 0.5)}
	// One logarithm per count rather than per feature: counts run up to
	// the sample's size (a couple of thousand), features to hundreds of
	// thousands.
	byCount := make([]float32, st.Docs+1)
	for df := range byCount {
		byCount[df] = float32(math.Log((docs + 1) / (float64(df) + 0.5)))
	}
	for i, df := range st.DF {
		if int(df) < len(byCount) {
			t.idfs[i] = byCount[df]
		} else { // more chunks than sampled: not drawn by SampleFeatureStats
			t.idfs[i] = float32(math.Log((docs + 1) / (float64(df) + 0.5)))
		}
	}
	b := 0
	for i, k := range t.keys {
		for ; b <= int(k>>t.shift); b++ {
			t.dir[b] = int32(i)
		}
	}
	for ; b < len(t.dir); b++ {
		t.dir[b] = int32(len(t.keys))
	}
	return t
}

// IDF returns the inverse document frequency of the feature key.
func (t *IDFTable) IDF(key uint64) float64 {
	b := key >> t.shift
	for i := t.dir[b]; i < t.dir[b+1]; i++ {
		if t.keys[i] == key {
			return float64(t.idfs[i])
		}
	}
	return t.unseen
}
