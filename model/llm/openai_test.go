package llm

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/model/modelserver"
)

func openAIOpts(f *fakeOpenAI, model string) Config {
	return Config{Provider: ProviderOpenAI, URL: f.URL + "/v1", Model: model, APIKeyEnv: "GRIMOIRE_TEST_CHAT_KEY",
		Transport: modelserver.Transport{Backoff: testBackoff, MaxBackoff: testMaxBackoff, Timeout: 5 * time.Second}}
}

func TestOpenAIComplete(t *testing.T) {
	for _, sse := range []bool{false, true} {
		name := "json"
		if sse {
			name = "event stream"
		}
		t.Run(name, func(t *testing.T) {
			f := newFakeOpenAI(t, "qwen2.5-3b-instruct")
			f.sse = sse
			f.reply = func(system, user string) string { return system + " / " + user }
			t.Setenv("GRIMOIRE_TEST_CHAT_KEY", "")
			m, err := newOpenAI(t.Context(), openAIOpts(f, "qwen2.5-3b-instruct"), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.chats) != 0 {
				t.Error("a listed model was probed")
			}
			got, err := m.Complete(t.Context(), "sys", "hello")
			if err != nil {
				t.Fatal(err)
			}
			if got != "sys / hello" {
				t.Errorf("reply %q", got)
			}
			req := f.chats[0]
			if req.Temperature == nil || *req.Temperature != 0 || req.MaxTokens == nil || *req.MaxTokens != DefaultMaxTokens ||
				req.Stream == nil || *req.Stream || req.auth != "" {
				t.Errorf("request %+v", req)
			}
			if m.Info() != (Info{Provider: "openai", Model: "qwen2.5-3b-instruct"}) {
				t.Errorf("Info %+v", m.Info())
			}
		})
	}
}

func TestOpenAIProbe(t *testing.T) {
	// llama.cpp lists its model by file name and answers to any name.
	f := newFakeOpenAI(t, "/models/Llama-3.2-3B-Instruct-Q4_K_M.gguf")
	f.any = true
	t.Setenv("GRIMOIRE_TEST_CHAT_KEY", "sk-1")
	m, err := newOpenAI(t.Context(), openAIOpts(f, "llama-3.2-3b"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.chats) != 1 || *f.chats[0].MaxTokens != 1 || f.chats[0].auth != "Bearer sk-1" {
		t.Fatalf("probe %+v", f.chats)
	}
	if _, err := m.Complete(t.Context(), "", "x"); err != nil {
		t.Fatal(err)
	}
	// A server that has no such model says so on the probe.
	f2 := newFakeOpenAI(t, "a", "b")
	_, err = newOpenAI(t.Context(), openAIOpts(f2, "c"), nil)
	if !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), "the server has a, b") || !strings.Contains(err.Error(), "[context] model") {
		t.Fatalf("err = %v", err)
	}
}

func TestOpenAIChatErrors(t *testing.T) {
	tests := []struct {
		name  string
		fail  []scripted
		kind  error
		want  string
		calls int
	}{
		{"context exceeded", []scripted{{400, `{"error":{"message":"This model's maximum context length is 4096 tokens. However, your messages resulted in 5000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`}},
			ErrTooLong, "4096", 1},
		{"llama.cpp context", []scripted{{400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`}},
			ErrTooLong, "available context size", 1},
		{"retried", []scripted{{502, "Bad Gateway"}, {500, `{"error":{"message":"oops"}}`}}, nil, "", 3},
		{"unauthorized", []scripted{{401, `{"error":{"message":"Invalid API Key"}}`}}, ErrUnauthorized, "set GRIMOIRE_TEST_CHAT_KEY", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOpenAI(t, "m")
			t.Setenv("GRIMOIRE_TEST_CHAT_KEY", "")
			m, err := newOpenAI(t.Context(), openAIOpts(f, "m"), nil)
			if err != nil {
				t.Fatal(err)
			}
			f.fail = tc.fail
			_, err = m.Complete(t.Context(), "", "x")
			if len(f.chats) != tc.calls {
				t.Errorf("%d calls, want %d", len(f.chats), tc.calls)
			}
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %v with %q", err, tc.kind, tc.want)
			}
		})
	}
}

func TestOpenAIChatUnreachable(t *testing.T) {
	u := closedURL(t) + "/v1"
	_, err := newOpenAI(t.Context(), Config{URL: u, Model: "m"}, nil)
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), u) || !strings.Contains(err.Error(), "[context] url") {
		t.Fatalf("err = %v", err)
	}
}
