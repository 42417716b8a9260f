package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/ingest/modelserver"
)

// OpenAI-compatible defaults. llama.cpp's server listens on 8080 and serves
// the API under /v1, as does TEI's usual container mapping; LM Studio is at
// http://localhost:1234/v1 and vLLM at http://localhost:8000/v1.
const (
	DefaultOpenAIURL       = "http://localhost:8080/v1"
	DefaultOpenAIAPIKeyEnv = "OPENAI_API_KEY"
)

// OpenAIOptions configure an embedder for a server that speaks the OpenAI
// embeddings API. Zero values take the defaults.
type OpenAIOptions struct {
	// URL is the API's base, requests go to URL+"/embeddings"; default
	// DefaultOpenAIURL.
	URL string
	// Model is sent with every request. When empty, the one model the
	// server lists is used; a server that lists several needs it set.
	Model string
	// APIKeyEnv names the environment variable holding the API key, default
	// DefaultOpenAIAPIKeyEnv. The key is sent as a bearer token only when
	// the variable is set; it is never read from a file.
	APIKeyEnv string
	// BatchSize is the number of texts per request, default DefaultBatchSize.
	BatchSize int
	// ContextLength is the model's context in tokens. The OpenAI API does
	// not say, so by default it is what the server lists (vLLM's
	// max_model_len) or unknown; over-long texts are refused by the server
	// either way.
	ContextLength int
	// Prefixes, when set, replace the prefixes known for the model's family.
	Prefixes *Prefixes
	// Timeout, Retries, Backoff, MaxBackoff, HTTPClient and Logger are as in
	// OllamaOptions.
	Timeout             time.Duration
	Retries             int
	Backoff, MaxBackoff time.Duration
	HTTPClient          *http.Client
	Logger              *slog.Logger
}

// OpenAI embeds with an OpenAI-compatible server (POST {url}/embeddings):
// LM Studio, llama.cpp's server, vLLM, TEI. It is safe for concurrent use.
type OpenAI struct {
	c     *modelserver.Client
	model string
	served
}

var _ Embedder = (*OpenAI)(nil)

// NewOpenAI checks the server once and embeds a probe text to learn the
// vector size, so that Info is exact. An unreachable server fails at once
// with ErrUnreachable, a model the server does not have with
// ErrModelNotFound.
func NewOpenAI(ctx context.Context, o OpenAIOptions) (*OpenAI, error) {
	if o.URL == "" {
		o.URL = DefaultOpenAIURL
	}
	if o.APIKeyEnv == "" {
		o.APIKeyEnv = DefaultOpenAIAPIKeyEnv
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	o.Model = strings.TrimSpace(o.Model)
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	header := http.Header{}
	if key := os.Getenv(o.APIKeyEnv); key != "" {
		header.Set("Authorization", "Bearer "+key)
	}
	c, err := modelserver.New(modelserver.Options{
		URL: o.URL, Server: "openai-compatible server", Timeout: o.Timeout, Retries: o.Retries,
		Backoff: o.Backoff, MaxBackoff: o.MaxBackoff, HTTPClient: o.HTTPClient,
		Logger: log, Header: header, Hints: modelserver.OpenAIHints("embedding", o.APIKeyEnv, nil),
	})
	if err != nil {
		return nil, fmt.Errorf("[embedding] url: %w", err)
	}
	// The model list is for hints and the context length only: not every
	// server has it, and llama.cpp and TEI embed with their one model
	// whatever name they are sent.
	models, err := modelserver.OpenAIModels(ctx, c)
	if err != nil {
		if errors.Is(err, ErrUnreachable) || errors.Is(err, ErrUnauthorized) || ctx.Err() != nil {
			return nil, err
		}
		log.Debug("server does not list its models", "url", c.BaseURL(), "err", err)
	}
	ids := modelserver.OpenAIIDs(models)
	if o.Model == "" {
		if len(ids) != 1 {
			msg := "no [embedding] model set"
			if len(ids) > 1 {
				msg += fmt.Sprintf(" and the server has several (%s)", strings.Join(ids, ", "))
			}
			return nil, modelserver.NewError(c, nil, msg, "set [embedding] model")
		}
		o.Model = ids[0]
	}
	c = c.WithHints(modelserver.OpenAIHints("embedding", o.APIKeyEnv, ids))
	limit := o.ContextLength
	if m, ok := modelserver.FindOpenAIModel(models, o.Model); ok && limit <= 0 {
		limit = m.MaxModelLen
	}
	e := &OpenAI{c: c, model: o.Model, served: served{pre: resolvePrefixes(o.Model, o.Prefixes)}}
	e.b = batcher{size: o.BatchSize, limit: limit, send: e.request}
	vs, err := e.b.embed(ctx, []string{"grimoire"}, e.pre.Document)
	if err != nil {
		return nil, fmt.Errorf("probe embedding with %s: %w", o.Model, err)
	}
	e.b.dim = len(vs[0])
	e.info = Info{Provider: "openai", Model: o.Model, Dim: e.b.dim, Prefix: e.pre.Scheme, ContextLength: limit}
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
