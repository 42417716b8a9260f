package modelserver

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
)

// OpenAIModel is one entry of an OpenAI-compatible GET /models.
type OpenAIModel struct {
	ID string
	// MaxModelLen is the context in tokens where the server reports it
	// (vLLM's max_model_len); else 0.
	MaxModelLen int
}

type openAIModels struct {
	Data []struct {
		ID          string `json:"id"`
		MaxModelLen int    `json:"max_model_len"`
	} `json:"data"`
}

// OpenAIModels lists the models of an OpenAI-compatible server. Not every
// server has the endpoint, and some (llama.cpp, TEI) serve whatever model
// name they are sent, so callers use the list for hints, not as the truth.
func OpenAIModels(ctx context.Context, c *Client) ([]OpenAIModel, error) {
	var r openAIModels
	if err := c.Do(ctx, http.MethodGet, "/models", nil, JSON(&r)); err != nil {
		return nil, err
	}
	out := make([]OpenAIModel, 0, len(r.Data))
	for _, m := range r.Data {
		if m.ID != "" {
			out = append(out, OpenAIModel{ID: m.ID, MaxModelLen: max(m.MaxModelLen, 0)})
		}
	}
	return out, nil
}

// FindOpenAIModel finds a model by id.
func FindOpenAIModel(models []OpenAIModel, id string) (OpenAIModel, bool) {
	i := slices.IndexFunc(models, func(m OpenAIModel) bool { return m.ID == id })
	if i < 0 {
		return OpenAIModel{}, false
	}
	return models[i], true
}

// OpenAIIDs returns the ids of models, sorted, for error messages.
func OpenAIIDs(models []OpenAIModel) []string {
	out := make([]string, 0, len(models))
	for _, m := range models {
		out = append(out, m.ID)
	}
	slices.Sort(out)
	return out
}

// OpenAIHints says what to do about an OpenAI-compatible server's errors;
// section names the configuration section ("embedding", "context") and has
// lists the models the server has, when it said.
func OpenAIHints(section, keyEnv string, has []string) Hints {
	h := Hints{
		Unreachable: fmt.Sprintf("start the server, or check [%s] url", section),
		NotFound: fmt.Sprintf("check [%s] url: OpenAI-compatible servers serve the API under /v1 ", section) +
			"(LM Studio http://localhost:1234/v1, llama.cpp http://localhost:8080/v1, vLLM http://localhost:8000/v1)",
		ModelNotFound: fmt.Sprintf("check [%s] model", section),
	}
	if len(has) > 0 {
		h.ModelNotFound += fmt.Sprintf(" (the server has %s)", strings.Join(has, ", "))
	}
	h.Unauthorized = unauthorizedHint(keyEnv)
	return h
}

// unauthorizedHint says what to do when a server refuses a request for its
// API key, which the environment variable keyEnv holds or should.
func unauthorizedHint(keyEnv string) string {
	if os.Getenv(keyEnv) == "" {
		return fmt.Sprintf("the server wants an API key: set %s", keyEnv)
	}
	return fmt.Sprintf("the server refused the API key in %s", keyEnv)
}
