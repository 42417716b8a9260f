package embed

import (
	"errors"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/fault"
)

func TestConfigName(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Provider: ProviderBuiltin, Model: "ignored"}, "builtin/" + builtinModel},
		{Config{Provider: ProviderOllama}, "ollama/" + DefaultOllamaModel},
		{Config{Provider: ProviderOllama, Model: "bge-m3"}, "ollama/bge-m3"},
		{Config{Provider: ProviderOpenAI, Model: "text-embedding-3-small"}, "openai/text-embedding-3-small"},
		{Config{Provider: ProviderOpenAI}, "openai/"},
	}
	for _, tc := range tests {
		if got := tc.cfg.Name(); got != tc.want {
			t.Errorf("%+v: Name = %q, want %q", tc.cfg, got, tc.want)
		}
	}
	if got, want := (Config{Provider: ProviderBuiltin}).Name(), NewBuiltin().Info().Provider+"/"+NewBuiltin().Info().Model; got != want {
		t.Errorf("builtin is named %q, its Info %q", got, want)
	}
}

func TestNew(t *testing.T) {
	e, err := New(t.Context(), Config{Provider: ProviderBuiltin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.(*Builtin); !ok {
		t.Errorf("builtin: %T", e)
	}
	// The message the configuration has always given.
	_, err = New(t.Context(), Config{Provider: "cohere"}, nil)
	if want := `[embedding] provider = "cohere": want "builtin", "ollama" or "openai"`; err == nil || err.Error() != want || fault.CodeOf(err) != fault.Invalid {
		t.Errorf("unknown provider: %v, want %s", err, want)
	}
	f := newFakeOllama(t, nomicModel())
	e, err = New(t.Context(), ollamaOpts(f, ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Info(); got.Provider != ProviderOllama || got.Model != DefaultOllamaModel {
		t.Errorf("Info = %+v", got)
	}
	fo := newFakeOpenAI(t, "m")
	e, err = New(t.Context(), openAIOpts(fo, "m"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Info(); got.Provider != ProviderOpenAI || got.Model != "m" {
		t.Errorf("Info = %+v", got)
	}
}

// TestNewErrors checks that the errors of a server-backed provider name the
// section and provider, match their kind and carry the code the CLI and MCP
// map: a server that is down or lacks the model is for the user to fix.
func TestNewErrors(t *testing.T) {
	chat := fakeModel{name: "llama3.2:latest", family: "llama", caps: []string{"completion"}, ctx: 131072, dim: 8}
	f := newFakeOllama(t, chat)
	tests := []struct {
		name string
		cfg  Config
		kind error
	}{
		{"unreachable", Config{Provider: ProviderOllama, URL: closedURL(t)}, ErrUnreachable},
		{"missing model", ollamaOpts(f, "bge-m3"), ErrModelNotFound},
		{"chat model", ollamaOpts(f, "llama3.2"), ErrNotEmbeddingModel},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(t.Context(), tc.cfg, nil)
			if !errors.Is(err, tc.kind) || fault.CodeOf(err) != fault.Invalid || !strings.HasPrefix(err.Error(), "[embedding] ollama: ") {
				t.Errorf("err = %v (code %v), want %v, Invalid, prefixed", err, fault.CodeOf(err), tc.kind)
			}
		})
	}
}
