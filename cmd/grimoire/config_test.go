package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/model/rerank"
	"github.com/grimoire-search/grimoire/reconcile"
	"github.com/grimoire-search/grimoire/retrieve"
	"github.com/grimoire-search/grimoire/watcher"
)

// TestRepositoryConfigIsTheTemplate keeps the grimoire.toml at the top of
// the repository equal to what `grimoire init` writes with the defaults, and
// checks that it names every key the configuration has.
func TestRepositoryConfigIsTheTemplate(t *testing.T) {
	t.Parallel()
	want, err := renderConfig(defaultInitValues())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../grimoire.toml")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		if os.Getenv("GRIMOIRE_UPDATE_CONFIG") != "" {
			os.WriteFile("../../grimoire.toml", []byte(want), 0o644)
			return
		}
		t.Fatalf("grimoire.toml differs from the init template; run with GRIMOIRE_UPDATE_CONFIG=1 to rewrite it")
	}
	section := ""
	keys := map[string]bool{}
	for _, line := range strings.Split(want, "\n") {
		if m := regexp.MustCompile(`^\[(\w+)\]$`).FindStringSubmatch(line); m != nil {
			section = m[1] + "."
		}
		if m := regexp.MustCompile(`^(\w+) = `).FindStringSubmatch(line); m != nil {
			keys[section+m[1]] = true
		}
	}
	for k := range defaults() {
		if !keys[k] {
			t.Errorf("key %s is not in grimoire.toml", k)
		}
	}
	for k := range keys {
		if _, ok := defaults()[k]; !ok {
			t.Errorf("grimoire.toml has %s, which the configuration does not know", k)
		}
	}
}

func TestTOMLValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
	}{
		{"warn", `"warn"`},
		{"", `""`},
		{[]string{}, "[]"},
		{[]string{"books", "/srv/papers"}, `["books", "/srv/papers"]`},
		{2, "2"},
		{int64(512), "512"},
		{60.0, "60.0"},
		{0.0, "0.0"},
		{0.01, "0.01"},
		{2 * time.Second, `"2s"`},
		{time.Hour, `"1h"`},
		{90 * time.Minute, `"90m"`},
		{1500 * time.Millisecond, `"1.5s"`},
	}
	for _, tc := range tests {
		got, err := tomlValue(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("tomlValue(%#v) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := tomlValue(struct{}{}); err == nil {
		t.Error("a value grimoire.toml cannot hold was written")
	}
}

// TestDefaultsAreThePackages keeps the configuration's defaults those of
// the packages that use them.
func TestDefaultsAreThePackages(t *testing.T) {
	t.Parallel()
	d := defaults()
	r, c := retrieve.ConfigDefaults(), ingest.DefaultChunking()
	for key, want := range map[string]any{
		"max_file_size_mb":              int64(reconcile.DefaultMaxFileSize >> 20),
		"context.concurrency":           ingest.DefaultContextConcurrency,
		"retrieval.mode":                r.Mode,
		"retrieval.rrf_k":               r.RRFK,
		"retrieval.candidate_pool":      r.CandidatePool,
		"retrieval.fts_weight":          r.FTSWeight,
		"retrieval.vector_weight":       r.VectorWeight,
		"retrieval.fusion":              r.Fusion,
		"chunking.chunk_tokens":         c.ChunkTokens,
		"chunking.overlap_tokens":       c.OverlapTokens,
		"chunking.section_split_tokens": c.SectionSplitTokens,
		"watch.debounce":                watcher.DefaultDebounce,
		"watch.rescan_interval":         watcher.DefaultRescanInterval,
		"rerank.provider":               rerank.ProviderNone,
	} {
		if d[key] != want {
			t.Errorf("%s = %v, want %v", key, d[key], want)
		}
	}
	// The template's comments name the defaults the packages apply.
	for _, u := range []string{rerank.DefaultTEIURL, rerank.DefaultOpenAIURL} {
		if !strings.Contains(configTemplate, u) {
			t.Errorf("grimoire.toml does not say that %s is the default", u)
		}
	}
}
