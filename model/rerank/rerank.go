// Package rerank re-scores search candidates with a cross-encoder that a
// model server runs: the model reads the question and one passage together
// and says how well the passage answers it, which word matching and
// vectors cannot. It speaks the two /rerank wire formats servers use:
// Hugging Face TEI's, and the one llama.cpp's server, vLLM, Jina and
// Cohere share.
package rerank

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/model/modelserver"
)

// Score is a reranker's judgement of one passage for a question.
type Score struct {
	// Relevance is the score as the server gave it: higher is more
	// relevant. Its scale is the model's and the server's: a raw logit
	// (any real number; llama.cpp's server, and TEI, which grimoire asks
	// for raw scores) or a probability (vLLM, Jina and Cohere apply the
	// model's sigmoid). It compares passages across searches with one
	// model and server.
	Relevance float64
	// Probability is Relevance as the probability, 0 to 1, that the
	// passage is relevant: the logistic function of a logit, or the
	// server's own score when it gives probabilities. Cross-encoders are
	// trained to make this a probability; it is as calibrated as the
	// model is, and a threshold on it carries over between models better
	// than one on Relevance.
	Probability float64
}

// serverInfo describes a reranker once it has reached its server.
type serverInfo struct {
	// Provider is ProviderTEI or ProviderOpenAI.
	Provider string
	// Model is the model's name, as the server has it.
	Model string
	// Logits says the server's scores are logits rather than
	// probabilities.
	Logits bool
}

// Kinds of failure; match them with errors.Is. ErrUnreachable means the
// server is down, for the caller to carry on without it; the other kinds
// with a code are mistakes in the configuration that fail every request,
// until the user acts.
var (
	// ErrUnreachable: nothing answers at the configured URL.
	ErrUnreachable = modelserver.ErrUnreachable
	// ErrModelNotFound: the server does not have the configured model.
	// Nothing is ever downloaded by grimoire.
	ErrModelNotFound = modelserver.ErrModelNotFound
	// ErrUnauthorized: the server refused the API key, or wants one.
	ErrUnauthorized = modelserver.ErrUnauthorized
	// ErrNotReranker: the server answers, but does not rerank: llama.cpp's
	// server started without --reranking, an embedding model behind TEI or
	// vLLM, or a URL whose /rerank is not there.
	ErrNotReranker error = fault.Errorf(fault.Invalid, "not a reranker")
	// ErrTooLong: the question and a passage are longer together than the
	// model takes. The server refused them rather than cutting them, and
	// nothing was reranked.
	ErrTooLong = modelserver.ErrTooLong
)

// Reranker re-scores passages with the configured server's model. It
// reaches the server on first use, and again after a failure to; it is
// safe for concurrent use.
type Reranker struct {
	cfg Config
	log *slog.Logger

	mu  sync.Mutex
	srv server // nil until reached
}

// server is one wire format, connected.
type server interface {
	// scores returns the server's score of each passage, in the order of
	// passages.
	scores(ctx context.Context, query string, passages []string) ([]float64, error)
	// info describes the server's model; Logits may change after a call
	// to scores shows the scores to be logits.
	info() serverInfo
}

// Name is the configured "provider/model", as Config.Name.
func (r *Reranker) Name() string { return r.cfg.Name() }

// Rerank scores each passage for query, returning the scores in the order
// of passages. The passages are sent as they are: one the model cannot
// take whole is an ErrTooLong error, never cut. Errors are prefixed with
// the section and provider ("[rerank] tei: ...").
func (r *Reranker) Rerank(ctx context.Context, query string, passages []string) ([]Score, error) {
	if len(passages) == 0 {
		return nil, nil
	}
	srv, err := r.connect(ctx)
	if err != nil {
		return nil, r.wrap(err)
	}
	raw, err := srv.scores(ctx, query, passages)
	if err != nil {
		return nil, r.wrap(explainTooLong(err))
	}
	logits := srv.info().Logits
	out := make([]Score, len(raw))
	for i, s := range raw {
		p := s
		if logits {
			p = sigmoid(s)
		}
		out[i] = Score{Relevance: s, Probability: p}
	}
	return out, nil
}

func (r *Reranker) wrap(err error) error {
	return fmt.Errorf("[%s] %s: %w", section, r.cfg.Provider, err)
}

// connect returns the connected server, reaching it first if needed. A
// failure is not kept: the next call tries again, for a server that was
// started late or restarted.
func (r *Reranker) connect(ctx context.Context) (server, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.srv != nil {
		return r.srv, nil
	}
	var srv server
	var err error
	switch r.cfg.Provider {
	case ProviderTEI:
		srv, err = connectTEI(ctx, r.cfg, r.log)
	default:
		srv, err = connectOpenAI(ctx, r.cfg, r.log)
	}
	if err != nil {
		return nil, err
	}
	i := srv.info()
	r.log.Debug("reranker connected", "provider", i.Provider, "model", i.Model, "logits", i.Logits)
	r.srv = srv
	return srv, nil
}

// explainTooLong says what to do about a passage the server refused as too
// long: search sends chunks whole, so the fix is a model, or a server
// setting, that takes them.
func explainTooLong(err error) error {
	var e *modelserver.Error
	if !errors.Is(err, ErrTooLong) || !errors.As(err, &e) {
		return err
	}
	// The limit is the model's context (TEI, vLLM) or the server's batch
	// (llama.cpp's --ubatch-size).
	limit := "what the server takes"
	if e.Limit > 0 {
		limit = fmt.Sprintf("the %d tokens the server takes", e.Limit)
	}
	e.Message = fmt.Sprintf("a passage and the question are longer than %s: %s", limit, e.Message)
	e.Hint = "passages are sent whole, never cut: use a reranker that takes longer inputs " +
		"(bge-reranker-v2-m3 takes 8192 tokens; llama-server needs --ubatch-size as large), " +
		"or lower [chunking] chunk_tokens and run grimoire rebuild"
	return err
}

// sigmoid maps a logit to a probability, without overflow for large ones.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// checkScores refuses scores that are not numbers: they would order
// passages arbitrarily.
func checkScores(scores []float64) error {
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return fmt.Errorf("malformed /rerank response: score %d is %v", i, s)
		}
	}
	return nil
}
