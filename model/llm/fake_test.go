package llm

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testBackoff    = time.Millisecond
	testMaxBackoff = 2 * time.Millisecond
)

type fakeModel struct {
	name   string
	family string
	caps   []string
	ctx    int
}

type scripted struct {
	status int
	body   string
}

// chatRequest is what the fakes record of a request, both APIs.
type chatRequest struct {
	Model    string         `json:"model"`
	Messages []message      `json:"messages"`
	Stream   *bool          `json:"stream"`
	Think    *bool          `json:"think"`
	Options  map[string]any `json:"options"`
	// OpenAI
	Temperature *float64 `json:"temperature"`
	MaxTokens   *int     `json:"max_tokens"`
	auth        string
}

// fakeOllama speaks Ollama's /api/tags, /api/show and /api/chat.
type fakeOllama struct {
	*httptest.Server
	mu     sync.Mutex
	models []fakeModel
	reply  func(system, user string) string
	stream bool // answer as a stream whatever the request says
	fail   []scripted
	chats  []chatRequest
}

func newFakeOllama(t *testing.T, models ...fakeModel) *fakeOllama {
	t.Helper()
	f := &fakeOllama{models: models, reply: func(string, string) string { return "A reply." }}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeOllama) find(name string) (fakeModel, bool) {
	i := slices.IndexFunc(f.models, func(m fakeModel) bool {
		return strings.TrimSuffix(m.name, ":latest") == strings.TrimSuffix(name, ":latest")
	})
	if i < 0 {
		return fakeModel{}, false
	}
	return f.models[i], true
}

func (f *fakeOllama) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/tags":
		var ms []map[string]any
		for _, m := range f.models {
			ms = append(ms, map[string]any{"name": m.name, "model": m.name, "size": 2019393189,
				"details": map[string]any{"format": "gguf", "family": m.family, "families": []string{m.family}, "parameter_size": "3.2B", "quantization_level": "Q4_K_M"}})
		}
		writeJSON(w, 200, map[string]any{"models": ms})
	case r.Method == http.MethodPost && r.URL.Path == "/api/show":
		var req struct{ Model string }
		json.NewDecoder(r.Body).Decode(&req)
		m, ok := f.find(req.Model)
		if !ok {
			writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", req.Model)})
			return
		}
		writeJSON(w, 200, map[string]any{
			"parameters": "stop \"<|eot_id|>\"", "capabilities": m.caps,
			"model_info": map[string]any{"general.architecture": m.family, m.family + ".context_length": m.ctx},
		})
	case r.Method == http.MethodPost && r.URL.Path == "/api/chat":
		f.chat(w, r)
	default:
		http.Error(w, "404 page not found", http.StatusNotFound)
	}
}

func (f *fakeOllama) chat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	json.NewDecoder(r.Body).Decode(&req)
	f.chats = append(f.chats, req)
	if len(f.fail) > 0 {
		s := f.fail[0]
		f.fail = f.fail[1:]
		w.WriteHeader(s.status)
		w.Write([]byte(s.body))
		return
	}
	if _, ok := f.find(req.Model); !ok {
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model %q not found, try pulling it first", req.Model)})
		return
	}
	var system, user string
	words := 0
	for _, m := range req.Messages {
		words += len(strings.Fields(m.Content))
		if m.Role == "system" {
			system = m.Content
		} else {
			user = m.Content
		}
	}
	// Ollama cuts a prompt longer than num_ctx and says nothing.
	if n, ok := req.Options["num_ctx"].(float64); ok && words > int(n) {
		words = int(n)
	}
	reply := f.reply(system, user)
	final := map[string]any{"model": req.Model, "created_at": "2025-05-01T10:00:00Z",
		"message": map[string]any{"role": "assistant", "content": ""}, "done": true, "done_reason": "stop",
		"total_duration": 4883583458, "prompt_eval_count": words, "eval_count": len(strings.Fields(reply))}
	if f.stream || (req.Stream != nil && *req.Stream) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		enc := json.NewEncoder(w)
		for _, part := range strings.SplitAfter(reply, " ") {
			enc.Encode(map[string]any{"model": req.Model, "message": map[string]any{"role": "assistant", "content": part}, "done": false})
		}
		enc.Encode(final)
		return
	}
	final["message"] = map[string]any{"role": "assistant", "content": reply}
	writeJSON(w, 200, final)
}

// fakeOpenAI speaks the OpenAI /models and /chat/completions API under /v1.
type fakeOpenAI struct {
	*httptest.Server
	mu    sync.Mutex
	ids   []string
	any   bool // answers for any model name, as llama.cpp does
	sse   bool
	reply func(system, user string) string
	fail  []scripted
	chats []chatRequest
}

func newFakeOpenAI(t *testing.T, ids ...string) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{ids: ids, reply: func(string, string) string { return "A reply." }}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		var data []map[string]any
		for _, id := range f.ids {
			data = append(data, map[string]any{"id": id, "object": "model", "owned_by": "organization_owner"})
		}
		writeJSON(w, 200, map[string]any{"object": "list", "data": data})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		var req chatRequest
		json.NewDecoder(r.Body).Decode(&req)
		req.auth = r.Header.Get("Authorization")
		f.chats = append(f.chats, req)
		if len(f.fail) > 0 {
			s := f.fail[0]
			f.fail = f.fail[1:]
			w.WriteHeader(s.status)
			w.Write([]byte(s.body))
			return
		}
		if !f.any && !slices.Contains(f.ids, req.Model) {
			writeJSON(w, 404, map[string]any{"error": map[string]any{"message": fmt.Sprintf("model '%s' not found", req.Model), "type": "invalid_request_error", "code": "model_not_found"}})
			return
		}
		var system, user string
		for _, m := range req.Messages {
			if m.Role == "system" {
				system = m.Content
			} else {
				user = m.Content
			}
		}
		reply := f.reply(system, user)
		if f.sse {
			w.Header().Set("Content-Type", "text/event-stream")
			for _, part := range strings.SplitAfter(reply, " ") {
				b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk",
					"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": part}, "finish_reason": nil}}})
				fmt.Fprintf(w, "data: %s\n\n", b)
			}
			fmt.Fprint(w, `data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
			return
		}
		writeJSON(w, 200, map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1715367049, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": reply}, "finish_reason": "stop"}},
			"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}})
	default:
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "Unexpected endpoint or method.", "type": "not_found"}})
	}
}

func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func llama() fakeModel {
	return fakeModel{name: "llama3.2:latest", family: "llama", caps: []string{"completion", "tools"}, ctx: 131072}
}
