package embed

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/grimoire-search/grimoire/model/modelserver"
)

// The providers, as the configuration and Info name them.
const (
	// ProviderBuiltin is the embedder of this package: offline, nothing to
	// install.
	ProviderBuiltin = "builtin"
	// ProviderOllama is a model served by Ollama.
	ProviderOllama = "ollama"
	// ProviderOpenAI is a model behind any server that speaks the OpenAI
	// embeddings API.
	ProviderOpenAI = "openai"
)

// section is the configuration section that errors and hints name.
const section = "embedding"

// Config says which embedder to use: the [embedding] section of the
// configuration. Zero values take the defaults, except Provider, which
// must be set.
type Config struct {
	// Provider is ProviderBuiltin, ProviderOllama or ProviderOpenAI. The
	// other fields are for the server-backed providers only.
	Provider string
	// Model names the server's model. For Ollama it is the name `ollama
	// list` shows, default DefaultOllamaModel; it is never pulled: a
	// missing model is an error that says how to pull it. An
	// OpenAI-compatible server is sent it with every request; when it is
	// empty, the one model the server lists is used, and a server that
	// lists several needs it set.
	Model string
	// URL is Ollama's (default DefaultOllamaURL), or the base of the
	// OpenAI API, requests going to URL+"/embeddings" (default
	// DefaultOpenAIURL).
	URL string
	// APIKeyEnv names the environment variable holding an OpenAI-compatible
	// server's API key, default DefaultOpenAIAPIKeyEnv. The key is sent as
	// a bearer token only when the variable is set; it is never read from
	// a file.
	APIKeyEnv string
	// Prefixes, when set, replace the query and document prefixes known for
	// the model's family (see PrefixesFor).
	Prefixes *Prefixes
	// BatchSize is the number of texts per request, default DefaultBatchSize.
	BatchSize int
	// ContextLength, when set, is the model's context in tokens. Ollama is
	// asked for it (num_ctx); by default that is the model's trained
	// context from /api/show, capped at 8192. The OpenAI API does not say,
	// so by default it is what the server lists (vLLM's max_model_len) or
	// unknown; over-long texts are refused by the server either way.
	ContextLength int
	// Transport tunes the requests; Timeout defaults to DefaultTimeout.
	modelserver.Transport
}

// Validate reports whether c names a provider of this package, as an
// fault.Invalid error.
func (c Config) Validate() error {
	return modelserver.CheckProvider(section, c.Provider, ProviderBuiltin, ProviderOllama, ProviderOpenAI)
}

// Name names the model c configures, "provider/model", without connecting
// to its server, so that it can be shown while the server is down. An
// OpenAI-compatible server's model, when not set, is the server's to
// choose, and is left blank: "openai/".
func (c Config) Name() string {
	switch c.Provider {
	case ProviderBuiltin:
		return ProviderBuiltin + "/" + builtinModel
	case ProviderOllama:
		if c.Model == "" {
			return ProviderOllama + "/" + DefaultOllamaModel
		}
	}
	return c.Provider + "/" + c.Model
}

// New returns the embedder c configures. A server-backed one has checked
// its server and model once (see Ollama and OpenAI); its errors are
// prefixed with the section and provider ("[embedding] ollama: ..."). An
// unknown provider is the error of Validate.
func New(ctx context.Context, c Config, log *slog.Logger) (Embedder, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var e Embedder
	var err error
	switch c.Provider {
	case ProviderOllama:
		e, err = newOllama(ctx, c, log)
	case ProviderOpenAI:
		e, err = newOpenAI(ctx, c, log)
	default:
		return NewBuiltin(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("[%s] %s: %w", section, c.Provider, err)
	}
	return e, nil
}

// options are the client options of a server-backed provider; the
// server's kind sets the rest.
func (c Config) options(log *slog.Logger) modelserver.Options {
	return modelserver.Options{URL: c.URL, Transport: c.Transport.WithTimeout(DefaultTimeout), Logger: log}
}

func (c Config) batchSize() int {
	if c.BatchSize <= 0 {
		return DefaultBatchSize
	}
	return c.BatchSize
}
