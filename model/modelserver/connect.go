package modelserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/fault"
)

// Where the servers are looked for when the configuration does not say.
// llama.cpp's server listens on 8080 and serves the OpenAI API under /v1, as
// does TEI's usual container mapping; LM Studio is at
// http://localhost:1234/v1 and vLLM at http://localhost:8000/v1.
const (
	DefaultOllamaURL       = "http://localhost:11434"
	DefaultOpenAIURL       = "http://localhost:8080/v1"
	DefaultOpenAIAPIKeyEnv = "OPENAI_API_KEY"
)

// CheckProvider returns nil when provider is one of known, else an
// fault.Invalid error that names the configuration section and the
// choices: `[embedding] provider = "x": want "builtin", "ollama" or "openai"`.
func CheckProvider(section, provider string, known ...string) error {
	if slices.Contains(known, provider) {
		return nil
	}
	q := make([]string, len(known))
	for i, k := range known {
		q[i] = strconv.Quote(k)
	}
	want := strings.Join(q, ", ")
	if n := len(q); n > 1 {
		want = strings.Join(q[:n-1], ", ") + " or " + q[n-1]
	}
	return fault.Errorf(fault.Invalid, "[%s] provider = %q: want %s", section, provider, want)
}

// ConnectOllama returns a client for the Ollama server at o.URL (default
// DefaultOllamaURL) and the model named model, as the server lists it and
// /api/show describes it. Errors name the configuration section and give
// o.Hints (OllamaHints, usually). Nothing answering fails at once with
// ErrUnreachable; a model the server lacks fails with ErrModelNotFound,
// naming the models it has. A server that cannot describe the model is
// logged, and the model returned as listed: its capabilities and context
// are unknown.
func ConnectOllama(ctx context.Context, section, model string, o Options) (*Client, OllamaModel, error) {
	if o.URL == "" {
		o.URL = DefaultOllamaURL
	}
	o.Server = "ollama"
	c, err := New(o)
	if err != nil {
		return nil, OllamaModel{}, fmt.Errorf("[%s] url: %w", section, err)
	}
	models, err := OllamaTags(ctx, c)
	if err != nil {
		return nil, OllamaModel{}, err
	}
	m, ok := FindOllamaModel(models, model)
	if !ok {
		msg := fmt.Sprintf("no model %q", model)
		if names := OllamaNames(models); len(names) > 0 {
			msg += fmt.Sprintf(" (it has %s)", strings.Join(names, ", "))
		}
		return nil, OllamaModel{}, NewError(c, ErrModelNotFound, msg, o.Hints.ModelNotFound)
	}
	show, err := OllamaShow(ctx, c, m.Name)
	switch {
	case errors.Is(err, ErrModelNotFound) || ctx.Err() != nil:
		return nil, OllamaModel{}, err
	case err != nil:
		c.log.Warn("ollama did not describe the model; its capabilities and context length are unknown", "model", m.Name, "err", err)
		return c, m, nil
	}
	return c, show, nil
}

// ConnectOpenAI returns a client for the OpenAI-compatible server at o.URL
// (default DefaultOpenAIURL), which sends the API key of the environment
// variable keyEnv (default DefaultOpenAIAPIKeyEnv) when it is set, and the
// model to use: model, or when it is empty the one model the server lists.
// listed says whether the server lists it; the list is for hints and the
// context length only, since not every server has it, and llama.cpp and TEI
// serve their one model whatever name they are sent. The client's hints
// (OpenAIHints) and header are set here. Errors name the configuration
// section; nothing answering fails at once with ErrUnreachable, a refused
// key with ErrUnauthorized, no model to choose with ErrNoModel.
func ConnectOpenAI(ctx context.Context, section, model, keyEnv string, o Options) (c *Client, m OpenAIModel, listed bool, err error) {
	if o.URL == "" {
		o.URL = DefaultOpenAIURL
	}
	if keyEnv == "" {
		keyEnv = DefaultOpenAIAPIKeyEnv
	}
	o.Server = "openai-compatible server"
	o.Header = bearer(keyEnv)
	o.Hints = OpenAIHints(section, keyEnv, nil)
	if c, err = New(o); err != nil {
		return nil, m, false, fmt.Errorf("[%s] url: %w", section, err)
	}
	models, err := OpenAIModels(ctx, c)
	if err != nil {
		if errors.Is(err, ErrUnreachable) || errors.Is(err, ErrUnauthorized) || ctx.Err() != nil {
			return nil, m, false, err
		}
		c.log.Debug("server does not list its models", "url", c.BaseURL(), "err", err)
	}
	ids := OpenAIIDs(models)
	if model == "" {
		if len(ids) != 1 {
			msg := fmt.Sprintf("no [%s] model set", section)
			if len(ids) > 1 {
				msg += fmt.Sprintf(" and the server has several (%s)", strings.Join(ids, ", "))
			}
			return nil, m, false, NewError(c, ErrNoModel, msg, fmt.Sprintf("set [%s] model", section))
		}
		model = ids[0]
	}
	m, listed = FindOpenAIModel(models, model)
	m.ID = model
	return c.WithHints(OpenAIHints(section, keyEnv, ids)), m, listed, nil
}

// bearer returns the header that sends the API key in the environment
// variable keyEnv, when it is set; the key is never read from a file.
func bearer(keyEnv string) http.Header {
	h := http.Header{}
	if key := os.Getenv(keyEnv); key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return h
}

// DetectOllama lists the models of the Ollama server at url that keep
// accepts, by the names `ollama list` shows, without ":latest". An
// unreachable server is ErrUnreachable, at once; nothing is retried, so that
// `grimoire init` stays quick.
func DetectOllama(ctx context.Context, url string, keep func(OllamaModel) bool) ([]string, error) {
	c, err := New(Options{
		URL: url, Server: "ollama", Transport: Transport{Timeout: 10 * time.Second, Retries: -1},
		Hints: Hints{Unreachable: "start it with 'ollama serve'"},
	})
	if err != nil {
		return nil, err
	}
	models, err := OllamaModels(ctx, c)
	if err != nil {
		return nil, err
	}
	var out []OllamaModel
	for _, m := range models {
		if keep(m) {
			out = append(out, m)
		}
	}
	return OllamaNames(out), nil
}
