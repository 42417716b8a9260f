package rerank

import (
	"math"
	"testing"
)

// The parsers read what a server sent: whatever it is, they return a score
// for every passage, each a number, or an error.
func FuzzParseRerank(f *testing.F) {
	f.Add([]byte(`[{"index":1,"score":0.9},{"index":0,"score":-3.5}]`), 2)
	f.Add([]byte(`{"model":"m","object":"list","results":[{"index":0,"relevance_score":1e308}]}`), 1)
	f.Add([]byte(`{"results":[{"index":0,"relevance_score":0.5},{"index":0,"relevance_score":0.5}]}`), 2)
	f.Add([]byte(`[{"index":-1,"score":1}]`), 1)
	f.Add([]byte(`{"results":null}`), 0)
	f.Fuzz(func(t *testing.T, body []byte, n int) {
		if n < 0 || n > 1000 {
			return
		}
		for name, parse := range map[string]func([]byte, int) ([]float64, error){"tei": parseTEIRerank, "openai": parseOpenAIRerank} {
			s, err := parse(body, n)
			if err != nil {
				continue
			}
			if len(s) != n {
				t.Fatalf("%s: %d scores for %d passages", name, len(s), n)
			}
			for _, x := range s {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("%s: score %v", name, x)
				}
			}
		}
	})
}
