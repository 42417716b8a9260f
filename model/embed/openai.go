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

// OpenAI-compatible defaults: where the server is looked for, and the
// environment variable that holds its API key.
const (
	DefaultOpenAIURL       = modelserver.DefaultOpenAIURL
	DefaultOpenAIAPIKeyEnv = modelserver.DefaultOpenAIAPIKeyEnv
)

// OpenAI embeds with an OpenAI-compatible server (POST {url}/embeddings):
// LM Studio, llama.cpp's server, vLLM, TEI. It is safe for concurrent use.
type OpenAI struct {
	c     *modelserver.Client
	model string
	served
}

var _ Embedder = (*OpenAI)(nil)

// newOpenAI checks the server once and embeds a probe text to learn the
// vector size, so that Info is exact. An unreachable server fails at once
// with ErrUnreachable, a model the server does not have with
// ErrModelNotFound.
func newOpenAI(ctx context.Context, cfg Config, log *slog.Logger) (*OpenAI, error) {
	c, m, _, err := modelserver.ConnectOpenAI(ctx, section, strings.TrimSpace(cfg.Model), cfg.APIKeyEnv, cfg.options(log))
	if err != nil {
		return nil, err
	}
	limit := cfg.ContextLength
	if limit <= 0 {
		limit = m.MaxModelLen
	}
	e := &OpenAI{c: c, model: m.ID, served: served{pre: resolvePrefixes(m.ID, cfg.Prefixes)}}
	if err := e.probe(ctx, cfg.batchSize(), limit, m.ID, e.request); err != nil {
		return nil, err
	}
	e.info = Info{Provider: ProviderOpenAI, Model: m.ID, Dim: e.b.dim, Prefix: e.pre.Scheme, ContextLength: limit}
	return e, nil
}

type openAIEmbedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
	// EncodingFormat "float": some servers default to base64.
	EncodingFormat string `json:"encoding_format"`
}

func (e *OpenAI) request(ctx context.Context, texts []string) ([][]float32, error) {
	req := openAIEmbedRequest{Model: e.model, Input: texts, EncodingFormat: "float"}
	var vs [][]float32
	err := e.c.Do(ctx, http.MethodPost, "/embeddings", req, func(body []byte, _ string) error {
		var err error
		vs, err = parseOpenAIEmbed(body, len(texts))
		return err
	})
	return vs, err
}

// parseOpenAIEmbed reads the body of an /embeddings response for n inputs.
// Vectors are placed by their index, which the API does not promise to send
// in order; a server that leaves index out is taken to send them in order.
func parseOpenAIEmbed(body []byte, n int) ([][]float32, error) {
	var r struct {
		Data []struct {
			Index     *int            `json:"index"`
			Embedding json.RawMessage `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("malformed /embeddings response: %w", err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("malformed /embeddings response: %d embeddings for %d inputs", len(r.Data), n)
	}
	out := make([][]float32, n)
	for pos, d := range r.Data {
		i := pos
		if d.Index != nil {
			i = *d.Index
		}
		if i < 0 || i >= n || out[i] != nil {
			return nil, fmt.Errorf("malformed /embeddings response: index %d out of range or repeated", i)
		}
		var v []float32
		if err := json.Unmarshal(d.Embedding, &v); err != nil {
			if len(d.Embedding) > 0 && d.Embedding[0] == '"' {
				return nil, errors.New("the server sent base64 embeddings although floats were asked for")
			}
			return nil, fmt.Errorf("malformed /embeddings response: embedding %d: %w", i, err)
		}
		if v == nil {
			v = []float32{}
		}
		out[i] = v
	}
	return out, nil
}
