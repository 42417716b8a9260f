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
	"strings"

	"github.com/grimoire-search/grimoire/model/modelserver"
)

// OpenAI-compatible defaults: where the server is looked for, and the
// environment variable that holds its API key.
const (
	DefaultOpenAIURL       = modelserver.DefaultOpenAIURL
	DefaultOpenAIAPIKeyEnv = modelserver.DefaultOpenAIAPIKeyEnv
)

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

// newOpenAI checks the server once. When the server lists the model, nothing
// is generated; when it does not (llama.cpp and LM Studio list models under
// their own names), a one-token completion tells whether it has it. An
// unreachable server fails at once with ErrUnreachable.
func newOpenAI(ctx context.Context, cfg Config, log *slog.Logger) (*OpenAI, error) {
	c, listed, ok, err := modelserver.ConnectOpenAI(ctx, section, strings.TrimSpace(cfg.Model), cfg.APIKeyEnv, cfg.options(log))
	if err != nil {
		return nil, err
	}
	m := &OpenAI{c: c, model: listed.ID, maxTokens: cfg.maxTokens(), log: logger(log)}
	m.info = Info{Provider: ProviderOpenAI, Model: listed.ID, ContextLength: cfg.ContextLength}
	if m.info.ContextLength <= 0 {
		m.info.ContextLength = listed.MaxModelLen
	}
	if !ok {
		if _, err := m.complete(ctx, "", "Reply with OK.", 1); err != nil && !errors.Is(err, ErrEmptyReply) {
			return nil, fmt.Errorf("probe completion with %s: %w", listed.ID, err)
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
