package modelserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// OllamaModel is what Ollama says about one local model.
type OllamaModel struct {
	// Name is as /api/tags lists it: "nomic-embed-text:latest".
	Name string
	// Family and Families are the architectures from /api/tags details
	// ("nomic-bert", "llama").
	Family   string
	Families []string
	// Capabilities come from /api/show ("embedding", "completion", "tools",
	// …); nil when the server is too old to report them.
	Capabilities []string
	// ContextLength is the context the model was trained for, and
	// EmbeddingLength its hidden size, from /api/show model_info; 0 when
	// unknown.
	ContextLength   int
	EmbeddingLength int
	// NumCtx is the num_ctx parameter of the model's Modelfile, 0 if unset.
	NumCtx int
}

// Has reports whether the model reports capability c.
func (m OllamaModel) Has(c string) bool { return slices.Contains(m.Capabilities, c) }

type ollamaTags struct {
	Models []struct {
		Name    string `json:"name"`
		Model   string `json:"model"`
		Details struct {
			Family   string   `json:"family"`
			Families []string `json:"families"`
		} `json:"details"`
	} `json:"models"`
}

// OllamaTags lists the models of an Ollama server (GET /api/tags).
func OllamaTags(ctx context.Context, c *Client) ([]OllamaModel, error) {
	var r ollamaTags
	if err := c.Do(ctx, http.MethodGet, "/api/tags", nil, JSON(&r)); err != nil {
		return nil, err
	}
	out := make([]OllamaModel, 0, len(r.Models))
	for _, m := range r.Models {
		name := m.Name
		if name == "" {
			name = m.Model
		}
		if name == "" {
			continue
		}
		out = append(out, OllamaModel{Name: name, Family: m.Details.Family, Families: m.Details.Families})
	}
	return out, nil
}

// ollamaShowResponse is the part of POST /api/show that grimoire reads.
type ollamaShowResponse struct {
	Parameters   string         `json:"parameters"`
	Capabilities []string       `json:"capabilities"`
	ModelInfo    map[string]any `json:"model_info"`
	Details      struct {
		Family   string   `json:"family"`
		Families []string `json:"families"`
	} `json:"details"`
}

// parseOllamaShow parses a /api/show response body.
func parseOllamaShow(body []byte) (OllamaModel, error) {
	var r ollamaShowResponse
	if err := JSON(&r)(body, ""); err != nil {
		return OllamaModel{}, err
	}
	return r.model(), nil
}

func (r *ollamaShowResponse) model() OllamaModel {
	m := OllamaModel{
		Family:       r.Details.Family,
		Families:     r.Details.Families,
		Capabilities: r.Capabilities,
	}
	// model_info keys are prefixed by the architecture:
	// "nomic-bert.context_length". Without general.architecture, take any.
	arch, _ := r.ModelInfo["general.architecture"].(string)
	for k, v := range r.ModelInfo {
		f, ok := v.(float64)
		if !ok || f <= 0 || f > 1<<30 {
			continue
		}
		key, found := strings.CutPrefix(k, arch+".")
		if arch == "" || !found {
			if arch != "" {
				continue
			}
			_, key, _ = strings.Cut(k, ".")
		}
		switch key {
		case "context_length":
			m.ContextLength = int(f)
		case "embedding_length":
			m.EmbeddingLength = int(f)
		}
	}
	for line := range strings.SplitSeq(r.Parameters, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "num_ctx" {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				m.NumCtx = n
			}
		}
	}
	return m
}

// OllamaShow describes one model (POST /api/show). A missing model is an
// error matching ErrModelNotFound; a server without the endpoint answers a
// plain 404.
func OllamaShow(ctx context.Context, c *Client, name string) (OllamaModel, error) {
	var r ollamaShowResponse
	// "name" is what Ollama before 0.5 read; later versions read "model".
	req := map[string]string{"model": name, "name": name}
	if err := c.Do(ctx, http.MethodPost, "/api/show", req, JSON(&r)); err != nil {
		return OllamaModel{}, err
	}
	m := r.model()
	m.Name = name
	return m, nil
}

// FindOllamaModel finds want among models, where "name" and "name:latest"
// are the same model.
func FindOllamaModel(models []OllamaModel, want string) (OllamaModel, bool) {
	w := CanonicalOllamaName(want)
	for _, m := range models {
		if CanonicalOllamaName(m.Name) == w {
			return m, true
		}
	}
	return OllamaModel{}, false
}

// CanonicalOllamaName drops the default tag ":latest" and folds case, which
// Ollama ignores in model names.
func CanonicalOllamaName(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	return strings.TrimSuffix(name, ":latest")
}

// DisplayOllamaName is a model name as a user would write it in the config:
// without ":latest".
func DisplayOllamaName(name string) string {
	return strings.TrimSuffix(strings.TrimSpace(name), ":latest")
}

// OllamaNames returns the display names of models, for error messages.
func OllamaNames(models []OllamaModel) []string {
	out := make([]string, 0, len(models))
	for _, m := range models {
		out = append(out, DisplayOllamaName(m.Name))
	}
	slices.Sort(out)
	return out
}

// OllamaModels lists the models of an Ollama server with what /api/show says
// of each. A model whose /api/show fails is listed with what /api/tags said.
func OllamaModels(ctx context.Context, c *Client) ([]OllamaModel, error) {
	models, err := OllamaTags(ctx, c)
	if err != nil {
		return nil, err
	}
	for i, m := range models {
		s, err := OllamaShow(ctx, c, m.Name)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			continue
		}
		s.Name = m.Name
		if s.Family == "" {
			s.Family, s.Families = m.Family, m.Families
		}
		models[i] = s
	}
	return models, nil
}

// embeddingFamilies are architectures that only embed: encoders, and the
// embedding variants Ollama names as families of their own.
var embeddingFamilies = []string{
	"bert", "nomic-bert", "nomic-bert-moe", "xlm-roberta", "roberta",
	"jina-bert", "jina-bert-v2", "gemma-embedding", "modernbert", "new",
}

// IsEmbeddingModel reports whether m is an embedding model. Ollama 0.6.4 and
// later say so in /api/show capabilities ("embedding" versus "completion").
// Older servers do not; then the model family decides (BERT-like encoders
// only embed), and failing that the name ("…embed…", "minilm", "bge", "e5").
func IsEmbeddingModel(m OllamaModel) bool {
	if len(m.Capabilities) > 0 {
		return m.Has("embedding")
	}
	fams := append([]string{m.Family}, m.Families...)
	for _, f := range fams {
		if slices.Contains(embeddingFamilies, strings.ToLower(f)) {
			return true
		}
	}
	n := CanonicalOllamaName(m.Name)
	for _, w := range []string{"embed", "minilm", "bge-", "e5-", "gte-", "arctic-embed"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// IsChatModel reports whether m can chat: its capabilities say
// "completion", or, on servers too old to say, it is not an embedding model.
func IsChatModel(m OllamaModel) bool {
	if len(m.Capabilities) > 0 {
		return m.Has("completion")
	}
	return !IsEmbeddingModel(m)
}

// OllamaHints says what to do about an Ollama server's errors; section
// names the configuration section ("embedding", "context") and model the
// model to pull.
func OllamaHints(section, model string) Hints {
	return Hints{
		Unreachable:   fmt.Sprintf("start it with 'ollama serve', or check [%s] url", section),
		ModelNotFound: fmt.Sprintf("run 'ollama pull %s'", model),
		NotFound:      fmt.Sprintf("check [%s] url", section),
	}
}
