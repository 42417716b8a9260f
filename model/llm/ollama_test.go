package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/model/modelserver"
)

func ollamaOpts(f *fakeOllama, model string) Config {
	return Config{Provider: ProviderOllama, URL: f.URL, Model: model,
		Transport: modelserver.Transport{Backoff: testBackoff, MaxBackoff: testMaxBackoff, Timeout: 5 * time.Second}}
}

func mustOllama(t *testing.T, o Config) *Ollama {
	t.Helper()
	m, err := newOllama(t.Context(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOllamaComplete(t *testing.T) {
	no := false
	tests := []struct {
		name        string
		model       fakeModel
		opts        func(*Config)
		stream      bool
		wantCtx     int
		wantPredict int
		wantThink   *bool
	}{
		{name: "defaults", model: llama(), wantCtx: DefaultNumCtx, wantPredict: DefaultMaxTokens},
		{name: "small model context", model: fakeModel{name: "tinyllama:latest", family: "llama", caps: []string{"completion"}, ctx: 2048},
			wantCtx: 2048, wantPredict: DefaultMaxTokens},
		{name: "options", model: llama(), opts: func(o *Config) { o.ContextLength, o.MaxTokens, o.Think = 4096, 100, &no },
			wantCtx: 4096, wantPredict: 100, wantThink: &no},
		{name: "streamed anyway", model: llama(), stream: true, wantCtx: DefaultNumCtx, wantPredict: DefaultMaxTokens},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOllama(t, tc.model)
			f.stream = tc.stream
			f.reply = func(system, user string) string { return "You said: " + user }
			o := ollamaOpts(f, strings.TrimSuffix(tc.model.name, ":latest"))
			if tc.opts != nil {
				tc.opts(&o)
			}
			m := mustOllama(t, o)
			if got := m.Info(); got.Provider != "ollama" || got.Model != strings.TrimSuffix(tc.model.name, ":latest") || got.ContextLength != tc.wantCtx {
				t.Errorf("Info = %+v", got)
			}
			got, err := m.Complete(t.Context(), "Be brief.", "hello there")
			if err != nil {
				t.Fatal(err)
			}
			if got != "You said: hello there" {
				t.Errorf("reply %q", got)
			}
			req := f.chats[0]
			if req.Stream == nil || *req.Stream {
				t.Error(`"stream": false not sent`)
			}
			if fmt.Sprint(req.Messages) != "[{system Be brief.} {user hello there}]" {
				t.Errorf("messages %v", req.Messages)
			}
			if req.Options["temperature"] != 0.0 || req.Options["num_ctx"] != float64(tc.wantCtx) || req.Options["num_predict"] != float64(tc.wantPredict) {
				t.Errorf("options %v", req.Options)
			}
			if (req.Think == nil) != (tc.wantThink == nil) || req.Think != nil && *req.Think != *tc.wantThink {
				t.Errorf("think %v", req.Think)
			}
		})
	}
}

func TestOllamaNoSystem(t *testing.T) {
	f := newFakeOllama(t, llama())
	m := mustOllama(t, ollamaOpts(f, "llama3.2"))
	if _, err := m.Complete(t.Context(), "", "hi"); err != nil {
		t.Fatal(err)
	}
	if len(f.chats[0].Messages) != 1 || f.chats[0].Messages[0].Role != "user" {
		t.Errorf("messages %v", f.chats[0].Messages)
	}
}

func TestOllamaChatErrors(t *testing.T) {
	embedder := fakeModel{name: "nomic-embed-text:latest", family: "nomic-bert", caps: []string{"embedding"}, ctx: 2048}
	tests := []struct {
		name   string
		models []fakeModel
		model  string
		kind   error
		want   []string
	}{
		{"missing", []fakeModel{embedder}, "qwen2.5:3b", ErrModelNotFound, []string{"ollama pull qwen2.5:3b", "it has nomic-embed-text"}},
		{"embedding model", []fakeModel{embedder}, "nomic-embed-text", ErrNotChatModel, []string{"not a chat model", "[context] model"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOllama(t, tc.models...)
			_, err := newOllama(t.Context(), ollamaOpts(f, tc.model), nil)
			if !errors.Is(err, tc.kind) {
				t.Fatalf("err = %v, want %v", err, tc.kind)
			}
			for _, s := range append(tc.want, f.URL) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		u := closedURL(t)
		start := time.Now()
		_, err := newOllama(t.Context(), Config{URL: u, Transport: modelserver.Transport{Backoff: time.Second}}, nil)
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), u) || !strings.Contains(err.Error(), "ollama serve") ||
			!strings.Contains(err.Error(), "[context] url") {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("took %s", d)
		}
	})
}

func TestOllamaChatRetries(t *testing.T) {
	tests := []struct {
		name  string
		fail  []scripted
		calls int
		want  string
	}{
		{"500 then 429 then ok", []scripted{{500, `{"error":"llama runner process has terminated"}`}, {429, `{"error":"server busy"}`}}, 3, ""},
		{"400 permanent", []scripted{{400, `{"error":"invalid options"}`}}, 1, "invalid options"},
		{"removed model", []scripted{{404, `{"error":"model \"llama3.2\" not found, try pulling it first"}`}}, 1, "ollama pull llama3.2"},
		{"in-band stream error", []scripted{{200, `{"message":{"content":"Hal"},"done":false}` + "\n" + `{"error":"an error was encountered while running the model"}`}}, 1,
			"an error was encountered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOllama(t, llama())
			m := mustOllama(t, ollamaOpts(f, "llama3.2"))
			f.fail = tc.fail
			_, err := m.Complete(t.Context(), "", "hi")
			if len(f.chats) != tc.calls {
				t.Errorf("%d calls, want %d", len(f.chats), tc.calls)
			}
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestOllamaPromptCut(t *testing.T) {
	f := newFakeOllama(t, llama())
	o := ollamaOpts(f, "llama3.2")
	o.ContextLength, o.MaxTokens = 100, 20
	m := mustOllama(t, o)
	if _, err := m.Complete(t.Context(), "", strings.Repeat("word ", 70)); err != nil {
		t.Fatalf("a prompt that fits: %v", err)
	}
	_, err := m.Complete(t.Context(), "", strings.Repeat("word ", 300))
	if !errors.Is(err, ErrTooLong) {
		t.Fatalf("err = %v, want ErrTooLong", err)
	}
}

func TestOllamaEmptyReply(t *testing.T) {
	f := newFakeOllama(t, llama())
	f.reply = func(string, string) string { return "  \n" }
	m := mustOllama(t, ollamaOpts(f, "llama3.2"))
	if _, err := m.Complete(t.Context(), "", "hi"); !errors.Is(err, ErrEmptyReply) {
		t.Fatalf("err = %v", err)
	}
}

func TestOllamaChatCancel(t *testing.T) {
	f := newFakeOllama(t, llama())
	m := mustOllama(t, ollamaOpts(f, "llama3.2"))
	f.fail = []scripted{{503, ""}, {503, ""}, {503, ""}}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := m.Complete(ctx, "", "hi"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestDetect(t *testing.T) {
	f := newFakeOllama(t, llama(),
		fakeModel{name: "nomic-embed-text:latest", family: "nomic-bert", caps: []string{"embedding"}},
		fakeModel{name: "qwen2.5:3b", family: "qwen2", caps: []string{"completion", "tools"}},
	)
	got, err := Detect(t.Context(), f.URL)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[llama3.2 qwen2.5:3b]" {
		t.Errorf("Detect = %v", got)
	}
	if _, err := Detect(t.Context(), closedURL(t)); !errors.Is(err, ErrUnreachable) {
		t.Errorf("closed port: %v", err)
	}
}
