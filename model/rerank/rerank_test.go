package rerank

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/model/modelserver"
)

// pool is a search's candidates for the question "which knot makes a fixed
// loop": passage 37 answers it, passage 11 half does, the rest do not.
func pool(n int) (query string, passages []string, best, second int) {
	passages = make([]string, n)
	for i := range passages {
		passages[i] = fmt.Sprintf("Passage %d tells of tides, harbours and the weather at sea.", i)
	}
	best, second = 37%n, 11%n
	passages[best] = "The bowline makes a fixed loop at the end of a line."
	passages[second] = "A loop can be tied in many ways."
	return "Which knot makes a fixed loop?", passages, best, second
}

func mustNew(t *testing.T, c Config) *Reranker {
	t.Helper()
	r, err := New(c, nil)
	if err != nil || r == nil {
		t.Fatalf("New(%+v) = %v, %v", c, r, err)
	}
	return r
}

func argmax(scores []Score) int {
	best := 0
	for i, s := range scores {
		if s.Relevance > scores[best].Relevance {
			best = i
		}
	}
	return best
}

func TestTEI(t *testing.T) {
	f := newFakeTEI(t)
	c := fast()
	c.Provider, c.URL = ProviderTEI, f.URL
	r := mustNew(t, c)
	query, passages, best, second := pool(50)
	scores, err := r.Rerank(t.Context(), query, passages)
	if err != nil {
		t.Fatal(err)
	}
	if len(scores) != 50 || argmax(scores) != best || scores[second].Relevance <= scores[0].Relevance {
		t.Fatalf("scores out of order: best %d, second %d: %v", best, second, scores)
	}
	for i, s := range scores {
		if want := fakeLogit(query, passages[i]); s.Relevance != want {
			t.Errorf("passage %d: relevance %v, want the raw logit %v", i, s.Relevance, want)
		}
		if want := logistic(s.Relevance); math.Abs(s.Probability-want) > 1e-12 {
			t.Errorf("passage %d: probability %v, want %v", i, s.Probability, want)
		}
	}
	// 50 passages, in the server's batches of at most 32, raw and never
	// truncated.
	if len(f.requests) != 2 {
		t.Fatalf("%d requests, want 2 batches", len(f.requests))
	}
	sizes := len(f.requests[0].Texts) + len(f.requests[1].Texts)
	for _, req := range f.requests {
		if len(req.Texts) > 32 || !req.RawScores || req.Truncate || req.Query != query {
			t.Errorf("request %+v", req)
		}
	}
	if sizes != 50 {
		t.Errorf("batches hold %d passages", sizes)
	}
	if info := r.srv.info(); info != (serverInfo{Provider: ProviderTEI, Model: "BAAI/bge-reranker-base", Logits: true}) {
		t.Errorf("info %+v", info)
	}
}

func TestOpenAIDialects(t *testing.T) {
	for _, flavor := range []string{"llama.cpp", "vllm", "cohere"} {
		t.Run(flavor, func(t *testing.T) {
			f := newFakeOpenAI(t, flavor)
			c := fast()
			c.Provider, c.URL = ProviderOpenAI, f.base()
			if flavor == "cohere" {
				// Cohere lists no models here, and wants a key.
				c.Model, c.APIKeyEnv = f.model, "GRIMOIRE_TEST_RERANK_KEY"
				t.Setenv(c.APIKeyEnv, f.key)
			}
			r := mustNew(t, c)
			query, passages, best, second := pool(50)
			scores, err := r.Rerank(t.Context(), query, passages)
			if err != nil {
				t.Fatal(err)
			}
			if argmax(scores) != best || scores[second].Relevance <= scores[0].Relevance {
				t.Fatalf("scores out of order: %v", scores)
			}
			info := r.srv.info()
			logits := flavor == "llama.cpp"
			if info.Logits != logits || info.Model != f.model {
				t.Errorf("info %+v; want logits %v, model %s", info, logits, f.model)
			}
			for i, s := range scores {
				want := s.Relevance
				if logits {
					want = logistic(s.Relevance)
				}
				if math.Abs(s.Probability-want) > 1e-12 || s.Probability < 0 || s.Probability > 1 {
					t.Errorf("passage %d: probability %v from relevance %v", i, s.Probability, s.Relevance)
				}
			}
			// The probe, then the search; each asks for every score and
			// names the model.
			if len(f.requests) != 2 {
				t.Fatalf("%d requests, want the probe and the search", len(f.requests))
			}
			last := f.requests[1]
			if last["model"] != f.model || last["top_n"] != float64(50) || last["query"] != query || last["texts"] != nil {
				t.Errorf("request %v", last)
			}
		})
	}
}

// TestScaleFromScores: scores within 0 to 1 are taken for probabilities
// until the server gives one outside, which shows them to be logits from
// then on.
func TestScaleFromScores(t *testing.T) {
	f := newFakeOpenAI(t, "vllm")
	c := fast()
	c.Provider, c.URL = ProviderOpenAI, f.base()
	r := mustNew(t, c)
	query, passages, _, _ := pool(6)
	s, err := r.Rerank(t.Context(), query, passages)
	if err != nil || r.srv.info().Logits || s[0].Probability != s[0].Relevance {
		t.Fatalf("probabilities: %v %v %+v", s, err, r.srv.info())
	}
	f.raw = true
	for range 2 {
		s, err = r.Rerank(t.Context(), query, passages)
		if err != nil || !r.srv.info().Logits || math.Abs(s[0].Probability-logistic(s[0].Relevance)) > 1e-12 {
			t.Fatalf("logits: %v %v %+v", s, err, r.srv.info())
		}
	}
	for _, tc := range []struct {
		scores []float64
		want   bool
	}{{[]float64{0, 0.5, 1}, true}, {[]float64{0.2, 1.0001}, false}, {[]float64{-0.1}, false}, {nil, true}} {
		if got := probabilities(tc.scores); got != tc.want {
			t.Errorf("probabilities(%v) = %v", tc.scores, got)
		}
	}
}

func TestRefusals(t *testing.T) {
	_, passages, _, _ := pool(5)
	long := append([]string{}, passages...)
	long[3] = strings.Repeat("word ", 600)
	tests := []struct {
		name     string
		setup    func(t *testing.T) Config
		passages []string
		kind     error
		code     fault.Code
		contains []string
	}{
		{name: "TEI serving an embedding model", kind: ErrNotReranker, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				f := newFakeTEI(t)
				f.model, f.kind = "BAAI/bge-small-en-v1.5", "embedding"
				return Config{Provider: ProviderTEI, URL: f.URL}
			},
			contains: []string{"BAAI/bge-small-en-v1.5", "--model-id BAAI/bge-reranker-v2-m3"}},
		{name: "TEI serving another model", kind: ErrModelNotFound, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				f := newFakeTEI(t)
				return Config{Provider: ProviderTEI, URL: f.URL, Model: "BAAI/bge-reranker-v2-m3"}
			},
			contains: []string{"serves BAAI/bge-reranker-base, not BAAI/bge-reranker-v2-m3", `model = "BAAI/bge-reranker-base"`}},
		{name: "TEI under /v1", kind: ErrNotReranker, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				f := newFakeTEI(t)
				return Config{Provider: ProviderTEI, URL: f.URL + "/v1"}
			},
			contains: []string{"404", "not under /v1"}},
		{name: "TEI wants a key", kind: ErrUnauthorized, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				f := newFakeTEI(t)
				f.key = "sekrit"
				t.Setenv("GRIMOIRE_TEST_RERANK_KEY", "")
				return Config{Provider: ProviderTEI, URL: f.URL, APIKeyEnv: "GRIMOIRE_TEST_RERANK_KEY"}
			},
			contains: []string{"set GRIMOIRE_TEST_RERANK_KEY"}},
		{name: "TEI refuses a long passage", kind: ErrTooLong, code: fault.Internal, passages: long,
			setup: func(t *testing.T) Config {
				f := newFakeTEI(t)
				return Config{Provider: ProviderTEI, URL: f.URL}
			},
			contains: []string{"512 tokens", "never cut", "bge-reranker-v2-m3"}},
		{name: "llama.cpp without --reranking", kind: ErrNotReranker, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				f := newFakeOpenAI(t, "llama.cpp")
				f.reranking = false
				return Config{Provider: ProviderOpenAI, URL: f.base()}
			},
			contains: []string{"501", "does not support reranking", "start llama-server with --reranking"}},
		{name: "llama.cpp refuses a long passage", kind: ErrTooLong, code: fault.Internal, passages: long,
			setup: func(t *testing.T) Config {
				f := newFakeOpenAI(t, "llama.cpp")
				return Config{Provider: ProviderOpenAI, URL: f.base()}
			},
			contains: []string{"too large to process", "512 tokens", "--ubatch-size"}},
		{name: "TEI's address as openai", kind: ErrNotReranker, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				f := newFakeTEI(t)
				return Config{Provider: ProviderOpenAI, URL: f.URL, Model: "x"}
			},
			contains: []string{"422", "missing field `texts`", `provider = "tei"`}},
		{name: "TEI's address under /v1 as openai", kind: ErrNotReranker, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				f := newFakeTEI(t)
				return Config{Provider: ProviderOpenAI, URL: f.URL + "/v1", Model: "x"}
			},
			contains: []string{"404", `provider = "tei"`}},
		{name: "llama.cpp's address as tei", kind: ErrNotReranker, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				f := newFakeOpenAI(t, "llama.cpp")
				return Config{Provider: ProviderTEI, URL: f.URL}
			},
			contains: []string{"GET", "/info: 404", `provider = "openai"`}},
		{name: "vLLM without the model", kind: ErrModelNotFound, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				f := newFakeOpenAI(t, "vllm")
				return Config{Provider: ProviderOpenAI, URL: f.base(), Model: "BAAI/bge-reranker-large"}
			},
			contains: []string{"does not exist", "check [rerank] model", "BAAI/bge-reranker-v2-m3"}},
		{name: "Cohere without a model", kind: modelserver.ErrNoModel, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				f := newFakeOpenAI(t, "cohere")
				t.Setenv("GRIMOIRE_TEST_RERANK_KEY", f.key)
				return Config{Provider: ProviderOpenAI, URL: f.base(), APIKeyEnv: "GRIMOIRE_TEST_RERANK_KEY"}
			},
			contains: []string{"no [rerank] model set", "set [rerank] model"}},
		{name: "Cohere refuses the key", kind: ErrUnauthorized, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				f := newFakeOpenAI(t, "cohere")
				t.Setenv("GRIMOIRE_TEST_RERANK_KEY", "wrong")
				return Config{Provider: ProviderOpenAI, URL: f.base(), Model: f.model, APIKeyEnv: "GRIMOIRE_TEST_RERANK_KEY"}
			},
			contains: []string{"401", "refused the API key in GRIMOIRE_TEST_RERANK_KEY"}},
		{name: "nothing there", kind: ErrUnreachable, code: fault.Invalid,
			setup: func(t *testing.T) Config {
				return Config{Provider: ProviderTEI, URL: closedURL(t)}
			},
			contains: []string{"not reachable", "start it, or check [rerank] url"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.setup(t)
			c.Transport = fast().Transport
			r := mustNew(t, c)
			ps := tc.passages
			if ps == nil {
				ps = passages
			}
			_, err := r.Rerank(t.Context(), "which knot makes a loop", ps)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("%v: not %v", err, tc.kind)
			}
			if got := fault.CodeOf(err); got != tc.code {
				t.Errorf("%v: code %v, want %v", err, got, tc.code)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "[rerank] "+c.Provider+": ") {
				t.Errorf("%q does not name the section and provider", msg)
			}
			for _, s := range tc.contains {
				if !strings.Contains(msg, s) {
					t.Errorf("%q lacks %q", msg, s)
				}
			}
		})
	}
}

// TestLateServer starts the server after a first failure: the reranker
// reaches it on the next call, as grimoire serve needs when the model
// server comes up after it.
func TestLateServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := fast()
	c.Provider, c.URL = ProviderOpenAI, "http://"+addr+"/v1"
	r := mustNew(t, c)
	query, passages, best, _ := pool(8)
	begin := time.Now()
	if _, err := r.Rerank(t.Context(), query, passages); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("before the server: %v", err)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("a closed port took %v to report", d)
	}
	f := newFakeOpenAI(t, "llama.cpp")
	f.Close()
	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("port %s taken meanwhile: %v", addr, err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(f.serve)}}
	srv.Start()
	defer srv.Close()
	scores, err := r.Rerank(t.Context(), query, passages)
	if err != nil || argmax(scores) != best {
		t.Fatalf("after the server started: %v, %v", scores, err)
	}
}

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string // the error, or "" for none
		none bool
	}{
		{c: Config{Provider: "none"}, none: true},
		{c: Config{Provider: "tei"}},
		{c: Config{Provider: "openai", URL: "localhost:8012/v1"}},
		{c: Config{Provider: "cohere"}, want: `[rerank] provider = "cohere": want "none", "tei" or "openai"`},
		{c: Config{Provider: ""}, want: `[rerank] provider = "": want "none", "tei" or "openai"`},
		{c: Config{Provider: "tei", URL: "ftp://host"}, want: "[rerank] url: server url \"ftp://host\": scheme must be http or https"},
	} {
		r, err := New(tc.c, nil)
		switch {
		case tc.want != "":
			if err == nil || err.Error() != tc.want || fault.CodeOf(err) != fault.Invalid {
				t.Errorf("New(%+v) = %v, want %s (Invalid)", tc.c, err, tc.want)
			}
		case err != nil:
			t.Errorf("New(%+v): %v", tc.c, err)
		case tc.none != (r == nil):
			t.Errorf("New(%+v) = %v", tc.c, r)
		}
	}
	if n := (Config{Provider: "openai", Model: " bge-reranker-v2-m3 "}).Name(); n != "openai/bge-reranker-v2-m3" {
		t.Errorf("Name = %q", n)
	}
	// No request before the first Rerank.
	if _, err := New(Config{Provider: "tei", URL: closedURL(t)}, nil); err != nil {
		t.Errorf("New contacted the server: %v", err)
	}
}

func TestSigmoid(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{{0, 0.5}, {800, 1}, {-800, 0}, {2, 0.8807970779778823}, {-2, 0.11920292202211755}} {
		if got := sigmoid(tc.x); math.Abs(got-tc.want) > 1e-15 || math.IsNaN(got) {
			t.Errorf("sigmoid(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
}
