package modelserver

import "testing"

func TestParseOllamaShow(t *testing.T) {
	body := `{"license":"…","modelfile":"FROM x","parameters":"num_ctx                        8192\nstop \"<|eot|>\"",
	"template":"{{ .Prompt }}","details":{"format":"gguf","family":"nomic-bert","families":["nomic-bert"]},
	"model_info":{"general.architecture":"nomic-bert","general.parameter_count":136727040,"nomic-bert.context_length":2048,
	"nomic-bert.embedding_length":768,"nomic-bert.block_count":12},"capabilities":["embedding"]}`
	m, err := parseOllamaShow([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if m.ContextLength != 2048 || m.EmbeddingLength != 768 || m.NumCtx != 8192 || !m.Has("embedding") || m.Family != "nomic-bert" {
		t.Errorf("got %+v", m)
	}
}

func TestModelKinds(t *testing.T) {
	tests := []struct {
		m           OllamaModel
		embed, chat bool
	}{
		{OllamaModel{Name: "nomic-embed-text:latest", Capabilities: []string{"embedding"}}, true, false},
		{OllamaModel{Name: "llama3.2:latest", Capabilities: []string{"completion", "tools"}}, false, true},
		{OllamaModel{Name: "old-encoder:latest", Family: "bert"}, true, false},
		{OllamaModel{Name: "mxbai-embed-large:latest", Family: "weird"}, true, false},
		{OllamaModel{Name: "mistral:latest", Family: "llama"}, false, true},
	}
	for _, tc := range tests {
		if IsEmbeddingModel(tc.m) != tc.embed || IsChatModel(tc.m) != tc.chat {
			t.Errorf("%s: embedding %v, chat %v", tc.m.Name, IsEmbeddingModel(tc.m), IsChatModel(tc.m))
		}
	}
}

func TestFindOllamaModel(t *testing.T) {
	ms := []OllamaModel{{Name: "nomic-embed-text:latest"}, {Name: "bge-m3:567m"}}
	for _, want := range []string{"nomic-embed-text", "nomic-embed-text:latest", "Nomic-Embed-Text", "bge-m3:567m"} {
		if _, ok := FindOllamaModel(ms, want); !ok {
			t.Errorf("%q not found", want)
		}
	}
	for _, miss := range []string{"bge-m3", "nomic-embed-text:v1.5"} {
		if _, ok := FindOllamaModel(ms, miss); ok {
			t.Errorf("%q found", miss)
		}
	}
}
