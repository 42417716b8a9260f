package rerank

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/model/modelserver"
)

// The providers, as the configuration names them. They are wire formats,
// not products: one reranker server speaks one of them.
const (
	// ProviderNone is no reranker: hits keep the order of the fusion.
	ProviderNone = "none"
	// ProviderTEI is Hugging Face Text Embeddings Inference: POST /rerank
	// with {query, texts}, answered by a bare list of {index, score}.
	ProviderTEI = "tei"
	// ProviderOpenAI is the /rerank that OpenAI-compatible servers add to
	// their API under /v1: llama.cpp's server (--reranking), vLLM, and the
	// Jina- and Cohere-compatible APIs. POST {url}/rerank with {model,
	// query, documents}, answered by {results: [{index, relevance_score}]}.
	ProviderOpenAI = "openai"
)

// Where a reranker is looked for when the configuration does not say. Not
// the embedding server's port (8080): one llama.cpp server cannot embed
// and rerank at once, so a reranker runs as a second server beside it.
const (
	DefaultTEIURL    = "http://localhost:8012"
	DefaultOpenAIURL = "http://localhost:8012/v1"
)

// DefaultTimeout bounds one request. Reranking the 50 candidates of a
// search with a 568M-parameter model (bge-reranker-v2-m3) takes seconds to
// tens of seconds on a laptop CPU; past a minute, search goes on without it.
const DefaultTimeout = time.Minute

// section is the configuration section that errors and hints name.
const section = "rerank"

// Config says which reranker to use: the [rerank] section of the
// configuration. Zero values take the defaults, except Provider, which
// must be set.
type Config struct {
	// Provider is ProviderNone, ProviderTEI or ProviderOpenAI.
	Provider string
	// Model names the server's model. An OpenAI-compatible server is sent
	// it with every request; when it is empty, the one model the server
	// lists is used. TEI serves one model: when Model is set it must be
	// that one.
	Model string
	// URL is TEI's address (default DefaultTEIURL), or the base of the
	// OpenAI-compatible API, requests going to URL+"/rerank" (default
	// DefaultOpenAIURL).
	URL string
	// APIKeyEnv names the environment variable holding the server's API
	// key, default modelserver.DefaultOpenAIAPIKeyEnv. The key is sent as
	// a bearer token only when the variable is set.
	APIKeyEnv string
	// Transport tunes the requests; Timeout defaults to DefaultTimeout,
	// and a failed request is not tried again unless Retries says so.
	modelserver.Transport
}

// Validate reports whether c names a provider of this package, as an
// fault.Invalid error.
func (c Config) Validate() error {
	return modelserver.CheckProvider(section, c.Provider, ProviderNone, ProviderTEI, ProviderOpenAI)
}

// Name names the reranker c configures, "provider/model", without
// connecting to its server; the model is blank when the server chooses it.
func (c Config) Name() string {
	return c.Provider + "/" + strings.TrimSpace(c.Model)
}

// New returns the reranker c configures, or nil for ProviderNone. It does
// not contact the server: that happens on the first Rerank, so that
// commands that never rerank (list, outline) do not wait on a model
// server, and a server started after grimoire serve is found.
func New(c Config, log *slog.Logger) (*Reranker, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Provider == ProviderNone {
		return nil, nil
	}
	if c.URL != "" {
		if _, err := modelserver.NormalizeURL(c.URL); err != nil {
			return nil, &fault.Error{Code: fault.Invalid, Msg: fmt.Sprintf("[%s] url", section), Err: err}
		}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Reranker{cfg: c, log: log}, nil
}

// options are the client options of c's server.
func (c Config) options(log *slog.Logger) modelserver.Options {
	t := c.Transport.WithTimeout(DefaultTimeout)
	if t.Retries == 0 {
		// A person waits for the reranker, and the search has an answer
		// without it: a failed request is not tried again (a connection
		// dropped while idle is redialled by net/http all the same).
		t.Retries = -1
	}
	url := c.URL
	if url == "" {
		url = DefaultOpenAIURL
		if c.Provider == ProviderTEI {
			url = DefaultTEIURL
		}
	}
	return modelserver.Options{URL: url, Transport: t, Logger: log}
}
