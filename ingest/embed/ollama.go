package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/ingest/modelserver"
)

// Ollama defaults.
const (
	DefaultOllamaURL   = "http://localhost:11434"
	DefaultOllamaModel = "nomic-embed-text"
	// maxOllamaContext caps the num_ctx asked of Ollama. Chunks are a few
	// hundred tokens; some embedding models are trained for 32k, and a
	// context that long costs gigabytes of memory for nothing.
	maxOllamaContext = 8192
)

// OllamaOptions configure an Ollama embedder. Zero values take the defaults.
type OllamaOptions struct {
	// URL is the server's, default DefaultOllamaURL.
	URL string
	// Model is the model's name as `ollama list` shows it, default
	// DefaultOllamaModel. It is never pulled: a missing model is an error
	// that says how to pull it.
	Model string
	// BatchSize is the number of texts per request, default DefaultBatchSize.
	BatchSize int
	// ContextLength, when set, is the context (num_ctx) asked of Ollama, in
	// tokens. By default it is the model's trained context from /api/show,
	// capped at 8192.
	ContextLength int
	// Prefixes, when set, replace the query and document prefixes known for
	// the model's family (see PrefixesFor).
	Prefixes *Prefixes
	// Timeout bounds each request, default DefaultTimeout.
	Timeout time.Duration
	// Retries is the number of further attempts after a transient failure
	// (429, 5xx, timeout, dropped connection): 0 means 4, negative none.
	Retries int
	// Backoff is the first wait between attempts (default 500 ms), doubled
	// per retry up to MaxBackoff (default 8 s), with jitter.
	Backoff, MaxBackoff time.Duration
	// HTTPClient, when set, replaces the default client.
	HTTPClient *http.Client
	// Logger is told about retries; nil discards.
	Logger *slog.Logger
}

// Ollama embeds with a model served by Ollama (POST /api/embed). It is safe
// for concurrent use.
type Ollama struct {
	c      *modelserver.Client
	model  string // as sent to the server
	numCtx int    // sent as options.num_ctx; 0 to leave Ollama's
	served
}

var _ Embedder = (*Ollama)(nil)

// ollamaHints returns what the errors of a client for model say to do.
func ollamaHints(model string) modelserver.Hints {
	return modelserver.Hints{
		Unreachable:   "start it with 'ollama serve', or check [embedding] url",
		ModelNotFound: fmt.Sprintf("run 'ollama pull %s'", model),
		NotFound:      "check [embedding] url (the embeddings API /api/embed needs Ollama 0.3.4 or later)",
	}
}

// NewOllama checks the server once (it answers, it has the model, the model
// embeds) and embeds a probe text to learn the vector size, so that Info is
// exact. An unreachable server fails at once, within the dial timeout, with
// ErrUnreachable; a missing model with ErrModelNotFound and the `ollama
// pull` command.
func NewOllama(ctx context.Context, o OllamaOptions) (*Ollama, error) {
	if o.URL == "" {
		o.URL = DefaultOllamaURL
	}
	if o.Model = strings.TrimSpace(o.Model); o.Model == "" {
		o.Model = DefaultOllamaModel
	}
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultBatchSize
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c, err := modelserver.New(modelserver.Options{
		URL: o.URL, Server: "ollama", Timeout: o.Timeout, Retries: o.Retries,
		Backoff: o.Backoff, MaxBackoff: o.MaxBackoff, HTTPClient: o.HTTPClient,
		Logger: log, Hints: ollamaHints(o.Model),
	})
	if err != nil {
		return nil, fmt.Errorf("[embedding] url: %w", err)
	}
	models, err := modelserver.OllamaTags(ctx, c)
	if err != nil {
		return nil, err
	}
	m, ok := modelserver.FindOllamaModel(models, o.Model)
	if !ok {
		msg := fmt.Sprintf("no model %q", o.Model)
		if names := modelserver.OllamaNames(models); len(names) > 0 {
			msg += fmt.Sprintf(" (it has %s)", strings.Join(names, ", "))
		}
		return nil, modelserver.NewError(c, ErrModelNotFound, msg, ollamaHints(o.Model).ModelNotFound)
	}
	show, err := modelserver.OllamaShow(ctx, c, m.Name)
	switch {
	case errors.Is(err, ErrModelNotFound) || ctx.Err() != nil:
		return nil, err
	case err != nil:
		// Only the context length is lost; the probe below still checks
		// that the model embeds.
		log.Warn("ollama did not describe the model; its context length is unknown", "model", m.Name, "err", err)
	}
	if len(show.Capabilities) > 0 && !show.Has("embedding") {
		return nil, modelserver.NewError(c, ErrNotEmbeddingModel,
			fmt.Sprintf("%q is not an embedding model (it can: %s)", o.Model, strings.Join(show.Capabilities, ", ")),
			"set [embedding] model to an embedding model, such as nomic-embed-text ('ollama pull nomic-embed-text')")
	}
	e := &Ollama{c: c, model: m.Name, served: served{pre: resolvePrefixes(o.Model, o.Prefixes)}}
	limit := o.ContextLength
	switch {
	case limit > 0:
		e.numCtx = limit
	case show.ContextLength > 0:
		limit = min(show.ContextLength, maxOllamaContext)
		e.numCtx = limit
	default:
		// Without the trained context, what the Modelfile sets is what
		// Ollama uses; leave it be.
		limit = show.NumCtx
	}
	e.b = batcher{size: o.BatchSize, limit: limit, send: e.request}
	vs, err := e.b.embed(ctx, []string{"grimoire"}, e.pre.Document)
	if err != nil {
		return nil, fmt.Errorf("probe embedding with %s: %w", o.Model, err)
	}
	e.b.dim = len(vs[0])
	e.info = Info{
		Provider:      "ollama",
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
	c, err := modelserver.New(modelserver.Options{
		URL: url, Server: "ollama", Timeout: 10 * time.Second, Retries: -1,
		Hints: modelserver.Hints{Unreachable: "start it with 'ollama serve'"},
	})
	if err != nil {
		return nil, err
	}
	models, err := modelserver.OllamaModels(ctx, c)
	if err != nil {
		return nil, err
	}
	var out []modelserver.OllamaModel
	for _, m := range models {
		if modelserver.IsEmbeddingModel(m) {
			out = append(out, m)
		}
	}
	return modelserver.OllamaNames(out), nil
}
