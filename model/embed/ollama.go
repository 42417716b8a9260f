package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/grimoire-search/grimoire/model/modelserver"
)

// Ollama defaults.
const (
	DefaultOllamaURL   = modelserver.DefaultOllamaURL
	DefaultOllamaModel = "nomic-embed-text"
	// maxOllamaContext caps the num_ctx asked of Ollama. Chunks are a few
	// hundred tokens; some embedding models are trained for 32k, and a
	// context that long costs gigabytes of memory for nothing.
	maxOllamaContext = 8192
)

// Ollama embeds with a model served by Ollama (POST /api/embed). It is safe
// for concurrent use.
type Ollama struct {
	c      *modelserver.Client
	model  string // as sent to the server
	numCtx int    // sent as options.num_ctx; 0 to leave Ollama's
	served
}

var _ Embedder = (*Ollama)(nil)

// newOllama checks the server once (it answers, it has the model, the model
// embeds) and embeds a probe text to learn the vector size, so that Info is
// exact. An unreachable server fails at once, within the dial timeout, with
// ErrUnreachable; a missing model with ErrModelNotFound and the `ollama
// pull` command.
func newOllama(ctx context.Context, cfg Config, log *slog.Logger) (*Ollama, error) {
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		model = DefaultOllamaModel
	}
	o := cfg.options(log)
	o.Hints = modelserver.OllamaHints(section, model)
	o.Hints.NotFound += " (the embeddings API /api/embed needs Ollama 0.3.4 or later)"
	c, m, err := modelserver.ConnectOllama(ctx, section, model, o)
	if err != nil {
		return nil, err
	}
	if len(m.Capabilities) > 0 && !m.Has("embedding") {
		return nil, modelserver.NewError(c, ErrNotEmbeddingModel,
			fmt.Sprintf("%q is not an embedding model (it can: %s)", model, strings.Join(m.Capabilities, ", ")),
			"set [embedding] model to an embedding model, such as nomic-embed-text ('ollama pull nomic-embed-text')")
	}
	e := &Ollama{c: c, model: m.Name, served: served{pre: resolvePrefixes(model, cfg.Prefixes)}}
	limit := cfg.ContextLength
	switch {
	case limit > 0:
		e.numCtx = limit
	case m.ContextLength > 0:
		limit = min(m.ContextLength, maxOllamaContext)
		e.numCtx = limit
	default:
		// Without the trained context, what the Modelfile sets is what
		// Ollama uses; leave it be.
		limit = m.NumCtx
	}
	if err := e.probe(ctx, cfg.batchSize(), limit, model, e.request); err != nil {
		return nil, err
	}
	e.info = Info{
		Provider:      ProviderOllama,
		Model:         modelserver.DisplayOllamaName(m.Name),
		Dim:           e.b.dim,
		Prefix:        e.pre.Scheme,
		ContextLength: limit,
	}
	return e, nil
}

type ollamaEmbedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
	// Truncate false makes an over-long input an error; by default Ollama
	// cuts it silently and the end of the chunk is never searchable.
	Truncate bool           `json:"truncate"`
	Options  map[string]any `json:"options,omitempty"`
}

func (e *Ollama) request(ctx context.Context, texts []string) ([][]float32, error) {
	req := ollamaEmbedRequest{Model: e.model, Input: texts}
	if e.numCtx > 0 {
		req.Options = map[string]any{"num_ctx": e.numCtx}
	}
	var vs [][]float32
	err := e.c.Do(ctx, http.MethodPost, "/api/embed", req, func(body []byte, _ string) error {
		var err error
		vs, err = parseOllamaEmbed(body)
		return err
	})
	return vs, err
}

// parseOllamaEmbed reads the body of a /api/embed response.
func parseOllamaEmbed(body []byte) ([][]float32, error) {
	var r struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("malformed /api/embed response: %w", err)
	}
	if r.Embeddings == nil {
		return nil, errors.New("malformed /api/embed response: no embeddings")
	}
	return r.Embeddings, nil
}

// Detect lists the embedding models of the Ollama server at url (for
// example DefaultOllamaURL), by the names `ollama list` shows, without
// ":latest". It tells embedding models from chat models by the capabilities
// of /api/show (Ollama 0.6.4 and later), else by the model family (BERT-like
// encoders only embed) or, failing that, the name. An unreachable server is
// ErrUnreachable, at once; nothing is retried, so that `grimoire init` stays
// quick.
func Detect(ctx context.Context, url string) ([]string, error) {
	return modelserver.DetectOllama(ctx, url, modelserver.IsEmbeddingModel)
}
