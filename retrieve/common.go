package retrieve

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/index/fulltext"
	"github.com/grimoire-search/grimoire/internal/passage"
)

// scoreCommon adds to each full-text hit what the question's common words,
// left out of the query because scoring every chunk that holds them costs
// more than the rest of the search, would have added: FTS5's own BM25
// term, with its statistics, over the candidates the rarer words found.
// A word in a fifth of the chunks still weighs a little (an IDF of 1.4,
// against 5 to 10 for rare words), and without it BM25's order on
// SciFact and NFCorpus falls below plain BM25's. hits come back in the new
// order, ranked again.
func (s *Searcher) scoreCommon(ctx context.Context, cache *textCache, hits []index.FTSHit, common map[string]int) ([]index.FTSHit, error) {
	st, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	rows, avgLen := st.lib.Chunks, st.lib.AvgLen()
	if rows == 0 || avgLen == 0 || len(hits) == 0 {
		return hits, nil
	}
	idf := make(map[string]float64, len(common))
	for t, df := range common {
		// FTS5 gives a term in half of the rows or more an IDF of 1e-6:
		// nothing to reorder by, and counting "the" or "of" in every
		// candidate would cost more than the rest of the search.
		if w := math.Log((float64(rows) - float64(df) + 0.5) / (float64(df) + 0.5)); w > 0 {
			idf[t] = w
		}
	}
	if len(idf) == 0 {
		return hits, nil
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	texts, err := cache.get(ctx, ids)
	if err != nil {
		return nil, err
	}
	counts, err := s.termCounts(ctx, ids, texts, idf)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(hits)
	for i := range out {
		length := float64(texts[out[i].ChunkID].Length)
		// In the terms' order: a sum in a map's order differs in its last
		// bits from search to search, and so would the order of the
		// copies of one passage.
		c := counts[out[i].ChunkID]
		for _, t := range slices.Sorted(maps.Keys(c)) {
			out[i].Score += fulltext.BM25(idf[t], c[t], length, avgLen)
		}
	}
	slices.SortStableFunc(out, func(a, b index.FTSHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	})
	for i := range out {
		out[i].Rank = i + 1
	}
	return out, nil
}

// termCounts counts, in each chunk, the occurrences of the terms of idf,
// each column's weighted as bm25() weighs it.
func (s *Searcher) termCounts(ctx context.Context, ids []int64, texts map[int64]index.Hit, idf map[string]float64) (map[int64]map[string]float64, error) {
	// Only the words that may stem to a term are looked at, and stemmed.
	prefixes := stemPrefixes(slices.Collect(maps.Keys(idf)))
	type column struct {
		words  []string
		weight float64
	}
	cols := make(map[int64][]column, len(ids))
	need := make(map[string]bool)
	// A library's copies of one passage (editions, a notice in every
	// file) are split into words once.
	split := make(map[string][]string)
	for _, id := range ids {
		t, ok := texts[id]
		if !ok {
			continue
		}
		for _, c := range []struct {
			text   string
			weight float64
		}{{t.Heading, s.opts.Columns.Heading}, {t.Context, s.opts.Columns.Context}, {t.Text, s.opts.Columns.Text}} {
			ws, ok := split[c.text]
			if !ok {
				ws = wordsBeginning(index.FoldTerm(c.text), prefixes)
				split[c.text] = ws
				for _, w := range ws {
					need[w] = true
				}
			}
			cols[id] = append(cols[id], column{ws, c.weight})
		}
	}
	words := make([]string, 0, len(need))
	for w := range need {
		words = append(words, w)
	}
	stems := fulltext.Stems(words)
	out := make(map[int64]map[string]float64, len(cols))
	for id, cs := range cols {
		for _, c := range cs {
			for _, w := range c.words {
				if t := stems[w]; idf[t] > 0 {
					if out[id] == nil {
						out[id] = make(map[string]float64)
					}
					out[id][t] += c.weight
				}
			}
		}
	}
	return out, nil
}

// wordsBeginning returns every word of text, where FTS5's unicode61
// tokenizer splits words, that begins with one of prefixes, once for each
// place it is found. Searching for the prefixes costs far less than
// splitting every word of the text.
func wordsBeginning(text string, prefixes []string) []string {
	var out []string
	taken := make(map[int]bool)
	for _, p := range prefixes {
		for i := 0; i < len(text); {
			j := strings.Index(text[i:], p)
			if j < 0 {
				break
			}
			start := i + j
			end := passage.WordEnd(text, start+len(p))
			i = end
			if r, _ := utf8.DecodeLastRuneInString(text[:start]); start > 0 && passage.IsWordRune(r) {
				continue // inside a word
			}
			if !taken[start] {
				taken[start] = true
				out = append(out, text[start:end])
			}
		}
	}
	return out
}
