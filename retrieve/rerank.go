package retrieve

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/grimoire-search/grimoire/index"
)

// Fusions: how hybrid search merges the arms.
const (
	// RRF merges the full-text and vector rankings by reciprocal rank.
	RRF = "rrf"
	// Rerank re-scores full text's candidates with their sub-word
	// similarity to the question and their vectors' cosine.
	Rerank = "rerank"
)

// Rerank weights, measured with `grimoire eval` on the SciFact dev claims
// (nDCG@10; docs/search.md gives the figures).
const (
	// rerankVectorWeight and rerankSubwordWeight weigh the candidates'
	// cosine and sub-word similarity, each scaled to 0–1 over the
	// candidates, against BM25 scaled to the best candidate's score.
	rerankVectorWeight  = 0.2
	rerankSubwordWeight = 0.3
)

// A question about a book names its scene (who, where, what happened); the
// answer often comes in the passage after the one that names it (what he
// said next, why she did it), which shares few of the question's words. So
// the first followFirst full-text candidates lend the next two passages of
// their book a share of their reranked score: followShare of it to the
// next one, followShare·followDecay to the one after. A passage keeps the
// better of its own score and the share, so a follower never passes the
// passage it follows. Measured on the dev book questions: paraphrase
// answer@5 0.54 → 0.59, answer@10 0.59 → 0.69, keyword answer@5 0.85 →
// 0.88; SciFact and NFCorpus dev (one passage a document) unchanged.
const (
	followFirst = 3
	followShare = 0.8
	followDecay = 0.9
)

// featureTable maps feature hashes to weights: open addressing over the
// hashes, which are well mixed already. Looked up for every feature of every
// candidate, a Go map took a third of the time reranking costs.
type featureTable struct {
	keys []uint64 // 0: an empty slot
	vals []float32
	mask uint64
}

func newFeatureTable(n int) featureTable {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return featureTable{keys: make([]uint64, size), vals: make([]float32, size), mask: uint64(size - 1)}
}

// put sets key's weight; the table must have been made for at least as
// many keys as are put. Key 0 is not stored.
func (t *featureTable) put(key uint64, v float64) {
	if key == 0 {
		return
	}
	i := key & t.mask
	for t.keys[i] != 0 && t.keys[i] != key {
		i = (i + 1) & t.mask
	}
	t.keys[i], t.vals[i] = key, float32(v)
}

func (t *featureTable) get(key uint64) (float64, bool) {
	if key == 0 {
		return 0, false
	}
	for i := key & t.mask; ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case key:
			return float64(t.vals[i]), true
		case 0:
			return 0, false
		}
	}
}

// rerankScores are what a candidate was re-scored with.
type rerankScores struct {
	cosine, subword float64
	hasCosine       bool
}

// rerank re-orders full text's candidates for one phrasing, best first, by
//
//	bm25/best bm25 + wv·cosine + ws·subword (+ definitionWeight)
//
// with cosine (query vector against the chunk's) and subword (the TF-IDF
// cosine of their character n-grams) each scaled to 0–1 over the candidates,
// and definitionWeight for a passage that defines what the question asks to
// be defined (see definedTerm).
// BM25 decides; the other two break its near-ties, and reward a passage that
// says the question's words in other forms ("prognostic" for "prognosis",
// "IL6" for "IL-6") or misspelled. The passages after the first few
// candidates join them, and take a share of their scores (followShare).
// qvec may be nil: then only sub-words count.
func (s *Searcher) rerank(ctx context.Context, cache *textCache, text string, qvec []float32, hits []index.FTSHit, scores map[int64]rerankScores) ([]index.FTSHit, error) {
	if len(hits) < 2 || hits[0].Score <= 0 {
		return hits, nil
	}
	st, err := s.state(ctx)
	if err != nil {
		return nil, err
	}
	idf, err := s.rarity.Table(ctx, s.db, st.lib.Features, st.lib.HasFeatures, int(st.lib.Chunks))
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	next := followers(hits)
	for _, f := range next {
		ids = append(ids, f.ChunkID)
	}
	texts, err := cache.get(ctx, ids)
	if err != nil {
		return nil, err
	}
	// A follower's id past its book's last passage is another book's.
	for _, f := range next {
		if t, ok := texts[f.ChunkID]; ok && t.BookID == f.BookID {
			hits = append(hits, f)
		}
	}
	var qkeys []uint64
	var qweights []float64
	var qnorm float64
	s.feats.Features(text, func(key uint64, count uint32) {
		w := tfWeight(count) * idf.IDF(key)
		qkeys, qweights = append(qkeys, key), append(qweights, w)
		qnorm += w * w
	})
	qnorm = math.Sqrt(qnorm)
	query := newFeatureTable(len(qkeys))
	for i, k := range qkeys {
		query.put(k, qweights[i])
	}

	cos := make([]float64, len(hits))
	sub := make([]float64, len(hits))
	haveCos := qvec != nil
	// Editions of one book hold the same passages: each text's sub-words
	// are weighed once.
	subOf := make(map[string]float64, len(hits))
	term := definedTerm(text)
	def := make([]float64, len(hits))
	for i, h := range hits {
		c := texts[h.ChunkID]
		if term != nil && defines(sentenceWords(c.Text), term) {
			def[i] = definitionWeight
		}
		passage := index.JoinText(c.Heading, c.Context, c.Text)
		if v, ok := subOf[passage]; ok {
			sub[i] = v
		} else {
			var dot, norm float64
			s.feats.Features(passage, func(key uint64, count uint32) {
				w := tfWeight(count) * idf.IDF(key)
				norm += w * w
				if q, ok := query.get(key); ok {
					dot += w * q
				}
			})
			if norm > 0 && qnorm > 0 {
				sub[i] = dot / (math.Sqrt(norm) * qnorm)
			}
			subOf[passage] = sub[i]
		}
		vec := c.Vec
		if !cache.vectors {
			vec = s.vecs.floats(c.ID)
		}
		if len(vec) != len(qvec) {
			haveCos = false
		} else {
			cos[i] = float64(dotFloat(qvec, vec))
		}
	}
	cosW := rerankVectorWeight
	if !haveCos {
		cosW = 0
	}
	cosLo, cosHi := span(cos)
	subLo, subHi := span(sub)
	best := hits[0].Score
	type ranked struct {
		hit   index.FTSHit
		score float64
	}
	score := make([]float64, len(hits))
	for i, h := range hits {
		score[i] = h.Score/best + cosW*scaled(cos[i], cosLo, cosHi) + rerankSubwordWeight*scaled(sub[i], subLo, subHi) + def[i]
	}
	lendToFollowers(hits, score)
	out := make([]ranked, len(hits))
	for i, h := range hits {
		out[i] = ranked{h, score[i]}
		sc := scores[h.ChunkID]
		sc.subword = max(sc.subword, sub[i])
		if haveCos {
			sc.cosine, sc.hasCosine = max(sc.cosine, cos[i]), true
		}
		scores[h.ChunkID] = sc
	}
	// A stable sort keeps BM25's order among equal scores.
	slices.SortStableFunc(out, func(a, b ranked) int { return cmp.Compare(b.score, a.score) })
	reordered := make([]index.FTSHit, len(out))
	for i, r := range out {
		reordered[i] = r.hit
	}
	return reordered, nil
}

// followers returns the two passages after each of the first followFirst
// candidates that are not candidates themselves, as candidates of the same
// book without a full-text score. A book's passages have consecutive ids
// (index.DB.SearchFTS); an id past the book's end is another book's, which
// the caller checks.
func followers(hits []index.FTSHit) []index.FTSHit {
	in := make(map[int64]bool, len(hits))
	for _, h := range hits {
		in[h.ChunkID] = true
	}
	var out []index.FTSHit
	for _, h := range hits[:min(followFirst, len(hits))] {
		for id := h.ChunkID + 1; id <= h.ChunkID+2; id++ {
			if !in[id] {
				in[id] = true
				out = append(out, index.FTSHit{ChunkID: id, BookID: h.BookID})
			}
		}
	}
	return out
}

// lendToFollowers raises the scores of the passages after each of the
// first followFirst hits (in full text's order) to their share of its
// score, read before any was raised. score[i] is hits[i]'s.
func lendToFollowers(hits []index.FTSHit, score []float64) {
	at := make(map[int64]int, len(hits))
	for i, h := range hits {
		at[h.ChunkID] = i
	}
	lead := slices.Clone(score[:min(followFirst, len(score))])
	for i, h := range hits[:len(lead)] {
		share := followShare * lead[i]
		for id := h.ChunkID + 1; id <= h.ChunkID+2; id++ {
			if j, ok := at[id]; ok && hits[j].BookID == h.BookID {
				score[j] = max(score[j], share)
			}
			share *= followDecay
		}
	}
}

func span(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// scaled maps x from [lo, hi] to [0, 1]; 0 when the range is empty.
func scaled(x, lo, hi float64) float64 {
	if hi <= lo {
		return 0
	}
	return (x - lo) / (hi - lo)
}

// tfWeight dampens repeated features: ten of one n-gram say more than one,
// not ten times more.
func tfWeight(count uint32) float64 {
	if count == 1 {
		return 1 // nearly every feature of a passage: no logarithm
	}
	return 1 + math.Log(float64(count))
}
