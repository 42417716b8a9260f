// Package subword owns the sub-word features that hybrid search re-scores
// full text's candidates with: what a feature is, when the statistics of
// their rarity in the library are drawn again, and how those statistics are
// read as inverse document frequencies. Ingest draws the statistics after
// each run, retrieve reads them, and index stores them without knowing what
// they count.
package subword

import (
	"context"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/model/embed"
)

// Extractor finds the features of texts: the hashes of the character
// n-grams and CJK grams that the built-in embedder projects into its
// vectors (embed.Builtin.Features). Safe for concurrent use.
type Extractor struct {
	builtin *embed.Builtin
}

// NewExtractor returns an Extractor.
func NewExtractor() *Extractor { return &Extractor{builtin: embed.NewBuiltin()} }

// Features calls fn once for every distinct feature of text, with the
// number of times it occurs, in no particular order.
func (e *Extractor) Features(text string, fn func(key uint64, count uint32)) {
	e.builtin.Features(text, fn)
}

// Refresh draws the index's statistics again when the library has changed
// by a tenth since they were drawn, or has none.
func Refresh(ctx context.Context, w *index.Writer) error {
	n, err := w.ChunkCount(ctx)
	if err != nil {
		return err
	}
	st, ok, err := w.FeatureStatsHeader(ctx)
	if err != nil || (ok && !st.Stale(n)) {
		return err
	}
	st, err = w.SampleFeatureStats(ctx, NewExtractor().Features)
	if err != nil {
		return err
	}
	return w.PutFeatureStats(ctx, st)
}
