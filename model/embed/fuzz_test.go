package embed

import (
	"math"
	"testing"
)

func FuzzParseOllamaEmbed(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","embeddings":[[0.1,0.2],[0.3,0.4]],"total_duration":1}`,
		`{"embeddings":[]}`, `{"embeddings":null}`, `{"embeddings":[[1e39]]}`, `{"embeddings":[["x"]]}`,
		`[]`, `null`, `{"embeddings":[[1,2]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		vs, err := parseOllamaEmbed(b)
		if err != nil {
			return
		}
		for _, v := range vs {
			if normalize(v) == nil {
				checkFinite(t, v)
			}
		}
	})
}

func FuzzParseOpenAIEmbed(f *testing.F) {
	for _, s := range []string{
		`{"object":"list","data":[{"object":"embedding","index":1,"embedding":[0.5]},{"index":0,"embedding":[1]}]}`,
		`{"data":[{"embedding":[1]},{"embedding":[2]}]}`,
		`{"data":[{"index":0,"embedding":"AAAAAA=="}]}`,
		`{"data":[{"index":5,"embedding":[1]}]}`,
		`{"data":[{"index":-1,"embedding":[1]}]}`,
		`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`,
		`{"data":null}`, `{}`, `x`,
	} {
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n < 0 || n > 64 {
			return
		}
		vs, err := parseOpenAIEmbed(b, n)
		if err != nil {
			return
		}
		if len(vs) != n {
			t.Fatalf("%d vectors for %d inputs", len(vs), n)
		}
		for _, v := range vs {
			if v == nil {
				t.Fatal("a nil vector without an error")
			}
		}
	})
}

func checkFinite(t *testing.T, v []float32) {
	t.Helper()
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("non-finite %v after normalising", x)
		}
	}
}
