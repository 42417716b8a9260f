package embed

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeModel is a model of a fake server. Its "tokens" are words.
type fakeModel struct {
	name   string // as /api/tags lists it
	family string
	caps   []string // nil: an Ollama too old to report capabilities
	ctx    int      // trained context, in words
	dim    int
	zero   bool // answers zero vectors, as broken model builds do
}

// fakeVector is the deterministic, deliberately not unit-length vector the
// fakes return for a text.
func fakeVector(text string, dim int) []float32 {
	v := make([]float32, dim)
	h := fnv.New64a()
	h.Write([]byte(text))
	x := h.Sum64()
	for i := range v {
		x = x*6364136223846793005 + 1442695040888963407
		v[i] = float32(int64(x>>40)%1000)/100 + 0.5
	}
	return v
}

func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / math.Sqrt(n))
	}
	return out
}

// scripted is a queue of failures answered before the real response.
type scripted struct {
	status int
	body   string
	header map[string]string
}

// fakeOllama speaks Ollama's /api/tags, /api/show and /api/embed, with the
// bodies a real server sends, errors included.
type fakeOllama struct {
	*httptest.Server
	mu       sync.Mutex
	models   []fakeModel
	fail     []scripted // for /api/embed
	noShow   bool       // /api/show missing, as on very old servers
	noEmbed  bool       // /api/embed missing (Ollama before 0.3.4)
	block    bool       // /api/embed waits for the client to give up
	embeds   [][]string // inputs of each /api/embed call
	numCtx   []any      // options.num_ctx of each call
	truncate []*bool
}

func newFakeOllama(t *testing.T, models ...fakeModel) *fakeOllama {
	t.Helper()
	f := &fakeOllama{models: models}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeOllama) find(name string) (fakeModel, bool) {
	n := strings.TrimSuffix(name, ":latest")
	for _, m := range f.models {
		if strings.TrimSuffix(m.name, ":latest") == n {
			return m, true
		}
	}
	return fakeModel{}, false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeOllama) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/tags":
		var ms []map[string]any
		for _, m := range f.models {
			ms = append(ms, map[string]any{
				"name": m.name, "model": m.name, "modified_at": "2025-05-01T10:00:00.0+02:00", "size": 274302450,
				"digest": "0a109f422b47e3a30ba2b10eca18548e944e8a23073ee3f3e947efcf3c45e59f",
				"details": map[string]any{"parent_model": "", "format": "gguf", "family": m.family,
					"families": []string{m.family}, "parameter_size": "137M", "quantization_level": "F16"},
			})
		}
		writeJSON(w, 200, map[string]any{"models": ms})
	case r.Method == http.MethodPost && r.URL.Path == "/api/show" && !f.noShow:
		var req struct{ Model, Name string }
		json.NewDecoder(r.Body).Decode(&req)
		m, ok := f.find(req.Model)
		if !ok {
			writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model '%s' not found", req.Model)})
			return
		}
		resp := map[string]any{
			"modelfile": "FROM /models/blob", "parameters": "num_ctx                        8192",
			"template": "{{ .Prompt }}", "details": map[string]any{"format": "gguf", "family": m.family},
			"model_info": map[string]any{
				"general.architecture":         m.family,
				"general.parameter_count":      136727040,
				m.family + ".context_length":   m.ctx,
				m.family + ".embedding_length": m.dim,
			},
			"modified_at": "2025-05-01T10:00:00.0+02:00",
		}
		if m.caps != nil {
			resp["capabilities"] = m.caps
		}
		writeJSON(w, 200, resp)
	case r.Method == http.MethodPost && r.URL.Path == "/api/embed" && !f.noEmbed:
		f.embed(w, r)
	default:
		http.Error(w, "404 page not found", http.StatusNotFound)
	}
}

func (f *fakeOllama) embed(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model    string          `json:"model"`
		Input    json.RawMessage `json:"input"`
		Truncate *bool           `json:"truncate"`
		Options  map[string]any  `json:"options"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, map[string]string{"error": "invalid request"})
		return
	}
	var input []string
	if json.Unmarshal(req.Input, &input) != nil {
		var one string
		json.Unmarshal(req.Input, &one)
		input = []string{one}
	}
	f.embeds = append(f.embeds, input)
	f.numCtx = append(f.numCtx, req.Options["num_ctx"])
	f.truncate = append(f.truncate, req.Truncate)
	if f.block {
		f.mu.Unlock()
		<-r.Context().Done()
		f.mu.Lock()
		return
	}
	if len(f.fail) > 0 {
		s := f.fail[0]
		f.fail = f.fail[1:]
		for k, v := range s.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(s.status)
		w.Write([]byte(s.body))
		return
	}
	m, ok := f.find(req.Model)
	if !ok {
		writeJSON(w, 404, map[string]string{"error": fmt.Sprintf("model %q not found, try pulling it first", req.Model)})
		return
	}
	if m.caps != nil && !contains(m.caps, "embedding") {
		writeJSON(w, 400, map[string]string{"error": fmt.Sprintf("%q does not support embeddings", req.Model)})
		return
	}
	limit := m.ctx
	if n, ok := req.Options["num_ctx"].(float64); ok && int(n) < limit {
		limit = int(n)
	}
	out := make([][]float32, len(input))
	tokens := 0
	for i, in := range input {
		words := strings.Fields(in)
		if len(words) > limit {
			if req.Truncate != nil && !*req.Truncate {
				writeJSON(w, 500, map[string]string{"error": "the input length exceeds the context length"})
				return
			}
			in = strings.Join(words[:limit], " ") // what Ollama does unless told not to
		}
		tokens += len(words)
		out[i] = fakeVector(in, m.dim)
		if m.zero {
			out[i] = make([]float32, m.dim)
		}
	}
	writeJSON(w, 200, map[string]any{"model": req.Model, "embeddings": out,
		"total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": tokens})
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// fakeOpenAI speaks the OpenAI /models and /embeddings API under /v1.
type fakeOpenAI struct {
	*httptest.Server
	mu       sync.Mutex
	ids      []string
	maxLen   int    // max_model_len listed, as vLLM does
	ctx      int    // words per input
	key      string // required bearer key, if set
	any      bool   // embeds with any model name, as llama.cpp does
	noModels bool
	tooLong  scripted // the error body for an over-long input
	fail     []scripted
	auth     []string // Authorization header of each /embeddings call
	embeds   [][]string
	format   []string
	dim      int
}

func newFakeOpenAI(t *testing.T, ids ...string) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{ids: ids, ctx: 512, dim: 8, tooLong: scripted{status: 400, body: `{"object":"error","message":"This model's maximum context length is 512 tokens. However, you requested 600 tokens in the input for embedding generation. Please reduce the length of the input.","type":"BadRequestError","param":null,"code":400}`}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.key != "" && r.Header.Get("Authorization") != "Bearer "+f.key {
		writeJSON(w, 401, map[string]any{"error": map[string]any{"message": "Incorrect API key provided.", "type": "invalid_request_error", "param": nil, "code": "invalid_api_key"}})
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models" && !f.noModels:
		var data []map[string]any
		for _, id := range f.ids {
			m := map[string]any{"id": id, "object": "model", "created": 1715367049, "owned_by": "system"}
			if f.maxLen > 0 {
				m["max_model_len"] = f.maxLen
			}
			data = append(data, m)
		}
		writeJSON(w, 200, map[string]any{"object": "list", "data": data})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/embeddings":
		f.embed(w, r)
	default:
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "Not found", "type": "not_found_error"}})
	}
}

func (f *fakeOpenAI) embed(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		EncodingFormat string   `json:"encoding_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": err.Error()}})
		return
	}
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.embeds = append(f.embeds, req.Input)
	f.format = append(f.format, req.EncodingFormat)
	if len(f.fail) > 0 {
		s := f.fail[0]
		f.fail = f.fail[1:]
		for k, v := range s.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(s.status)
		w.Write([]byte(s.body))
		return
	}
	if !f.any && !contains(f.ids, req.Model) {
		writeJSON(w, 404, map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model),
			"type":    "invalid_request_error", "param": nil, "code": "model_not_found"}})
		return
	}
	// Sent in reverse, which the API allows: clients must place by index.
	var data []map[string]any
	for i := len(req.Input) - 1; i >= 0; i-- {
		if len(strings.Fields(req.Input[i])) > f.ctx {
			w.WriteHeader(f.tooLong.status)
			w.Write([]byte(f.tooLong.body))
			return
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": fakeVector(req.Input[i], f.dim)})
	}
	writeJSON(w, 200, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 10, "total_tokens": 10}})
}

// closedURL returns the URL of a port nothing listens on.
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

// Test timings: retries wait a millisecond or two.
const (
	testBackoff    = time.Millisecond
	testMaxBackoff = 2 * time.Millisecond
)

// nomicModel is nomic-embed-text as Ollama describes it, with fewer dimensions.
func nomicModel() fakeModel {
	return fakeModel{name: "nomic-embed-text:latest", family: "nomic-bert", caps: []string{"embedding"}, ctx: 2048, dim: 16}
}
