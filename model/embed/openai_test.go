package embed

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/model/modelserver"
)

func openAIOpts(f *fakeOpenAI, model string) Config {
	return Config{Provider: ProviderOpenAI, URL: f.URL + "/v1", Model: model, APIKeyEnv: "GRIMOIRE_TEST_EMBED_KEY",
		Transport: modelserver.Transport{Backoff: testBackoff, MaxBackoff: testMaxBackoff, Timeout: 5 * time.Second}}
}

func mustOpenAI(t *testing.T, o Config) *OpenAI {
	t.Helper()
	e, err := newOpenAI(t.Context(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestOpenAIEmbed(t *testing.T) {
	f := newFakeOpenAI(t, "bge-small-en-v1.5")
	f.maxLen = 512
	o := openAIOpts(f, "bge-small-en-v1.5")
	o.BatchSize = 2
	e := mustOpenAI(t, o)
	want := Info{Provider: "openai", Model: "bge-small-en-v1.5", Dim: 8, Prefix: "bge", ContextLength: 512}
	if got := e.Info(); got != want {
		t.Errorf("Info = %+v, want %+v", got, want)
	}
	f.embeds = nil
	docs := []string{"one", "two", "three"}
	vs, err := e.EmbedDocuments(t.Context(), docs)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(f.embeds) != "[[one two] [three]]" {
		t.Errorf("batches %q", f.embeds)
	}
	for i, v := range vs {
		checkVector(t, v, docs[i]) // placed by index, although sent reversed
	}
	q, err := e.EmbedQuery(t.Context(), "where")
	if err != nil {
		t.Fatal(err)
	}
	checkVector(t, q, bgePrefixes.Query+"where")
	for _, ef := range f.format {
		if ef != "float" {
			t.Errorf("encoding_format %q", ef)
		}
	}
}

func TestOpenAIAPIKey(t *testing.T) {
	tests := []struct {
		name, env, keyEnv, header string
	}{
		{"unset", "", "", ""},
		{"set", "sk-test", "", "Bearer sk-test"},
		{"custom variable", "sk-other", "GRIMOIRE_TEST_OTHER_KEY", "Bearer sk-other"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOpenAI(t, "m")
			o := openAIOpts(f, "m")
			if tc.keyEnv != "" {
				o.APIKeyEnv = tc.keyEnv
			}
			t.Setenv(o.APIKeyEnv, tc.env)
			e := mustOpenAI(t, o)
			if _, err := e.EmbedQuery(t.Context(), "x"); err != nil {
				t.Fatal(err)
			}
			for _, h := range f.auth {
				if h != tc.header {
					t.Errorf("Authorization %q, want %q", h, tc.header)
				}
			}
		})
	}
	t.Run("default variable", func(t *testing.T) {
		f := newFakeOpenAI(t, "m")
		t.Setenv("OPENAI_API_KEY", "sk-default")
		o := openAIOpts(f, "m")
		o.APIKeyEnv = ""
		mustOpenAI(t, o)
		if f.auth[0] != "Bearer sk-default" {
			t.Errorf("Authorization %q", f.auth[0])
		}
	})
}

func TestOpenAIErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*fakeOpenAI, *Config)
		kind  error
		want  []string
	}{
		{name: "missing model", setup: func(f *fakeOpenAI, o *Config) { o.Model = "nomic" }, kind: ErrModelNotFound,
			want: []string{"does not exist", "[embedding] model", "the server has a, b"}},
		{name: "key wanted", setup: func(f *fakeOpenAI, o *Config) { f.key = "sk-right" }, kind: ErrUnauthorized,
			want: []string{"401", "set GRIMOIRE_TEST_EMBED_KEY"}},
		{name: "key refused", setup: func(f *fakeOpenAI, o *Config) { f.key = "sk-right"; o.APIKeyEnv = "GRIMOIRE_TEST_WRONG_KEY" },
			kind: ErrUnauthorized, want: []string{"refused the API key in GRIMOIRE_TEST_WRONG_KEY"}},
		{name: "url without /v1", setup: func(f *fakeOpenAI, o *Config) { o.URL = f.URL }, want: []string{"404", "/v1"}},
		{name: "no model, several", setup: func(f *fakeOpenAI, o *Config) { o.Model = "" }, want: []string{"several (a, b)", "set [embedding] model"}},
		{name: "400 permanent", setup: func(f *fakeOpenAI, o *Config) {
			f.fail = []scripted{{status: 400, body: `{"error":{"message":"'$.input' is invalid.","type":"invalid_request_error"}}`}}
		}, want: []string{"'$.input' is invalid"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOpenAI(t, "b", "a")
			o := openAIOpts(f, "a")
			t.Setenv("GRIMOIRE_TEST_WRONG_KEY", "sk-wrong")
			tc.setup(f, &o)
			_, err := newOpenAI(t.Context(), o, nil)
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
			if tc.name == "400 permanent" && len(f.embeds) != 1 {
				t.Errorf("%d calls", len(f.embeds))
			}
		})
	}
}

func TestOpenAIModelChoice(t *testing.T) {
	f := newFakeOpenAI(t, "only-one")
	e := mustOpenAI(t, openAIOpts(f, ""))
	if e.Info().Model != "only-one" {
		t.Errorf("Model = %q", e.Info().Model)
	}
	// llama.cpp serves its one model under any name, and TEI has no list.
	f2 := newFakeOpenAI(t)
	f2.any, f2.noModels = true, true
	e = mustOpenAI(t, openAIOpts(f2, "whatever"))
	if e.Info().Model != "whatever" || e.Info().ContextLength != 0 {
		t.Errorf("Info = %+v", e.Info())
	}
}

func TestOpenAIRetries(t *testing.T) {
	f := newFakeOpenAI(t, "m")
	e := mustOpenAI(t, openAIOpts(f, "m"))
	f.embeds = nil
	f.fail = []scripted{
		{status: 429, body: `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, header: map[string]string{"Retry-After": "1"}},
		{status: 500, body: `{"error":{"message":"internal","type":"server_error"}}`},
		{status: 503, body: `{"error":"Model is loading"}`},
	}
	if _, err := e.EmbedQuery(t.Context(), "x"); err != nil {
		t.Fatal(err)
	}
	if len(f.embeds) != 4 {
		t.Errorf("%d calls, want 4", len(f.embeds))
	}
}

func TestOpenAITooLong(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		limit  int
	}{
		{"vllm", 400, "", 512},
		{"llama.cpp", 500, `{"error":{"code":500,"message":"input is too large to process. increase the physical batch size","type":"server_error"}}`, 6},
		{"tei", 413, `{"error":"Input validation error: ` + "`inputs`" + ` must have less than 6 tokens. Given: 20","error_type":"Validation"}`, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeOpenAI(t, "m")
			f.ctx = 6
			if tc.body != "" {
				f.tooLong = scripted{status: tc.status, body: tc.body}
			}
			o := openAIOpts(f, "m")
			o.ContextLength = 6
			e := mustOpenAI(t, o)
			f.embeds = nil
			_, err := e.EmbedDocuments(t.Context(), []string{"short", strings.Repeat("long ", 20), "short too"})
			var tl *TooLongError
			if !errors.As(err, &tl) {
				t.Fatalf("err = %v", err)
			}
			if fmt.Sprint(tl.Indexes) != "[1]" || tl.Limit != tc.limit {
				t.Errorf("Indexes %v, Limit %d; want [1], %d", tl.Indexes, tl.Limit, tc.limit)
			}
			// The batch, its halves, and the halves of the half with the
			// long text: no retries of a permanent refusal.
			if len(f.embeds) != 5 {
				t.Errorf("%d calls: %q", len(f.embeds), f.embeds)
			}
		})
	}
}

func TestOpenAIUnreachable(t *testing.T) {
	u := closedURL(t) + "/v1"
	start := time.Now()
	_, err := newOpenAI(t.Context(), Config{URL: u, Model: "m", Transport: modelserver.Transport{Backoff: time.Second}}, nil)
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
	for _, s := range []string{u, "start the server", "[embedding] url"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}
