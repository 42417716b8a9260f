package retrieve

import (
	"context"
	"errors"
	"log/slog"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/model/embed"
)

// Auto is the fusion that leaves the choice between RRF and Rerank to
// grimoire, for the embedder that queries are embedded with.
const Auto = "auto"

// ConfigDefaults returns the retrieval options grimoire.toml starts from:
// DefaultOptions, with the fusion (Auto) and the vector arm's weight (0)
// left for Open to choose for the embedder.
func ConfigDefaults() Options {
	o := DefaultOptions()
	o.Fusion, o.VectorWeight = Auto, 0
	return o
}

// Validate checks the choices a configuration makes: Mode, and Fusion,
// which may be Auto. Its Invalid errors name the key as grimoire.toml does.
func (o Options) Validate() error {
	if !validMode(o.Mode) {
		return fault.Errorf(fault.Invalid, "mode = %q: want \"hybrid\", \"fts\" or \"vector\"", o.Mode)
	}
	switch o.Fusion {
	case Auto, RRF, Rerank:
	default:
		return fault.Errorf(fault.Invalid, "fusion = %q: want \"auto\", \"rrf\" or \"rerank\"", o.Fusion)
	}
	return nil
}

func validMode(mode string) bool {
	switch mode {
	case Hybrid, FTS, Vector:
		return true
	}
	return false
}

// Open returns a searcher over db with the configured options o, which
// may leave the fusion and the vector weight to grimoire (ConfigDefaults).
// newEmbedder builds the configured embedding model. Queries are embedded
// only when db holds that model's vectors: a different model is a Conflict.
// While a switch to the model is under way, or when its server does not
// answer, searches fall back to full text with a warning on log: reading
// should not stop because a model server is down.
func Open(ctx context.Context, db *index.DB, o Options, newEmbedder func(context.Context) (embed.Embedder, error), log *slog.Logger) (*Searcher, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.Logger == nil {
		o.Logger = log
	}
	emb, err := queryEmbedder(ctx, db, newEmbedder, log)
	if err != nil {
		return nil, err
	}
	return New(db, emb, tune(o, emb)), nil
}

// queryEmbedder returns the embedder for queries, checked against db's
// stamp, or nil when searches are to be full text only.
func queryEmbedder(ctx context.Context, db *index.DB, newEmbedder func(context.Context) (embed.Embedder, error), log *slog.Logger) (embed.Embedder, error) {
	emb, err := newEmbedder(ctx)
	if errors.Is(err, embed.ErrUnreachable) {
		log.Warn("the embedding server does not answer; searching full text only", "err", err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	stamp := emb.Info().Stamp()
	err = db.CheckStamp(ctx, stamp)
	if fault.CodeOf(err) == fault.Conflict {
		if next, ok, nerr := db.NextStamp(ctx); nerr == nil && ok && next == stamp {
			log.Warn("the library is being re-embedded for the configured model; searching full text only until it is done")
			return nil, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return emb, nil
}

// tune settles what o leaves to grimoire for the query embedder emb (nil:
// full text only), and sets the vectors' dimension.
func tune(o Options, emb embed.Embedder) Options {
	if o.Fusion == Auto {
		o.Fusion = autoFusion(emb)
	}
	if emb == nil {
		return o
	}
	if o.VectorWeight == 0 {
		o.VectorWeight = autoVectorWeight(emb)
	}
	o.Dim = emb.Info().Dim
	return o
}

// autoVectorWeight is the vector arm's fusion weight when the configuration
// leaves it at 0. The built-in embedder is a hashed lexical signal that
// makes hybrid search worse at any weight that can reorder BM25 (SciFact dev
// nDCG@10: 0.598 at weight 1, 0.688 at 0.05, 0.702 = BM25 at 0.01). Below
// 61/(70·71) ≈ 0.012 it never changes BM25's top ten when BM25 has eleven
// hits or more, and it still answers what BM25 cannot match at all
// (misspellings, unsegmented CJK text).
func autoVectorWeight(emb embed.Embedder) float64 {
	if emb.Info().Provider == "builtin" {
		return 0.01
	}
	return 1
}

// autoFusion is how hybrid search merges the arms when the configuration
// leaves it to grimoire. The built-in embedder's vectors are a weak lexical
// signal that hurts reciprocal rank fusion at any weight that matters; as
// part of a rerank of full text's candidates they help (SciFact dev nDCG@10
// in docs/search.md). Neural models get the usual rank fusion. Without an
// embedder (a model switch under way) search is full text, which re-scoring
// by sub-words still improves.
func autoFusion(emb embed.Embedder) string {
	if emb == nil || emb.Info().Provider == "builtin" {
		return Rerank
	}
	return RRF
}
