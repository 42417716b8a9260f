package llm

import (
	"bufio"
	"bytes"
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

// OpenAI-compatible defaults: llama.cpp's server (LM Studio is at
// http://localhost:1234/v1, vLLM at http://localhost:8000/v1).
const (
	DefaultOpenAIURL       = "http://localhost:8080/v1"
	DefaultOpenAIAPIKeyEnv = "OPENAI_API_KEY"
)

// OpenAIOptions configure a chat model behind the OpenAI chat completions
// API. Zero values take the defaults.
type OpenAIOptions struct {
	// URL is the API's base; requests go to URL+"/chat/completions".
	// Default DefaultOpenAIURL.
	URL string
	// Model is sent with every request. When empty, the one model the
	// server lists is used.
	Model string
	// APIKeyEnv names the environment variable holding the API key, default
	// DefaultOpenAIAPIKeyEnv; the key is sent only when it is set, and is
	// never read from a file.
	APIKeyEnv string
	// MaxTokens caps each reply (max_tokens), default DefaultMaxTokens.
	MaxTokens int
	// ContextLength is the server's context in tokens, for Info; the API
	// does not say, so by default it is what the server lists (vLLM's
	// max_model_len) or unknown. The server itself sets the context; a
	// prompt that does not fit is refused with ErrTooLong.
	ContextLength int
	// Timeout bounds each request, default DefaultTimeout. Retries,
	// Backoff, MaxBackoff, HTTPClient and Logger are as for the embedders.
	Timeout             time.Duration
	Retries             int
	Backoff, MaxBackoff time.Duration
	HTTPClient          *http.Client
	Logger              *slog.Logger
}

// OpenAI is a chat model behind an OpenAI-compatible server (POST
// {url}/chat/completions). It is safe for concurrent use.
type OpenAI struct {
	c         *modelserver.Client
	model     string
	maxTokens int
	log       *slog.Logger
	info      Info
}

var _ Model = (*OpenAI)(nil)

// NewOpenAI checks the server once. When the server lists the model, nothing
// is generated; when it does not (llama.cpp and LM Studio list models under
// their own names), a one-token completion tells whether it has it. An
// unreachable server fails at once with ErrUnreachable.
func NewOpenAI(ctx context.Context, o OpenAIOptions) (*OpenAI, error) {
	if o.URL == "" {
		o.URL = DefaultOpenAIURL
	}
	if o.APIKeyEnv == "" {
		o.APIKeyEnv = DefaultOpenAIAPIKeyEnv
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultMaxTokens
	}
	o.Model = strings.TrimSpace(o.Model)
	header := http.Header{}
	if key := os.Getenv(o.APIKeyEnv); key != "" {
		header.Set("Authorization", "Bearer "+key)
	}
	t := transport{o.Timeout, o.Retries, o.Backoff, o.MaxBackoff, o.HTTPClient, o.Logger}
	c, err := modelserver.New(t.options(o.URL, "openai-compatible server", modelserver.OpenAIHints("context", o.APIKeyEnv, nil), header))
	if err != nil {
		return nil, fmt.Errorf("[context] url: %w", err)
	}
	models, err := modelserver.OpenAIModels(ctx, c)
	if err != nil {
		if errors.Is(err, ErrUnreachable) || errors.Is(err, ErrUnauthorized) || ctx.Err() != nil {
			return nil, err
		}
		t.logger().Debug("server does not list its models", "url", c.BaseURL(), "err", err)
	}
	ids := modelserver.OpenAIIDs(models)
	if o.Model == "" {
		if len(ids) != 1 {
			msg := "no [context] model set"
			if len(ids) > 1 {
				msg += fmt.Sprintf(" and the server has several (%s)", strings.Join(ids, ", "))
			}
			return nil, modelserver.NewError(c, nil, msg, "set [context] model")
		}
		o.Model = ids[0]
	}
	c = c.WithHints(modelserver.OpenAIHints("context", o.APIKeyEnv, ids))
	m := &OpenAI{c: c, model: o.Model, maxTokens: o.MaxTokens, log: t.logger()}
	listed, ok := modelserver.FindOpenAIModel(models, o.Model)
	m.info = Info{Provider: "openai", Model: o.Model, ContextLength: o.ContextLength}
	if m.info.ContextLength <= 0 {
		m.info.ContextLength = listed.MaxModelLen
	}
	if !ok {
		if _, err := m.complete(ctx, "", "Reply with OK.", 1); err != nil && !errors.Is(err, ErrEmptyReply) {
			return nil, fmt.Errorf("probe completion with %s: %w", o.Model, err)
		}
	}
	return m, nil
}

// Info implements Model.
func (m *OpenAI) Info() Info { return m.info }

type openAIChatRequest struct {
	Model       string    `json:"model"`
	Messages    []message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens"`
	Stream      bool      `json:"stream"`
}

// Complete implements Model.
func (m *OpenAI) Complete(ctx context.Context, system, user string) (string, error) {
	return m.complete(ctx, system, user, m.maxTokens)
}

func (m *OpenAI) complete(ctx context.Context, system, user string, maxTokens int) (string, error) {
	req := openAIChatRequest{Model: m.model, Messages: messages(system, user), MaxTokens: maxTokens}
	var r openAIReply
	err := m.c.Do(ctx, http.MethodPost, "/chat/completions", req, func(body []byte, contentType string) error {
		var err error
		r, err = parseOpenAIChat(body, contentType)
		return err
	})
	if err != nil {
		return "", err
	}
	if r.finishReason == "length" && maxTokens == m.maxTokens {
		m.log.Debug("reply reached the token cap", "model", m.model, "max_tokens", maxTokens)
	}
	if strings.TrimSpace(r.content) == "" {
		return "", fmt.Errorf("%s: %w", m.model, ErrEmptyReply)
	}
	return r.content, nil
}

type openAIReply struct {
	content      string
	finishReason string
}

type openAIChoice struct {
	Message *struct {
		Content *string `json:"content"`
	} `json:"message"`
	Delta *struct {
		Content *string `json:"content"`
	} `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// parseOpenAIChat reads a /chat/completions response: one JSON object, or
// server-sent events of chunks (which some servers send whatever "stream"
// says), whose deltas join up. Reasoning (reasoning_content) is not reply.
func parseOpenAIChat(body []byte, contentType string) (openAIReply, error) {
	var r openAIReply
	if strings.HasPrefix(strings.ToLower(contentType), "text/event-stream") || bytes.HasPrefix(bytes.TrimSpace(body), []byte("data:")) {
		return parseOpenAISSE(body)
	}
	var v struct {
		Choices []openAIChoice `json:"choices"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return r, fmt.Errorf("malformed /chat/completions response: %w", err)
	}
	if len(v.Choices) == 0 {
		return r, errors.New("malformed /chat/completions response: no choices")
	}
	ch := v.Choices[0]
	if ch.Message != nil && ch.Message.Content != nil {
		r.content = *ch.Message.Content
	}
	if ch.FinishReason != nil {
		r.finishReason = *ch.FinishReason
	}
	return r, nil
}

func parseOpenAISSE(body []byte) (openAIReply, error) {
	var r openAIReply
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), len(body)+1)
	n := 0
	for sc.Scan() {
		data, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			break
		}
		var v struct {
			Choices []openAIChoice  `json:"choices"`
			Error   json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			return r, fmt.Errorf("malformed /chat/completions event: %w", err)
		}
		if len(v.Error) > 0 && string(v.Error) != "null" {
			msg, _ := modelserver.ParseErrorBody([]byte(data))
			return r, fmt.Errorf("server: %s", msg)
		}
		n++
		for _, ch := range v.Choices[:min(len(v.Choices), 1)] {
			if ch.Delta != nil && ch.Delta.Content != nil {
				b.WriteString(*ch.Delta.Content)
			}
			if ch.FinishReason != nil {
				r.finishReason = *ch.FinishReason
			}
		}
	}
	if err := sc.Err(); err != nil {
		return r, fmt.Errorf("malformed /chat/completions events: %w", err)
	}
	if n == 0 {
		return r, errors.New("malformed /chat/completions response: no events")
	}
	r.content = b.String()
	return r, nil
}
