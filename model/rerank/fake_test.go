package rerank

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeLogit is the fake cross-encoder: the share of the query's words of
// four letters or more that the passage holds, mapped to a logit from -8
// (none) to +8 (all). Its "tokens" are words.
func fakeLogit(query, passage string) float64 {
	have := map[string]bool{}
	for _, w := range words(passage) {
		have[w] = true
	}
	var n, got float64
	for _, w := range words(query) {
		if len(w) < 4 {
			continue
		}
		n++
		if have[w] {
			got++
		}
	}
	if n == 0 {
		return -8
	}
	return -8 + 16*got/n
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

func tokens(s string) int { return len(strings.Fields(s)) }

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// rank is one scored text, before the server sorts them.
type rank struct {
	index int
	score float64
}

// sortRanks orders ranks best first, as every server does.
func sortRanks(rs []rank) {
	slices.SortStableFunc(rs, func(a, b rank) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
}

// fakeTEI speaks Hugging Face Text Embeddings Inference: GET /info and
// POST /rerank, with its validation errors (413, error_type "Validation")
// and its batch limit.
type fakeTEI struct {
	*httptest.Server
	model    string
	kind     string // "reranker", or "embedding" for a server of the wrong kind
	maxInput int    // max_input_length, in words
	maxBatch int    // max_client_batch_size
	key      string // wanted bearer token; "" for none

	mu       sync.Mutex
	requests []teiRequest
}

func newFakeTEI(t *testing.T) *fakeTEI {
	t.Helper()
	f := &fakeTEI{model: "BAAI/bge-reranker-base", kind: "reranker", maxInput: 512, maxBatch: 32}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeTEI) serve(w http.ResponseWriter, r *http.Request) {
	if f.key != "" && r.Header.Get("Authorization") != "Bearer "+f.key {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/info":
		kinds := map[string]any{
			"reranker":  map[string]any{"id2label": map[string]string{"0": "LABEL_0"}, "label2id": map[string]int{"LABEL_0": 0}},
			"embedding": map[string]any{"pooling": "cls"},
		}
		writeJSON(w, 200, map[string]any{
			"model_id": f.model, "model_sha": nil, "model_dtype": "float32",
			"model_type":              map[string]any{f.kind: kinds[f.kind]},
			"max_concurrent_requests": 512, "max_input_length": f.maxInput, "max_batch_tokens": 16384,
			"max_batch_requests": nil, "max_client_batch_size": f.maxBatch, "auto_truncate": false,
			"tokenization_workers": 2, "version": "1.7.0", "sha": nil, "docker_label": nil,
		})
	case r.Method == http.MethodPost && r.URL.Path == "/rerank":
		f.rerank(w, r)
	default:
		w.WriteHeader(http.StatusNotFound) // axum's 404 has no body
	}
}

func (f *fakeTEI) rerank(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query      string   `json:"query"`
		Texts      []string `json:"texts"`
		RawScores  bool     `json:"raw_scores"`
		Truncate   *bool    `json:"truncate"`
		ReturnText bool     `json:"return_text"`
	}
	var fields map[string]json.RawMessage
	body, _ := io.ReadAll(r.Body)
	if json.Unmarshal(body, &fields) != nil || json.Unmarshal(body, &req) != nil || fields["query"] == nil || fields["texts"] == nil {
		// axum's rejection of a body that is not a RerankRequest: plain text.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprintf(w, "Failed to deserialize the JSON body into the target type: missing field `texts` at line 1 column %d", len(body))
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, teiRequest{Query: req.Query, Texts: req.Texts, RawScores: req.RawScores,
		Truncate: req.Truncate == nil || *req.Truncate, ReturnText: req.ReturnText})
	f.mu.Unlock()
	if f.kind != "reranker" {
		writeJSON(w, 424, map[string]string{"error": "model is not a re-ranker model", "error_type": "Backend"})
		return
	}
	if len(req.Texts) == 0 {
		writeJSON(w, 413, map[string]string{"error": "`texts` cannot be empty", "error_type": "Validation"})
		return
	}
	if len(req.Texts) > f.maxBatch {
		writeJSON(w, 413, map[string]string{"error": fmt.Sprintf("batch size %d > maximum allowed batch size %d", len(req.Texts), f.maxBatch), "error_type": "Validation"})
		return
	}
	truncate := req.Truncate != nil && *req.Truncate
	var ranks []rank
	for i, text := range req.Texts {
		// The pair is encoded with three special tokens.
		if n := tokens(req.Query) + tokens(text) + 3; n > f.maxInput && !truncate {
			writeJSON(w, 413, map[string]string{"error": fmt.Sprintf("`inputs` must have less than %d tokens. Given: %d", f.maxInput, n), "error_type": "Validation"})
			return
		}
		s := fakeLogit(req.Query, text)
		if !req.RawScores {
			s = logistic(s)
		}
		ranks = append(ranks, rank{i, s})
	}
	sortRanks(ranks)
	out := []map[string]any{}
	for _, rk := range ranks {
		m := map[string]any{"index": rk.index, "score": rk.score}
		if req.ReturnText {
			m["text"] = req.Texts[rk.index]
		}
		out = append(out, m)
	}
	writeJSON(w, 200, out)
}

// fakeOpenAI speaks the results format of /rerank as three servers do:
// llama.cpp's server (logits, errors {"error": {code, message, type}},
// /rerank also at the root and TEI's format for "texts"), vLLM
// (probabilities, a checked model name, top_n) and Cohere's v2 API (an
// API key and a model required, no /models).
type fakeOpenAI struct {
	*httptest.Server
	flavor    string // "llama.cpp", "vllm" or "cohere"
	model     string
	reranking bool // llama.cpp started with --reranking
	raw       bool // vLLM gives logits (a model served without its sigmoid)
	maxInput  int  // llama.cpp's physical batch, vLLM's max_model_len, in words
	key       string

	mu       sync.Mutex
	requests []map[string]any
}

func newFakeOpenAI(t *testing.T, flavor string) *fakeOpenAI {
	t.Helper()
	f := &fakeOpenAI{flavor: flavor, reranking: true, maxInput: 512}
	switch flavor {
	case "llama.cpp":
		f.model = "bge-reranker-v2-m3-Q8_0.gguf"
	case "vllm":
		f.model, f.maxInput = "BAAI/bge-reranker-v2-m3", 8192
	case "cohere":
		f.model, f.key = "rerank-v3.5", "sekrit"
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// base is the URL to configure: the API's root.
func (f *fakeOpenAI) base() string {
	if f.flavor == "cohere" {
		return f.URL + "/v2"
	}
	return f.URL + "/v1"
}

func (f *fakeOpenAI) fail(w http.ResponseWriter, status int, typ, msg string) {
	switch f.flavor {
	case "llama.cpp":
		writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg, "type": typ}})
	case "vllm":
		writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": status}})
	default:
		writeJSON(w, status, map[string]any{"id": "c0ffee", "message": msg})
	}
}

func (f *fakeOpenAI) serve(w http.ResponseWriter, r *http.Request) {
	if f.key != "" && r.Header.Get("Authorization") != "Bearer "+f.key {
		f.fail(w, 401, "authentication_error", "invalid api token")
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models" && f.flavor != "cohere":
		m := map[string]any{"id": f.model, "object": "model", "created": 1735689600, "owned_by": f.flavor}
		if f.flavor == "vllm" {
			m["max_model_len"] = f.maxInput
		}
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{m}})
	case r.Method == http.MethodPost && f.rerankPath(r.URL.Path):
		f.rerank(w, r)
	default:
		f.fail(w, 404, "not_found_error", "File Not Found")
	}
}

func (f *fakeOpenAI) rerankPath(p string) bool {
	switch f.flavor {
	case "llama.cpp":
		return p == "/rerank" || p == "/reranking" || p == "/v1/rerank" || p == "/v1/reranking"
	case "vllm":
		return p == "/rerank" || p == "/v1/rerank" || p == "/v2/rerank"
	}
	return p == "/v1/rerank" || p == "/v2/rerank"
}

func (f *fakeOpenAI) rerank(w http.ResponseWriter, r *http.Request) {
	var raw map[string]any
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		f.fail(w, 400, "invalid_request_error", "invalid JSON")
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, raw)
	f.mu.Unlock()
	var req struct {
		Model     string   `json:"model"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		Texts     []string `json:"texts"`
		TopN      *int     `json:"top_n"`
	}
	b, _ := json.Marshal(raw)
	json.Unmarshal(b, &req)
	_, tei := raw["texts"]
	switch {
	case f.flavor == "llama.cpp" && !f.reranking:
		f.fail(w, 501, "not_supported_error", "This server does not support reranking. Start it with `--reranking`")
		return
	case f.flavor != "llama.cpp" && req.Model != f.model:
		if f.flavor == "vllm" {
			f.fail(w, 404, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", req.Model))
		} else {
			f.fail(w, 404, "", fmt.Sprintf("model '%s' not found, make sure the correct model ID was used and that you have access to the model.", req.Model))
		}
		return
	}
	docs := req.Documents
	if tei {
		docs = req.Texts
	}
	if len(docs) == 0 {
		f.fail(w, 400, "invalid_request_error", `"documents" must be a non-empty string array`)
		return
	}
	var ranks []rank
	total := 0
	for i, d := range docs {
		n := tokens(req.Query) + tokens(d) + 3
		total += n
		if n > f.maxInput {
			switch f.flavor {
			case "llama.cpp":
				f.fail(w, 500, "server_error", fmt.Sprintf("input (%d tokens) is too large to process. increase the physical batch size (current batch size: %d)", n, f.maxInput))
			case "vllm":
				f.fail(w, 400, "BadRequestError", fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens in the input for rerank. Please reduce the length of the input.", f.maxInput, n))
			}
			return
		}
		s := fakeLogit(req.Query, d)
		if f.flavor != "llama.cpp" && !f.raw {
			s = logistic(s) // vLLM applies the model's sigmoid; Cohere's scores are 0 to 1
		}
		ranks = append(ranks, rank{i, s})
	}
	sortRanks(ranks)
	if req.TopN != nil && *req.TopN > 0 && *req.TopN < len(ranks) {
		ranks = ranks[:*req.TopN]
	}
	label := "relevance_score"
	if tei {
		label = "score"
	}
	results := []map[string]any{}
	for _, rk := range ranks {
		m := map[string]any{"index": rk.index, label: rk.score}
		if f.flavor == "vllm" {
			m["document"] = map[string]string{"text": docs[rk.index]}
		}
		results = append(results, m)
	}
	switch {
	case tei:
		writeJSON(w, 200, results)
	case f.flavor == "llama.cpp":
		writeJSON(w, 200, map[string]any{"model": f.model, "object": "list",
			"usage": map[string]int{"prompt_tokens": total, "total_tokens": total}, "results": results})
	case f.flavor == "vllm":
		writeJSON(w, 200, map[string]any{"id": "rerank-5f3a", "model": f.model, "usage": map[string]int{"total_tokens": total}, "results": results})
	default:
		writeJSON(w, 200, map[string]any{"id": "07734bd2", "results": results,
			"meta": map[string]any{"api_version": map[string]string{"version": "2"}, "billed_units": map[string]int{"search_units": 1}}})
	}
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

// fast is a transport whose retries wait a millisecond.
func fast() Config {
	var c Config
	c.Timeout, c.Backoff, c.MaxBackoff = 5*time.Second, time.Millisecond, 2*time.Millisecond
	return c
}
