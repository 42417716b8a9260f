package embed

import "testing"

func TestPrefixesFor(t *testing.T) {
	tests := []struct{ model, scheme string }{
		{"nomic-embed-text", "nomic"},
		{"nomic-embed-text:v1.5", "nomic"},
		{"hf.co/nomic-ai/nomic-embed-text-v2-moe-GGUF:Q8_0", "nomic"},
		{"multilingual-e5-large", "e5"},
		{"jeffh/intfloat-multilingual-e5-large:f16", "e5"},
		{"intfloat/e5-small-v2", "e5"},
		{"multilingual-e5-large-instruct", "e5-instruct"},
		{"intfloat/e5-mistral-7b-instruct", "e5-instruct"},
		{"bge-large-en-v1.5", "bge"},
		{"BAAI/bge-small-en-v1.5", "bge"},
		{"bge-large-zh-v1.5", "bge-zh"},
		{"bge-m3", ""},
		{"bge-reranker-v2-m3", ""},
		{"mxbai-embed-large", "bge"},
		{"mxbai-embed-large:335m", "bge"},
		{"snowflake-arctic-embed", "bge"},
		{"snowflake-arctic-embed:137m", "bge"},
		{"snowflake-arctic-embed2", "arctic-v2"},
		{"Snowflake/snowflake-arctic-embed-l-v2.0", "arctic-v2"},
		{"embeddinggemma", "embeddinggemma"},
		{"qwen3-embedding:0.6b", "qwen3"},
		{"all-minilm", ""},
		{"granite-embedding", ""},
		{"paraphrase-multilingual", ""},
		{"some-e5x-model", ""},
		{"models/e5:latest", "e5"},
	}
	for _, tc := range tests {
		if got := PrefixesFor(tc.model).Scheme; got != tc.scheme {
			t.Errorf("PrefixesFor(%q) = %q, want %q", tc.model, got, tc.scheme)
		}
	}
}

func TestResolvePrefixes(t *testing.T) {
	custom := resolvePrefixes("nomic-embed-text", &Prefixes{Scheme: "nomic", Query: "q: ", Document: "d: "})
	if custom.Scheme == "nomic" || custom.Scheme == "" || custom.Query != "q: " {
		t.Errorf("custom = %+v", custom)
	}
	if again := resolvePrefixes("x", &Prefixes{Query: "q: ", Document: "d: "}); again.Scheme != custom.Scheme {
		t.Errorf("scheme not stable: %q, %q", again.Scheme, custom.Scheme)
	}
	if other := resolvePrefixes("x", &Prefixes{Query: "q:", Document: "d: "}); other.Scheme == custom.Scheme {
		t.Error("different texts, same scheme")
	}
	// Spelling out a known pair keeps its name: no reindex for that.
	if p := resolvePrefixes("x", &Prefixes{Query: "search_query: ", Document: "search_document: "}); p.Scheme != "nomic" {
		t.Errorf("explicit nomic pair: %+v", p)
	}
	if p := resolvePrefixes("nomic-embed-text", &Prefixes{}); p != (Prefixes{}) {
		t.Errorf("empty override: %+v", p)
	}
	if p := resolvePrefixes("nomic-embed-text", nil); p != nomicPrefixes {
		t.Errorf("no override: %+v", p)
	}
}
