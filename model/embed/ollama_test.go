package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
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
	e, err := newOllama(t.Context(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func checkUnit(t *testing.T, v []float32) {
	t.Helper()
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-5 {
		t.Fatalf("|v|² = %v, want 1", n)
	}
}

// checkVector checks that v is the fake's vector of text, normalised.
func checkVector(t *testing.T, v []float32, text string) {
	t.Helper()
	checkUnit(t, v)
	want := unit(fakeVector(text, len(v)))
	for i := range v {
		if math.Abs(float64(v[i]-want[i])) > 1e-5 {
			t.Fatalf("vector of %q differs at %d: %v, want %v", text, i, v[i], want[i])
		}
	}
}

func TestOllamaPrefixesAndInfo(t *testing.T) {
	tests := []struct {
		model       fakeModel
		config      string
		scheme      string
		query, doc  string
		wantCtx     int
		wantModelID string
	}{
		{nomicModel(), "nomic-embed-text", "nomic", "search_query: ", "search_document: ", 2048, "nomic-embed-text"},
		{nomicModel(), "nomic-embed-text:latest", "nomic", "search_query: ", "search_document: ", 2048, "nomic-embed-text"},
		{fakeModel{name: "mxbai-embed-large:latest", family: "bert", caps: []string{"embedding"}, ctx: 512, dim: 8},
			"mxbai-embed-large", "bge", "Represent this sentence for searching relevant passages: ", "", 512, "mxbai-embed-large"},
		{fakeModel{name: "snowflake-arctic-embed:335m", family: "bert", caps: []string{"embedding"}, ctx: 512, dim: 8},
			"snowflake-arctic-embed:335m", "bge", "Represent this sentence for searching relevant passages: ", "", 512, "snowflake-arctic-embed:335m"},
		{fakeModel{name: "jeffh/intfloat-multilingual-e5-large:f16", family: "xlm-roberta", caps: []string{"embedding"}, ctx: 512, dim: 8},
			"jeffh/intfloat-multilingual-e5-large:f16", "e5", "query: ", "passage: ", 512, "jeffh/intfloat-multilingual-e5-large:f16"},
		{fakeModel{name: "bge-m3:latest", family: "bert", caps: []string{"embedding"}, ctx: 8192, dim: 8},
			"bge-m3", "", "", "", 8192, "bge-m3"},
		{fakeModel{name: "qwen3-embedding:0.6b", family: "qwen3", caps: []string{"embedding"}, ctx: 40960, dim: 8},
			"qwen3-embedding:0.6b", "qwen3", qwen3Prefixes.Query, "", maxOllamaContext, "qwen3-embedding:0.6b"},
	}
	for _, tc := range tests {
		t.Run(tc.config, func(t *testing.T) {
			f := newFakeOllama(t, tc.model)
			e := mustOllama(t, ollamaOpts(f, tc.config))
			want := Info{Provider: "ollama", Model: tc.wantModelID, Dim: tc.model.dim, Prefix: tc.scheme, ContextLength: tc.wantCtx}
			if got := e.Info(); got != want {
				t.Errorf("Info = %+v, want %+v", got, want)
			}
			docs := []string{"The sky is blue.", "Rayleigh scattering"}
			vs, err := e.EmbedDocuments(t.Context(), docs)
			if err != nil {
				t.Fatal(err)
			}
			q, err := e.EmbedQuery(t.Context(), "why is the sky blue")
			if err != nil {
				t.Fatal(err)
			}
			last := f.embeds[len(f.embeds)-2:]
			if got := last[0]; len(got) != 2 || got[0] != tc.doc+docs[0] || got[1] != tc.doc+docs[1] {
				t.Errorf("documents sent as %q", got)
			}
			if got := last[1]; len(got) != 1 || got[0] != tc.query+"why is the sky blue" {
				t.Errorf("query sent as %q", got)
			}
			checkVector(t, vs[0], tc.doc+docs[0])
			checkVector(t, vs[1], tc.doc+docs[1])
			checkVector(t, q, tc.query+"why is the sky blue")
			for i, tr := range f.truncate {
				if tr == nil || *tr {
					t.Errorf("call %d did not send truncate: false", i)
				}
			}
			if got := f.numCtx[len(f.numCtx)-1]; got != float64(tc.wantCtx) {
				t.Errorf("num_ctx = %v, want %d", got, tc.wantCtx)
			}
		})
	}
}

func TestOllamaPrefixOverride(t *testing.T) {
	f := newFakeOllama(t, nomicModel())
	o := ollamaOpts(f, "nomic-embed-text")
	o.Prefixes = &Prefixes{Query: "Q: ", Document: "D: "}
	e := mustOllama(t, o)
	if _, err := e.EmbedDocuments(t.Context(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := f.embeds[len(f.embeds)-1][0]; got != "D: x" {
		t.Errorf("sent %q", got)
	}
	if s := e.Info().Prefix; !strings.HasPrefix(s, "custom-") {
		t.Errorf("Prefix = %q", s)
	}
	o.Prefixes = &Prefixes{}
	if e := mustOllama(t, o); e.Info().Prefix != "" || e.Prefixes() != (Prefixes{}) {
		t.Errorf("empty override: %+v", e.Prefixes())
	}
}

func TestOllamaBatching(t *testing.T) {
	tests := []struct {
		n, batch int
		calls    []int
	}{
		{70, 32, []int{32, 32, 6}},
		{64, 32, []int{32, 32}},
		{5, 0, []int{5}},
		{3, 1, []int{1, 1, 1}},
		{0, 8, nil},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d by %d", tc.n, tc.batch), func(t *testing.T) {
			f := newFakeOllama(t, nomicModel())
			o := ollamaOpts(f, "nomic-embed-text")
			o.BatchSize = tc.batch
			e := mustOllama(t, o)
			f.embeds = nil
			texts := make([]string, tc.n)
			for i := range texts {
				texts[i] = fmt.Sprintf("text number %d", i)
			}
			vs, err := e.EmbedDocuments(t.Context(), texts)
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int
			for _, c := range f.embeds {
				sizes = append(sizes, len(c))
			}
			if fmt.Sprint(sizes) != fmt.Sprint(tc.calls) {
				t.Errorf("batches %v, want %v", sizes, tc.calls)
			}
			if len(vs) != tc.n {
				t.Fatalf("%d vectors", len(vs))
			}
			for i, v := range vs {
				checkVector(t, v, "search_document: "+texts[i])
			}
		})
	}
}

func TestOllamaEmptyTexts(t *testing.T) {
	f := newFakeOllama(t, nomicModel())
	e := mustOllama(t, ollamaOpts(f, "nomic-embed-text"))
	f.embeds = nil
	vs, err := e.EmbedDocuments(t.Context(), []string{"a", "  ", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.embeds) != 1 || len(f.embeds[0]) != 2 {
		t.Errorf("sent %q", f.embeds)
	}
	if len(vs[1]) != e.Info().Dim {
		t.Fatalf("empty text: %d dimensions", len(vs[1]))
	}
	for _, x := range vs[1] {
		if x != 0 {
			t.Fatal("empty text: not the zero vector")
		}
	}
	checkVector(t, vs[2], "search_document: b")
}

func TestOllamaRetries(t *testing.T) {
	tests := []struct {
		name    string
		fail    []scripted
		retries int
		wantErr string
		calls   int
	}{
		{name: "429 then 500 then ok", calls: 3, fail: []scripted{
			{status: 429, body: `{"error":"server busy, please try again.  maximum pending requests exceeded"}`, header: map[string]string{"Retry-After": "1"}},
			{status: 500, body: `{"error":"llama runner process has terminated: signal: killed"}`},
		}},
		{name: "503 502 then ok", calls: 3, fail: []scripted{{status: 503, body: `{"error":"loading"}`}, {status: 502, body: "Bad Gateway"}}},
		{name: "gives up", retries: 1, calls: 2, wantErr: "gave up after 2 attempts", fail: []scripted{
			{status: 500, body: `{"error":"boom"}`}, {status: 500, body: `{"error":"boom"}`}, {status: 500, body: `{"error":"boom"}`}}},
		{name: "400 permanent", calls: 1, wantErr: "400 Bad Request: invalid input type", fail: []scripted{
			{status: 400, body: `{"error":"invalid input type"}`}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOllama(t, nomicModel())
			o := ollamaOpts(f, "nomic-embed-text")
			o.Retries = tc.retries
			e := mustOllama(t, o)
			f.embeds, f.fail = nil, tc.fail
			_, err := e.EmbedDocuments(t.Context(), []string{"x"})
			if len(f.embeds) != tc.calls {
				t.Errorf("%d calls, want %d", len(f.embeds), tc.calls)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), f.URL+"/api/embed") {
				t.Fatalf("err = %v, want %q and the URL", err, tc.wantErr)
			}
		})
	}
}

func TestOllamaSetupErrors(t *testing.T) {
	chat := fakeModel{name: "llama3.2:latest", family: "llama", caps: []string{"completion", "tools"}, ctx: 131072, dim: 8}
	tests := []struct {
		name   string
		models []fakeModel
		model  string
		setup  func(*fakeOllama)
		kind   error
		want   []string
	}{
		{name: "missing model", models: []fakeModel{chat}, model: "nomic-embed-text", kind: ErrModelNotFound,
			want: []string{"ollama pull nomic-embed-text", `no model "nomic-embed-text"`, "it has llama3.2"}},
		{name: "missing model, empty server", model: "bge-m3", kind: ErrModelNotFound, want: []string{"ollama pull bge-m3"}},
		{name: "chat model", models: []fakeModel{chat}, model: "llama3.2", kind: ErrNotEmbeddingModel,
			want: []string{"not an embedding model", "completion, tools", "[embedding] model"}},
		{name: "removed between list and embed", models: []fakeModel{nomicModel()}, model: "nomic-embed-text", kind: ErrModelNotFound,
			setup: func(f *fakeOllama) {
				f.fail = []scripted{{status: 404, body: `{"error":"model \"nomic-embed-text\" not found, try pulling it first"}`}}
			},
			want: []string{"ollama pull nomic-embed-text"}},
		{name: "too old for /api/embed", models: []fakeModel{nomicModel()}, model: "nomic-embed-text",
			setup: func(f *fakeOllama) { f.noEmbed = true }, want: []string{"404 page not found", "0.3.4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOllama(t, tc.models...)
			if tc.setup != nil {
				tc.setup(f)
			}
			_, err := newOllama(t.Context(), ollamaOpts(f, tc.model), nil)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("err = %v, want %v", err, tc.kind)
			}
			for _, s := range append(tc.want, f.URL) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestOllamaOldServer(t *testing.T) {
	// No /api/show and no capabilities: the probe embedding still decides.
	f := newFakeOllama(t, fakeModel{name: "all-minilm:latest", family: "bert", ctx: 256, dim: 8})
	f.noShow = true
	e := mustOllama(t, ollamaOpts(f, "all-minilm"))
	if got := e.Info(); got.Dim != 8 || got.ContextLength != 0 || got.Prefix != "" {
		t.Errorf("Info = %+v", got)
	}
	if f.numCtx[0] != nil {
		t.Errorf("num_ctx sent without knowing the model's: %v", f.numCtx[0])
	}
}

func TestOllamaUnreachable(t *testing.T) {
	u := closedURL(t)
	start := time.Now()
	_, err := newOllama(t.Context(), Config{URL: u, Transport: modelserver.Transport{Backoff: time.Second}}, nil)
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
	for _, s := range []string{u, "ollama serve", "[embedding] url"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

func TestOllamaTooLong(t *testing.T) {
	small := fakeModel{name: "all-minilm:latest", family: "bert", caps: []string{"embedding"}, ctx: 8, dim: 8}
	long := strings.Repeat("word ", 20)
	tests := []struct {
		name  string
		texts []string
		batch int
		want  []int
	}{
		{"alone", []string{long}, 4, []int{0}},
		{"in a batch", []string{"a", "b", "c", "d", "e", long, "g", "h", "i", "j"}, 4, []int{5}},
		{"two", []string{"a", "b", long, "d", "e", "f", "g", long}, 8, []int{2, 7}},
		{"after an empty text", []string{"", long}, 2, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOllama(t, small)
			o := ollamaOpts(f, "all-minilm")
			o.BatchSize = tc.batch
			e := mustOllama(t, o)
			if e.Info().ContextLength != 8 {
				t.Errorf("ContextLength = %d", e.Info().ContextLength)
			}
			_, err := e.EmbedDocuments(t.Context(), tc.texts)
			var tl *TooLongError
			if !errors.As(err, &tl) || !errors.Is(err, ErrTooLong) {
				t.Fatalf("err = %v, want a *TooLongError", err)
			}
			if fmt.Sprint(tl.Indexes) != fmt.Sprint(tc.want) || tl.Limit != 8 {
				t.Errorf("Indexes %v, Limit %d; want %v, 8", tl.Indexes, tl.Limit, tc.want)
			}
			if !strings.Contains(err.Error(), "8 tokens") || !strings.Contains(err.Error(), "exceeds the context length") {
				t.Errorf("message %q", err)
			}
		})
	}
	t.Run("query", func(t *testing.T) {
		f := newFakeOllama(t, small)
		e := mustOllama(t, ollamaOpts(f, "all-minilm"))
		before := len(f.embeds)
		_, err := e.EmbedQuery(t.Context(), long)
		if !errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), "shorten the query") {
			t.Fatalf("err = %v", err)
		}
		if n := len(f.embeds) - before; n != 1 {
			t.Errorf("%d calls: a too-long input must not be retried", n)
		}
	})
}

func TestOllamaBadVectors(t *testing.T) {
	f := newFakeOllama(t, fakeModel{name: "snowflake-arctic-embed:latest", family: "bert", caps: []string{"embedding"}, ctx: 512, dim: 8, zero: true})
	_, err := newOllama(t.Context(), ollamaOpts(f, "snowflake-arctic-embed"), nil)
	if err == nil || !strings.Contains(err.Error(), "zero or non-finite vector") {
		t.Fatalf("err = %v", err)
	}
}

func TestOllamaCancel(t *testing.T) {
	f := newFakeOllama(t, nomicModel())
	e := mustOllama(t, ollamaOpts(f, "nomic-embed-text"))
	f.mu.Lock()
	f.block = true
	f.mu.Unlock()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err := e.EmbedDocuments(ctx, []string{"x"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %s", d)
	}
}

func TestDetect(t *testing.T) {
	f := newFakeOllama(t,
		nomicModel(),
		fakeModel{name: "llama3.2:latest", family: "llama", caps: []string{"completion", "tools"}},
		fakeModel{name: "qwen3-embedding:0.6b", family: "qwen3", caps: []string{"embedding"}},
		fakeModel{name: "old-encoder:latest", family: "bert"},
		fakeModel{name: "mistral:7b", family: "llama"},
	)
	got, err := Detect(t.Context(), f.URL)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[nomic-embed-text old-encoder qwen3-embedding:0.6b]"; fmt.Sprint(got) != want {
		t.Errorf("Detect = %v, want %s", got, want)
	}
	if _, err := Detect(t.Context(), closedURL(t)); !errors.Is(err, ErrUnreachable) {
		t.Errorf("closed port: %v", err)
	}
}
