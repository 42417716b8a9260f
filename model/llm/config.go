package llm

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/grimoire-search/grimoire/model"
	"github.com/grimoire-search/grimoire/model/modelserver"
)

// The providers, as the configuration and Info name them.
const (
	// ProviderNone is no language model: chunks keep their heading path as
	// their only context.
	ProviderNone = "none"
	// ProviderOllama is a chat model served by Ollama.
	ProviderOllama = "ollama"
	// ProviderOpenAI is a chat model behind any server that speaks the
	// OpenAI chat completions API.
	ProviderOpenAI = "openai"
)

// section is the configuration section that errors and hints name.
const section = "context"

// Config says which language model writes the contexts: the [context]
// section of the configuration. Zero values take the defaults, except
// Provider, which must be set.
type Config struct {
	// Provider is ProviderNone, ProviderOllama or ProviderOpenAI. The other
	// fields are for the last two only.
	Provider string
	// Model names the server's model. For Ollama it is the name `ollama
	// list` shows, default DefaultOllamaModel; it is never pulled. An
	// OpenAI-compatible server is sent it with every request; when it is
	// empty, the one model the server lists is used.
	Model string
	// URL is Ollama's (default DefaultOllamaURL), or the base of the
	// OpenAI API, requests going to URL+"/chat/completions" (default
	// DefaultOpenAIURL).
	URL string
	// APIKeyEnv names the environment variable holding an OpenAI-compatible
	// server's API key, default DefaultOpenAIAPIKeyEnv; the key is sent
	// only when it is set, and is never read from a file.
	APIKeyEnv string
	// ContextLength is the context of a request, prompt and reply, in
	// tokens. Ollama is asked for it (options.num_ctx): default
	// DefaultNumCtx, lowered to the model's trained context if that is
	// smaller. An OpenAI-compatible server sets its own, and refuses a
	// prompt that does not fit with ErrTooLong; there it is only reported
	// in Info, by default what the server lists (vLLM's max_model_len) or
	// unknown.
	ContextLength int
	// MaxTokens caps each reply (Ollama's num_predict, OpenAI's
	// max_tokens), default DefaultMaxTokens.
	MaxTokens int
	// Think, when set, is sent to Ollama as "think": false turns off the
	// reasoning of thinking models (qwen3, deepseek-r1), which costs
	// minutes per call on a CPU for no better summary. Unset leaves the
	// model's default; the reasoning is dropped from replies either way.
	Think *bool
	// Transport tunes the requests; Timeout defaults to DefaultTimeout.
	modelserver.Transport
}

// Validate reports whether c names a provider of this package, as an
// fault.Invalid error.
func (c Config) Validate() error {
	return modelserver.CheckProvider(section, c.Provider, ProviderNone, ProviderOllama, ProviderOpenAI)
}

// New returns the contextualizer c configures, or nil for ProviderNone. Its
// model has checked its server once (see Ollama and OpenAI); errors are
// prefixed with the section and provider ("[context] ollama: ..."). An
// unknown provider is the error of Validate.
func New(ctx context.Context, c Config, log *slog.Logger) (*Contextualizer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var m Model
	var err error
	switch c.Provider {
	case ProviderOllama:
		m, err = newOllama(ctx, c, log)
	case ProviderOpenAI:
		m, err = newOpenAI(ctx, c, log)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("[%s] %s: %w", section, c.Provider, err)
	}
	return &Contextualizer{Model: m}, nil
}

// Stamp names the model and the prompts that write c's contexts, for the
// index: contexts written under another stamp are detected.
func (c Contextualizer) Stamp() model.ContextStamp {
	i := c.Model.Info()
	return model.ContextStamp{Provider: i.Provider, Model: i.Model, Prompt: PromptVersion}
}

// options are the client options of a server-backed provider; the
// server's kind sets the rest.
func (c Config) options(log *slog.Logger) modelserver.Options {
	return modelserver.Options{URL: c.URL, Transport: c.Transport.WithTimeout(DefaultTimeout), Logger: log}
}

func (c Config) maxTokens() int {
	if c.MaxTokens <= 0 {
		return DefaultMaxTokens
	}
	return c.MaxTokens
}

// logger returns log, or one that discards when it is nil.
func logger(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}
