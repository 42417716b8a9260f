package rerank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/grimoire-search/grimoire/model/modelserver"
)

// openAI reranks with the /rerank of an OpenAI-compatible server: llama.cpp's
// server, vLLM, or a Jina- or Cohere-compatible API.
type openAI struct {
	c     *modelserver.Client
	model string
	log   *slog.Logger
	// logits: the server's scores are logits, not probabilities. The
	// format does not say which; see connectOpenAI.
	logits atomic.Bool
}

// The probe is a question with one passage that answers it and one that
// has nothing to do with it. A model that gives logits scores the second
// far below 0; one that gives probabilities scores both within 0 to 1.
var (
	probeQuery    = "What is the capital of France?"
	probePassages = []string{
		"Paris is the capital and largest city of France.",
		"Mitochondria are the organelles that supply a cell with energy.",
	}
)

// connectOpenAI finds the model (the configured one, or the one the server
// lists) and reranks the probe, which checks that the URL reranks and
// tells the scale of the scores.
func connectOpenAI(ctx context.Context, cfg Config, log *slog.Logger) (*openAI, error) {
	c, m, _, err := modelserver.ConnectOpenAI(ctx, section, strings.TrimSpace(cfg.Model), cfg.APIKeyEnv, cfg.options(log))
	if err != nil {
		return nil, err
	}
	h := c.Hints()
	h.NotFound = fmt.Sprintf("check [%s] url: llama.cpp's server and vLLM serve /v1/rerank (url = %q); "+
		"for TEI set [%s] provider = \"tei\"", section, DefaultOpenAIURL, section)
	o := &openAI{c: c.WithHints(h), model: m.ID, log: log}
	s, err := o.scores(ctx, probeQuery, probePassages)
	if err != nil {
		return nil, err
	}
	if s[0] <= s[1] {
		log.Warn("the reranker scores a passage that answers the probe question below one that does not; its scores look wrong (a bad model conversion?)",
			"model", m.ID, "answer", s[0], "unrelated", s[1])
	}
	return o, nil
}

func (o *openAI) info() serverInfo {
	return serverInfo{Provider: ProviderOpenAI, Model: o.model, Logits: o.logits.Load()}
}

type openAIRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	// TopN asks for every score: some servers return fewer by default.
	TopN            int  `json:"top_n"`
	ReturnDocuments bool `json:"return_documents"`
}

// scores reranks the passages in one request. A score outside 0 to 1 shows
// the server's scores to be logits, from then on.
func (o *openAI) scores(ctx context.Context, query string, passages []string) ([]float64, error) {
	req := openAIRequest{Model: o.model, Query: query, Documents: passages, TopN: len(passages)}
	var out []float64
	err := o.c.Do(ctx, http.MethodPost, "/rerank", req, func(body []byte, _ string) error {
		var err error
		out, err = parseOpenAIRerank(body, len(passages))
		return err
	})
	if err != nil {
		return nil, notReranker(err, "start llama-server with --reranking and a reranker model, or serve a reranker with vLLM (vllm serve BAAI/bge-reranker-v2-m3)")
	}
	if !o.logits.Load() && !probabilities(out) {
		o.logits.Store(true)
		o.log.Debug("the reranker's scores are logits", "model", o.model)
	}
	return out, nil
}

// probabilities reports whether every score lies within 0 to 1.
func probabilities(scores []float64) bool {
	for _, s := range scores {
		if s < 0 || s > 1 {
			return false
		}
	}
	return true
}

// parseOpenAIRerank reads a /rerank response for n documents: {results:
// [{index, relevance_score}]}, best first, put back in the order of the
// documents.
func parseOpenAIRerank(body []byte, n int) ([]float64, error) {
	var r struct {
		Results []struct {
			Index          *int     `json:"index"`
			RelevanceScore *float64 `json:"relevance_score"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("malformed /rerank response: %w", err)
	}
	if len(r.Results) != n {
		return nil, fmt.Errorf("malformed /rerank response: %d results for %d documents", len(r.Results), n)
	}
	out := make([]float64, n)
	seen := make([]bool, n)
	for _, res := range r.Results {
		if res.Index == nil || res.RelevanceScore == nil {
			return nil, errors.New("malformed /rerank response: a result without index or relevance_score")
		}
		i := *res.Index
		if i < 0 || i >= n || seen[i] {
			return nil, fmt.Errorf("malformed /rerank response: index %d out of range or repeated", i)
		}
		seen[i], out[i] = true, *res.RelevanceScore
	}
	return out, checkScores(out)
}

// unsupported matches how servers say they do not rerank: llama.cpp's
// "This server does not support reranking", vLLM's refusal of a model
// without a score head, TEI's "model is not a re-ranker model".
var unsupported = regexp.MustCompile(`(?i)(does ?n[o']t support|not support(ed)?|unsupported)\W.{0,40}(re-?rank|scor)` +
	`|(re-?rank|scor)\w*\W.{0,40}(not supported|unsupported)` +
	`|not an? re-?rank`)

// notReranker marks a refusal that says the URL does not rerank (no such
// endpoint, or a server that says so) as ErrNotReranker: a mistake in the
// configuration, with the fix. A 404 keeps the client's hint about the URL.
func notReranker(err error, hint string) error {
	var e *modelserver.Error
	if !errors.As(err, &e) || e.Kind != nil {
		return err
	}
	switch {
	case e.Status == http.StatusNotFound || e.Status == http.StatusMethodNotAllowed:
		e.Kind = ErrNotReranker
	case strings.Contains(e.Message, "missing field `texts`"):
		// TEI's answer to a request in the other format.
		e.Kind = ErrNotReranker
		e.Hint = fmt.Sprintf("this is a TEI server: set [%s] provider = \"tei\"", section)
	case e.Status == http.StatusNotImplemented || unsupported.MatchString(e.Message):
		e.Kind = ErrNotReranker
		if hint != "" {
			e.Hint = hint
		}
	}
	return err
}
