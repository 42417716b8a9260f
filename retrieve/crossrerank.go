package retrieve

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/model/rerank"
)

// PassageReranker re-scores a search's candidates with a cross-encoder that
// reads the question and each passage together (package model/rerank).
type PassageReranker interface {
	// Rerank returns one score per passage, in the order of passages. An
	// error that matches rerank.ErrUnreachable, or whose code is not
	// Invalid, means the server is down or failed this time: the search
	// goes on without it. An Invalid error is a mistake in the
	// configuration that fails every search until the user fixes it, and
	// fails this one.
	Rerank(ctx context.Context, query string, passages []string) ([]rerank.Score, error)
}

// crossRerank re-scores the first CandidatePool hits of the fusion (or
// limit, when it is larger) with the configured reranker, which reads the
// question as asked (the first phrasing; the others only widen the pool).
// The reranked hits replace the fused ones, their Score the reranker's
// relevance, so that load orders them by it; the fusion's lesser hits are
// dropped, so that none ranks among them on a score of another scale. When
// the reranker fails for a reason other than its configuration, fused is
// left as it was and the failure logged: reading goes on while a model
// server is down.
func (s *Searcher) crossRerank(ctx context.Context, r request, fused map[int64]*Hit) error {
	if len(fused) == 0 {
		return nil
	}
	ranked := byScore(fused)
	ranked = ranked[:min(len(ranked), r.pool)]
	ids := make([]int64, len(ranked))
	for i, h := range ranked {
		ids[i] = h.ID
	}
	texts, err := r.texts.get(ctx, ids)
	if err != nil {
		return err
	}
	pool := ranked[:0]
	var passages []string
	for _, h := range ranked {
		if t, ok := texts[h.ID]; ok { // else pruned since the arms ran
			pool = append(pool, h)
			// The passage as it was embedded: its heading path and context
			// say what the text is about, as they do for the other arms.
			passages = append(passages, index.JoinText(t.Heading, t.Context, t.Text))
		}
	}
	begin := time.Now()
	scores, err := s.opts.Reranker.Rerank(ctx, r.phrasings[0], passages)
	if err != nil {
		if ctx.Err() != nil || (fault.CodeOf(err) == fault.Invalid && !errors.Is(err, rerank.ErrUnreachable)) {
			return err
		}
		what := "the reranker failed"
		if errors.Is(err, rerank.ErrUnreachable) {
			what = "the reranker does not answer"
		}
		s.opts.Logger.Warn(what+"; the results are in the order of the fusion", "err", err)
		return nil
	}
	s.opts.Logger.Debug("reranked", "passages", len(passages), "took", time.Since(begin))
	keep := make(map[int64]bool, len(pool))
	for i, h := range pool {
		h.Reranked = true
		h.RerankScore, h.RerankProbability = scores[i].Relevance, scores[i].Probability
		h.Score = h.RerankScore
		keep[h.ID] = true
	}
	for id := range fused {
		if !keep[id] {
			delete(fused, id)
		}
	}
	return nil
}

// byScore returns the hits best first; equal scores in chunk order, so
// that a search always returns the same order.
func byScore(fused map[int64]*Hit) []*Hit {
	ranked := make([]*Hit, 0, len(fused))
	for _, h := range fused {
		ranked = append(ranked, h)
	}
	sort.Slice(ranked, func(i, j int) bool {
		if ranked[i].Score != ranked[j].Score {
			return ranked[i].Score > ranked[j].Score
		}
		return ranked[i].ID < ranked[j].ID
	})
	return ranked
}
