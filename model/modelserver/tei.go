package modelserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// TEIModel is what a Hugging Face Text Embeddings Inference server says of
// the one model it serves (GET /info).
type TEIModel struct {
	// ID is the model's name on the Hub ("BAAI/bge-reranker-v2-m3").
	ID string
	// Kind is the model's type as TEI names it: "reranker", "embedding" or
	// "classifier".
	Kind string
	// MaxInputLength is the most tokens one input may have; for a reranker
	// the question and the passage count together.
	MaxInputLength int
	// MaxClientBatchSize is the most inputs one request may carry (TEI's
	// --max-client-batch-size, 32 by default); 0 when not said.
	MaxClientBatchSize int
}

type teiInfo struct {
	ModelID string `json:"model_id"`
	// ModelType is an object with one key, the kind: {"reranker": {...}}.
	ModelType          map[string]json.RawMessage `json:"model_type"`
	MaxInputLength     int                        `json:"max_input_length"`
	MaxClientBatchSize int                        `json:"max_client_batch_size"`
}

// parseTEIInfo parses a GET /info body.
func parseTEIInfo(body []byte) (TEIModel, error) {
	var r teiInfo
	if err := JSON(&r)(body, ""); err != nil {
		return TEIModel{}, err
	}
	if r.ModelID == "" || len(r.ModelType) != 1 {
		return TEIModel{}, fmt.Errorf("malformed /info response: no model_id or model_type")
	}
	m := TEIModel{ID: r.ModelID, MaxInputLength: max(r.MaxInputLength, 0), MaxClientBatchSize: max(r.MaxClientBatchSize, 0)}
	for k := range r.ModelType {
		m.Kind = k
	}
	if m.Kind == "" {
		return TEIModel{}, fmt.Errorf("malformed /info response: model_type has no kind")
	}
	return m, nil
}

// ConnectTEI returns a client for the TEI server at o.URL, which sends the
// API key of the environment variable keyEnv (default
// DefaultOpenAIAPIKeyEnv) when it is set, and what the server says of its
// model. The client's hints and header are set here. Errors name the
// configuration section; nothing answering fails at once with
// ErrUnreachable, a refused key with ErrUnauthorized.
func ConnectTEI(ctx context.Context, section, keyEnv string, o Options) (*Client, TEIModel, error) {
	if keyEnv == "" {
		keyEnv = DefaultOpenAIAPIKeyEnv
	}
	o.Server = "TEI server"
	o.Header = bearer(keyEnv)
	o.Hints = Hints{
		Unreachable: fmt.Sprintf("start it, or check [%s] url", section),
		NotFound: fmt.Sprintf("check [%s] url: TEI serves its API at the root of its address (http://localhost:8012), not under /v1; "+
			"for llama.cpp's server or vLLM set [%s] provider = \"openai\"", section, section),
		Unauthorized: unauthorizedHint(keyEnv),
	}
	c, err := New(o)
	if err != nil {
		return nil, TEIModel{}, fmt.Errorf("[%s] url: %w", section, err)
	}
	var m TEIModel
	err = c.Do(ctx, http.MethodGet, "/info", nil, func(body []byte, _ string) error {
		var err error
		m, err = parseTEIInfo(body)
		return err
	})
	if err != nil {
		return nil, TEIModel{}, err
	}
	return c, m, nil
}
