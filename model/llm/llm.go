// Package llm asks a local chat model for text: the section summaries and
// per-chunk situating contexts of Contextual Retrieval. It holds the Model
// interface, its Ollama and OpenAI-compatible implementations, and the
// prompts, versioned by PromptVersion.
package llm

import (
	"context"
	"errors"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/model/modelserver"
)

// Model is a chat model. Implementations are safe for concurrent use.
type Model interface {
	// Complete returns the model's reply to one exchange: a system prompt
	// (may be empty) and a user message, sampled at temperature 0. The
	// reply is the model's text as sent, untrimmed; it is never empty
	// without an error. Complete may be called any number of times.
	Complete(ctx context.Context, system, user string) (string, error)
	// Info describes the model; it does not change over the model's life.
	Info() Info
}

// Info identifies a chat model, for the index's record of what wrote the
// stored contexts.
type Info struct {
	// Provider is ProviderOllama or ProviderOpenAI.
	Provider string
	// Model is the model's name, for Ollama without ":latest".
	Model string
	// ContextLength is the context a request may fill, prompt and reply
	// together, in the model's tokens; 0 when unknown.
	ContextLength int
}

// Kinds of failure; match them with errors.Is. All but ErrTooLong and
// ErrEmptyReply mean that no request will succeed until the user acts; they
// are fault.Invalid, as mistakes in the configuration are.
var (
	// ErrUnreachable: nothing answers at the configured URL.
	ErrUnreachable = modelserver.ErrUnreachable
	// ErrModelNotFound: the server does not have the model. The error says
	// how to get it; nothing is ever downloaded by grimoire.
	ErrModelNotFound = modelserver.ErrModelNotFound
	// ErrUnauthorized: the server refused the API key, or wants one.
	ErrUnauthorized = modelserver.ErrUnauthorized
	// ErrTooLong: the prompt does not fit the model's context.
	ErrTooLong = modelserver.ErrTooLong
	// ErrNotChatModel: the configured model only embeds.
	ErrNotChatModel error = fault.Errorf(fault.Invalid, "not a chat model")
	// ErrEmptyReply: the model answered nothing usable.
	ErrEmptyReply = errors.New("the model's reply was empty")
)

// Defaults shared by the implementations.
const (
	// DefaultTimeout bounds one request. A section summary on a laptop CPU
	// reads a few thousand tokens and writes a few hundred: about a minute
	// with a 3B model, several with a 7B one, plus loading the model.
	DefaultTimeout = 5 * time.Minute
	// DefaultMaxTokens caps a reply; a summary needs about 200.
	DefaultMaxTokens = 512
)

func messages(system, user string) []message {
	ms := make([]message, 0, 2)
	if system != "" {
		ms = append(ms, message{Role: "system", Content: system})
	}
	return append(ms, message{Role: "user", Content: user})
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}
