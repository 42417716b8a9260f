package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// fakeReranker is a reranking server that speaks both wire formats, as
// llama.cpp's server does: TEI's (GET /info, POST /rerank with "texts",
// answered by a list of {index, score}) and the results format (GET
// /v1/models, POST /v1/rerank with "documents", answered by {results:
// [{index, relevance_score}]}). Its scores are logits: +6 for a passage
// that holds prefer, else below 0, shorter passages higher.
type fakeReranker struct {
	*httptest.Server
	prefer    string
	reranking bool // started with --reranking
	kind      string

	mu       sync.Mutex
	requests int
}

// newFakeReranker starts a fake reranker, changed by each of with before
// it serves.
func newFakeReranker(t *testing.T, with ...func(*fakeReranker)) *fakeReranker {
	t.Helper()
	f := &fakeReranker{reranking: true, kind: "reranker"}
	for _, change := range with {
		change(f)
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeReranker) score(passage string) float64 {
	if f.prefer != "" && strings.Contains(passage, f.prefer) {
		return 6
	}
	return -1 - float64(len(passage))/1000
}

func (f *fakeReranker) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests++
	f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/info":
		kinds := map[string]any{
			"reranker":  map[string]any{"id2label": map[string]string{"0": "LABEL_0"}, "label2id": map[string]int{"LABEL_0": 0}},
			"embedding": map[string]any{"pooling": "cls"},
		}
		writeJSONResponse(w, 200, map[string]any{"model_id": "BAAI/bge-reranker-base", "model_sha": nil, "model_dtype": "float32",
			"model_type": map[string]any{f.kind: kinds[f.kind]}, "max_concurrent_requests": 512, "max_input_length": 512,
			"max_batch_tokens": 16384, "max_batch_requests": nil, "max_client_batch_size": 32, "auto_truncate": false,
			"tokenization_workers": 2, "version": "1.7.0", "sha": nil, "docker_label": nil})
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		writeJSONResponse(w, 200, map[string]any{"object": "list", "data": []map[string]any{
			{"id": "bge-reranker-v2-m3-Q8_0.gguf", "object": "model", "created": 1735689600, "owned_by": "llamacpp"}}})
	case r.Method == http.MethodPost && (r.URL.Path == "/rerank" || r.URL.Path == "/v1/rerank"):
		if !f.reranking || f.kind != "reranker" {
			writeJSONResponse(w, 501, map[string]any{"error": map[string]any{"code": 501,
				"message": "This server does not support reranking. Start it with `--reranking`", "type": "not_supported_error"}})
			return
		}
		var req struct {
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			Texts     []string `json:"texts"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		tei := req.Texts != nil
		docs, label := req.Documents, "relevance_score"
		if tei {
			docs, label = req.Texts, "score"
		}
		results := []map[string]any{}
		for i, d := range docs {
			results = append(results, map[string]any{"index": i, label: f.score(d)})
		}
		sort.SliceStable(results, func(i, j int) bool { return results[i][label].(float64) > results[j][label].(float64) })
		if tei {
			writeJSONResponse(w, 200, results)
			return
		}
		writeJSONResponse(w, 200, map[string]any{"model": "bge-reranker-v2-m3-Q8_0.gguf", "object": "list",
			"usage": map[string]int{"prompt_tokens": 100, "total_tokens": 100}, "results": results})
	default:
		writeJSONResponse(w, 404, map[string]any{"error": map[string]any{"code": 404, "message": "File Not Found", "type": "not_found_error"}})
	}
}

func (f *fakeReranker) env(provider string) []string {
	url := f.URL
	if provider == "openai" {
		url += "/v1"
	}
	return []string{"GRIMOIRE_RERANK_PROVIDER=" + provider, "GRIMOIRE_RERANK_URL=" + url}
}

// rerankedHit is a hit of `query --json` with the scores reranking adds.
type rerankedHit struct {
	Text   string
	Score  float64
	Scores struct {
		Rerank            *float64 `json:"rerank"`
		RerankProbability *float64 `json:"rerank_probability"`
	}
}

// rerankLibrary is synced with the built-in embedder; six passages about
// knots answer "knot", so that the reranker has an order to change.
func rerankLibrary(t *testing.T) string {
	t.Helper()
	lib := t.TempDir()
	var b strings.Builder
	b.WriteString("# Knots\n\n")
	for i, k := range []string{"Bowline", "Clove hitch", "Reef knot", "Sheet bend", "Figure eight", "Round turn"} {
		fmt.Fprintf(&b, "## %s\n\nThe %s is a knot; knot %d of the book, tied in a line, a knot sailors use.\n\n", k, strings.ToLower(k), i)
	}
	writeFile(t, filepath.Join(lib, "knots.md"), b.String())
	writeFile(t, filepath.Join(lib, "tides.md"), "# Tides\n\n## Spring tides\n\nSpring tides follow the full and the new moon.\n")
	ok(t, lib, "sync")
	return lib
}

func TestRerankReordersHits(t *testing.T) {
	t.Parallel()
	lib := rerankLibrary(t)
	var plain []rerankedHit
	okEnv(t, lib, nil, &plain, "query", "knot", "--json")
	if len(plain) < 4 || plain[0].Scores.Rerank != nil {
		t.Fatalf("without a reranker: %+v", plain)
	}
	// The fusion's last hit is the one the reranker prefers.
	last := plain[len(plain)-1].Text
	for _, provider := range []string{"tei", "openai"} {
		t.Run(provider, func(t *testing.T) {
			f := newFakeReranker(t, func(f *fakeReranker) { f.prefer = last })
			var hits []rerankedHit
			okEnv(t, lib, f.env(provider), &hits, "query", "knot", "--json")
			if len(hits) != len(plain) || hits[0].Text != last {
				t.Fatalf("reranked: first %q, want %q (%d hits)", firstText(hits), last, len(hits))
			}
			for i, h := range hits {
				if h.Scores.Rerank == nil || h.Scores.RerankProbability == nil || h.Score != *h.Scores.Rerank {
					t.Fatalf("hit %d: %+v", i, h)
				}
				if p := *h.Scores.RerankProbability; p <= 0 || p >= 1 {
					t.Errorf("hit %d: probability %v", i, p)
				}
				if i > 0 && h.Score > hits[i-1].Score {
					t.Errorf("hit %d is out of the reranker's order", i)
				}
			}
			// People see the same order.
			out := okOut(t, lib, f.env(provider), "query", "knot")
			if !strings.HasPrefix(out, "1. ") || !strings.Contains(strings.SplitN(out, "\n\n", 2)[0], oneLine(last)[:40]) {
				t.Errorf("human output does not start with the reranked hit:\n%s", out)
			}
		})
	}
}

func firstText(hits []rerankedHit) string {
	if len(hits) == 0 {
		return ""
	}
	return hits[0].Text
}

func okOut(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	r := grimoireEnv(t, dir, env, args...)
	if r.code != 0 {
		t.Fatalf("grimoire %v: exit %d\n%s", args, r.code, r.stderr)
	}
	return r.stdout
}

// TestRerankServerDown: a reranker that does not answer leaves every hit in
// the fusion's order, with a warning that says where it was looked for and
// what to do; commands that do not search never look for it.
func TestRerankServerDown(t *testing.T) {
	t.Parallel()
	lib := rerankLibrary(t)
	var plain []rerankedHit
	okEnv(t, lib, nil, &plain, "query", "knot", "--json")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	for _, provider := range []string{"tei", "openai"} {
		env := []string{"GRIMOIRE_RERANK_PROVIDER=" + provider, "GRIMOIRE_RERANK_URL=" + closed}
		r := grimoireEnv(t, lib, env, "query", "knot", "--json")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", provider, r.code, r.stderr)
		}
		var hits []rerankedHit
		if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil {
			t.Fatal(err)
		}
		if len(hits) != len(plain) {
			t.Fatalf("%s: %d hits, want all %d", provider, len(hits), len(plain))
		}
		for i := range hits {
			if hits[i].Text != plain[i].Text || hits[i].Scores.Rerank != nil {
				t.Errorf("%s: hit %d differs from the fusion's", provider, i)
			}
		}
		if !strings.Contains(r.stderr, "WARN") || !strings.Contains(r.stderr, closed) || !strings.Contains(r.stderr, "check [rerank] url") {
			t.Errorf("%s: warning: %s", provider, r.stderr)
		}
	}
	f := newFakeReranker(t)
	for _, args := range [][]string{{"list"}, {"outline", "knots"}, {"status"}} {
		okEnv(t, lib, f.env("tei"), nil, args...)
	}
	if f.requests != 0 {
		t.Errorf("commands that do not search sent the reranker %d requests", f.requests)
	}
}

// TestRerankMisconfigured: a configuration the reranker cannot work with
// stops the search with exit 2 and the fix.
func TestRerankMisconfigured(t *testing.T) {
	t.Parallel()
	lib := rerankLibrary(t)
	noReranking := newFakeReranker(t, func(f *fakeReranker) { f.reranking = false })
	embedding := newFakeReranker(t, func(f *fakeReranker) { f.kind = "embedding" })
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{"unknown provider", []string{"GRIMOIRE_RERANK_PROVIDER=cohere"}, []string{`[rerank] provider = "cohere": want "none", "tei" or "openai"`}},
		{"bad url", []string{"GRIMOIRE_RERANK_PROVIDER=tei", "GRIMOIRE_RERANK_URL=ftp://localhost:8012"}, []string{"[rerank] url", "http or https"}},
		{"llama.cpp without --reranking", noReranking.env("openai"), []string{"[rerank] openai", noReranking.URL, "start llama-server with --reranking"}},
		{"TEI with an embedding model", embedding.env("tei"), []string{"[rerank] tei", "not a reranker", "--model-id BAAI/bge-reranker-v2-m3"}},
		{"TEI under /v1", []string{"GRIMOIRE_RERANK_PROVIDER=tei", "GRIMOIRE_RERANK_URL=" + embedding.URL + "/v1"}, []string{"404", "not under /v1"}},
		{"TEI with another model", append(newFakeReranker(t).env("tei"), "GRIMOIRE_RERANK_MODEL=BAAI/bge-reranker-v2-m3"),
			[]string{"serves BAAI/bge-reranker-base", `model = "BAAI/bge-reranker-base"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := grimoireEnv(t, lib, tc.env, "query", "knot")
			if r.code != exitInvalid {
				t.Fatalf("exit %d, want %d: %s", r.code, exitInvalid, r.stderr)
			}
			for _, s := range tc.want {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("stderr lacks %q: %s", s, r.stderr)
				}
			}
		})
	}
}
