package rerank

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/grimoire-search/grimoire/model/modelserver"
)

// tei reranks with Hugging Face Text Embeddings Inference (POST /rerank).
type tei struct {
	c *modelserver.Client
	m modelserver.TEIModel
}

// maxInFlight bounds the requests one search sends a TEI server at once,
// when its batch limit splits the candidates.
const maxInFlight = 4

// connectTEI asks the server what it serves (GET /info): a reranker, and
// the configured model when one is set.
func connectTEI(ctx context.Context, cfg Config, log *slog.Logger) (*tei, error) {
	c, m, err := modelserver.ConnectTEI(ctx, section, cfg.APIKeyEnv, cfg.options(log))
	if err != nil {
		return nil, notReranker(err, "")
	}
	if m.Kind != "reranker" {
		return nil, modelserver.NewError(c, ErrNotReranker, fmt.Sprintf("it serves %s, a model of kind %q, not a reranker", m.ID, m.Kind),
			"start TEI with a reranker model, e.g. --model-id BAAI/bge-reranker-v2-m3")
	}
	if want := strings.TrimSpace(cfg.Model); want != "" && want != m.ID {
		return nil, modelserver.NewError(c, ErrModelNotFound, fmt.Sprintf("it serves %s, not %s", m.ID, want),
			fmt.Sprintf("TEI serves one model: set [%s] model = %q, or leave it empty", section, m.ID))
	}
	return &tei{c: c, m: m}, nil
}

func (t *tei) info() serverInfo {
	// Raw scores are asked for: logits, whatever the server's default.
	return serverInfo{Provider: ProviderTEI, Model: t.m.ID, Logits: true}
}

type teiRequest struct {
	Query string   `json:"query"`
	Texts []string `json:"texts"`
	// RawScores asks for the model's logits rather than TEI's sigmoid of
	// them, so that Relevance is the same kind of number as llama.cpp's.
	RawScores bool `json:"raw_scores"`
	// Truncate is sent false: a server started with --auto-truncate would
	// otherwise cut long passages without saying so.
	Truncate   bool `json:"truncate"`
	ReturnText bool `json:"return_text"`
}

// scores sends the passages in batches of the server's limit, a few at a
// time; the first failure stops the rest.
func (t *tei) scores(ctx context.Context, query string, passages []string) ([]float64, error) {
	size := t.m.MaxClientBatchSize
	if size <= 0 {
		size = len(passages)
	}
	out := make([]float64, len(passages))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxInFlight)
	for start := 0; start < len(passages); start += size {
		batch := passages[start:min(start+size, len(passages))]
		wg.Go(func() {
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-ctx.Done():
				return
			}
			req := teiRequest{Query: query, Texts: batch, RawScores: true}
			err := t.c.Do(ctx, http.MethodPost, "/rerank", req, func(body []byte, _ string) error {
				s, err := parseTEIRerank(body, len(batch))
				if err == nil {
					copy(out[start:], s)
				}
				return err
			})
			if err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return out, nil
}

// parseTEIRerank reads a /rerank response for n texts: a list of {index,
// score}, best first, which is put back in the order of the texts.
func parseTEIRerank(body []byte, n int) ([]float64, error) {
	var ranks []struct {
		Index *int     `json:"index"`
		Score *float64 `json:"score"`
	}
	if err := json.Unmarshal(body, &ranks); err != nil {
		return nil, fmt.Errorf("malformed /rerank response: %w", err)
	}
	out := make([]float64, n)
	seen := make([]bool, n)
	if len(ranks) != n {
		return nil, fmt.Errorf("malformed /rerank response: %d scores for %d texts", len(ranks), n)
	}
	for _, r := range ranks {
		if r.Index == nil || r.Score == nil {
			return nil, fmt.Errorf("malformed /rerank response: a rank without index or score")
		}
		i := *r.Index
		if i < 0 || i >= n || seen[i] {
			return nil, fmt.Errorf("malformed /rerank response: index %d out of range or repeated", i)
		}
		seen[i], out[i] = true, *r.Score
	}
	return out, checkScores(out)
}
