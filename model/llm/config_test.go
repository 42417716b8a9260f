package llm

import (
	"errors"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/model"
)

func TestNew(t *testing.T) {
	c, err := New(t.Context(), Config{Provider: ProviderNone}, nil)
	if c != nil || err != nil {
		t.Errorf("none: %v, %v", c, err)
	}
	// The message the configuration has always given.
	_, err = New(t.Context(), Config{Provider: "anthropic"}, nil)
	if want := `[context] provider = "anthropic": want "none", "ollama" or "openai"`; err == nil || err.Error() != want || fault.CodeOf(err) != fault.Invalid {
		t.Errorf("unknown provider: %v, want %s", err, want)
	}
	f := newFakeOllama(t, llama())
	c, err = New(t.Context(), ollamaOpts(f, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := model.ContextStamp{Provider: ProviderOllama, Model: DefaultOllamaModel, Prompt: PromptVersion}
	if got := c.Stamp(); got != want {
		t.Errorf("Stamp = %+v, want %+v", got, want)
	}
	fo := newFakeOpenAI(t, "qwen")
	c, err = New(t.Context(), openAIOpts(fo, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Stamp(); got != (model.ContextStamp{Provider: ProviderOpenAI, Model: "qwen", Prompt: PromptVersion}) {
		t.Errorf("Stamp = %+v", got)
	}
}

// TestNewErrors checks that a provider's errors name the section and
// provider, match their kind and carry the code the CLI and MCP map.
func TestNewErrors(t *testing.T) {
	embedder := fakeModel{name: "nomic-embed-text:latest", family: "nomic-bert", caps: []string{"embedding"}, ctx: 2048}
	f := newFakeOllama(t, embedder)
	tests := []struct {
		name string
		cfg  Config
		kind error
	}{
		{"unreachable", Config{Provider: ProviderOllama, URL: closedURL(t)}, ErrUnreachable},
		{"missing model", ollamaOpts(f, "qwen2.5:3b"), ErrModelNotFound},
		{"embedding model", ollamaOpts(f, "nomic-embed-text"), ErrNotChatModel},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(t.Context(), tc.cfg, nil)
			if !errors.Is(err, tc.kind) || fault.CodeOf(err) != fault.Invalid || !strings.HasPrefix(err.Error(), "[context] ollama: ") {
				t.Errorf("err = %v (code %v), want %v, Invalid, prefixed", err, fault.CodeOf(err), tc.kind)
			}
		})
	}
}
