package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/grimoire-search/grimoire/model/modelserver"
)

// Ollama defaults.
const (
	DefaultOllamaURL = modelserver.DefaultOllamaURL
	// DefaultOllamaModel is small enough for a laptop CPU and follows the
	// prompts well enough; any chat model will do.
	DefaultOllamaModel = "llama3.2"
	// DefaultNumCtx fits the longest prompt of this package (a clipped
	// section, about 3,000 tokens at most) with the reply. Ollama's own
	// default (2,048 or 4,096 by version) would cut long sections
	// silently, from the front.
	DefaultNumCtx = 8192
)

// Ollama is a chat model served by Ollama (POST /api/chat). It is safe for
// concurrent use.
type Ollama struct {
	c         *modelserver.Client
	model     string
	numCtx    int
	maxTokens int
	think     *bool
	log       *slog.Logger
	info      Info
}

var _ Model = (*Ollama)(nil)

// newOllama checks the server once (it answers, it has the model, the model
// chats) without generating anything. An unreachable server fails at once
// with ErrUnreachable, a missing model with ErrModelNotFound and the `ollama
// pull` command.
func newOllama(ctx context.Context, cfg Config, log *slog.Logger) (*Ollama, error) {
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		model = DefaultOllamaModel
	}
	o := cfg.options(log)
	o.Hints = modelserver.OllamaHints(section, model)
	c, m, err := modelserver.ConnectOllama(ctx, section, model, o)
	if err != nil {
		return nil, err
	}
	if len(m.Capabilities) > 0 && !m.Has("completion") {
		return nil, modelserver.NewError(c, ErrNotChatModel,
			fmt.Sprintf("%q is not a chat model (it can: %s)", model, strings.Join(m.Capabilities, ", ")),
			fmt.Sprintf("set [context] model to a chat model, such as %s ('ollama pull %s')", DefaultOllamaModel, DefaultOllamaModel))
	}
	numCtx := cfg.ContextLength
	if numCtx <= 0 {
		numCtx = DefaultNumCtx
	}
	if m.ContextLength > 0 {
		numCtx = min(numCtx, m.ContextLength)
	}
	return &Ollama{
		c: c, model: m.Name, numCtx: numCtx, maxTokens: min(cfg.maxTokens(), numCtx/2),
		think: cfg.Think, log: logger(log),
		info: Info{Provider: ProviderOllama, Model: modelserver.DisplayOllamaName(m.Name), ContextLength: numCtx},
	}, nil
}

// Info implements Model.
func (m *Ollama) Info() Info { return m.info }

type ollamaChatRequest struct {
	Model    string         `json:"model"`
	Messages []message      `json:"messages"`
	Stream   bool           `json:"stream"`
	Think    *bool          `json:"think,omitempty"`
	Options  map[string]any `json:"options"`
}

// Complete implements Model. Ollama does not refuse a prompt longer than
// num_ctx: it cuts it. A prompt that filled the context is therefore taken
// to have been cut, and fails with ErrTooLong rather than return a reply to
// half a question.
func (m *Ollama) Complete(ctx context.Context, system, user string) (string, error) {
	req := ollamaChatRequest{
		Model: m.model, Messages: messages(system, user), Stream: false, Think: m.think,
		Options: map[string]any{"temperature": 0, "num_ctx": m.numCtx, "num_predict": m.maxTokens},
	}
	var r ollamaReply
	err := m.c.Do(ctx, http.MethodPost, "/api/chat", req, func(body []byte, _ string) error {
		var err error
		r, err = parseOllamaChat(body)
		return err
	})
	if err != nil {
		return "", err
	}
	if r.promptTokens > 0 && r.promptTokens+m.maxTokens >= m.numCtx {
		return "", modelserver.NewError(m.c, ErrTooLong,
			fmt.Sprintf("the prompt (%d tokens) leaves no room for a reply of %d in a context of %d", r.promptTokens, m.maxTokens, m.numCtx),
			"shorten the input")
	}
	if r.doneReason == "length" {
		m.log.Debug("reply reached the token cap", "model", m.model, "max_tokens", m.maxTokens)
	}
	if strings.TrimSpace(r.content) == "" {
		return "", fmt.Errorf("ollama %s: %w", m.info.Model, ErrEmptyReply)
	}
	return r.content, nil
}

type ollamaReply struct {
	content      string
	doneReason   string
	promptTokens int
}

// parseOllamaChat reads a /api/chat response: one JSON object, or with
// streaming (which a proxy may force) a sequence of them, one per line,
// whose contents join up. A "thinking" field is reasoning, not reply.
func parseOllamaChat(body []byte) (ollamaReply, error) {
	var r ollamaReply
	var b strings.Builder
	dec := json.NewDecoder(bytes.NewReader(body))
	n := 0
	for {
		var c struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
			Done            bool   `json:"done"`
			DoneReason      string `json:"done_reason"`
			PromptEvalCount int    `json:"prompt_eval_count"`
			Error           string `json:"error"`
		}
		err := dec.Decode(&c)
		if errors.Is(err, io.EOF) && n > 0 {
			break
		}
		if err != nil {
			return r, fmt.Errorf("malformed /api/chat response: %w", err)
		}
		n++
		if c.Error != "" {
			// A stream that fails part-way says so in-band.
			return r, fmt.Errorf("ollama: %s", c.Error)
		}
		b.WriteString(c.Message.Content)
		if c.Done {
			r.doneReason, r.promptTokens = c.DoneReason, max(c.PromptEvalCount, 0)
		}
	}
	r.content = b.String()
	return r, nil
}

// Detect lists the chat models of the Ollama server at url, by the names
// `ollama list` shows, without ":latest": those whose /api/show capabilities
// include "completion" or, on servers too old to report capabilities, those
// that are not embedding models by family or name. An unreachable server is
// ErrUnreachable, at once.
func Detect(ctx context.Context, url string) ([]string, error) {
	return modelserver.DetectOllama(ctx, url, modelserver.IsChatModel)
}
