package retrieve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/model/rerank"
)

// fakeReranker scores a passage by how many times it says "bowline", and
// otherwise prefers shorter passages: an order full text does not give.
type fakeReranker struct {
	err error
	// cancel, when set, is called first: the search is interrupted while
	// the reranker works.
	cancel   func()
	queries  []string
	passages [][]string
}

func (f *fakeReranker) Rerank(ctx context.Context, query string, passages []string) ([]rerank.Score, error) {
	f.queries = append(f.queries, query)
	f.passages = append(f.passages, passages)
	if f.cancel != nil {
		f.cancel()
		return nil, fmt.Errorf("POST /rerank: %w", ctx.Err())
	}
	if f.err != nil {
		return nil, f.err
	}
	out := make([]rerank.Score, len(passages))
	for i, p := range passages {
		logit := 4*float64(strings.Count(strings.ToLower(p), "bowline")) - float64(len(p))/100
		out[i] = rerank.Score{Relevance: logit, Probability: 1 / (1 + 1/(1+logit*logit))}
	}
	return out, nil
}

// knots is a book whose eight passages all speak of loops, the one about
// the bowline last and longest, so that BM25 ranks it low.
func knots() []book {
	b := book{title: "Knots", author: "Ann Sailor", typ: "markdown"}
	for i := range 7 {
		b.chunks = append(b.chunks, fmt.Sprintf("Loop %d: a loop in a line, and a loop again.", i))
		b.vecs = append(b.vecs, unit(1, float32(i), 0, 0))
	}
	b.chunks = append(b.chunks, "The bowline ties a fixed loop at the end of a rope; sailors have trusted it for centuries, on ships and on shore, "+
		"because it neither slips nor jams, and it can be untied after bearing a load.")
	b.vecs = append(b.vecs, unit(0, 1, 0, 0))
	return []book{b}
}

func TestCrossRerankOrdersByTheReranker(t *testing.T) {
	w := newIndex(t, knots())
	plain := New(&w.DB, nil, Options{Mode: FTS, CandidatePool: 5})
	before := search(t, plain, Query{Text: "loop", Limit: 5})
	if strings.Contains(before[0].Text, "bowline") {
		t.Fatalf("full text already ranks the bowline first: the test shows nothing")
	}

	f := &fakeReranker{}
	s := New(&w.DB, nil, Options{Mode: FTS, CandidatePool: 5, Reranker: f})
	hits := search(t, s, Query{Text: "loop", Phrasings: []string{"fixed loop knot"}, Limit: 3})
	if len(hits) != 3 || !strings.Contains(hits[0].Text, "bowline") {
		t.Fatalf("reranked: %+v", hits)
	}
	for i, h := range hits {
		if !h.Reranked || h.Score != h.RerankScore || h.RerankProbability <= 0 {
			t.Errorf("hit %d: reranked %v, score %v, rerank %v, probability %v", i, h.Reranked, h.Score, h.RerankScore, h.RerankProbability)
		}
		if i > 0 && h.RerankScore > hits[i-1].RerankScore {
			t.Errorf("hit %d out of the reranker's order", i)
		}
		if h.FTSRank == 0 {
			t.Errorf("hit %d lost its full-text rank", i)
		}
	}
	// One call, with the question as asked and the fusion's best
	// CandidatePool passages, as they were embedded (heading first).
	if len(f.queries) != 1 || f.queries[0] != "loop" {
		t.Fatalf("reranker asked %q", f.queries)
	}
	if len(f.passages[0]) != 5 {
		t.Errorf("reranker given %d passages, want the pool of 5", len(f.passages[0]))
	}
	for _, p := range f.passages[0] {
		if !strings.HasPrefix(p, "Knots\n\n") {
			t.Errorf("passage without its heading: %q", p)
		}
	}
	// A limit above the pool reranks as many as it asks for.
	hits = search(t, s, Query{Text: "loop", Limit: 8})
	if len(hits) != 8 || len(f.passages[1]) != 8 || !strings.Contains(hits[0].Text, "bowline") {
		t.Errorf("limit 8: %d hits, %d passages reranked", len(hits), len(f.passages[1]))
	}
}

func TestCrossRerankFailures(t *testing.T) {
	w := newIndex(t, knots())
	plain := search(t, New(&w.DB, nil, Options{Mode: FTS}), Query{Text: "loop", Limit: 5})
	tests := []struct {
		name string
		err  error
		// fails: the search fails with the reranker's error; else it
		// returns the fusion's hits and logs a warning.
		fails bool
	}{
		{name: "server down", err: fmt.Errorf("[rerank] tei: %w", rerank.ErrUnreachable)},
		{name: "timeout", err: errors.New("[rerank] tei: no answer within 1m0s")},
		{name: "passage too long", err: fmt.Errorf("[rerank] openai: %w", rerank.ErrTooLong)},
		{name: "not a reranker", err: fmt.Errorf("[rerank] openai: %w", rerank.ErrNotReranker), fails: true},
		{name: "model missing", err: fmt.Errorf("[rerank] openai: %w", rerank.ErrModelNotFound), fails: true},
		{name: "interrupted", fails: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			f := &fakeReranker{err: tc.err}
			if tc.err == nil {
				f.cancel = cancel
			}
			s := New(&w.DB, nil, Options{Mode: FTS, Reranker: f, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			hits, err := s.Search(ctx, Query{Text: "loop", Limit: 5})
			if tc.fails {
				want := tc.err
				if want == nil {
					want = context.Canceled
				}
				if !errors.Is(err, want) || len(f.queries) != 1 {
					t.Fatalf("search: %v, want %v from the reranker", err, want)
				}
				if tc.err != nil && fault.CodeOf(err) != fault.Invalid {
					t.Errorf("code %v, want Invalid", fault.CodeOf(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != len(plain) {
				t.Fatalf("%d hits, want the fusion's %d", len(hits), len(plain))
			}
			for i := range hits {
				if hits[i].ID != plain[i].ID || hits[i].Score != plain[i].Score || hits[i].Reranked {
					t.Errorf("hit %d: %+v, want the fusion's %+v", i, hits[i], plain[i])
				}
			}
			if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), tc.err.Error()) {
				t.Errorf("no warning: %q", logs.String())
			}
		})
	}
}

// TestRerankScoresInViews: the JSON of a reranked hit has scores.rerank and
// scores.rerank_probability; that of a hit not reranked has neither.
func TestRerankScoresInViews(t *testing.T) {
	w := newIndex(t, knots())
	for _, f := range []*fakeReranker{nil, {}} {
		o := Options{Mode: FTS}
		if f != nil {
			o.Reranker = f
		}
		lib := &Library{DB: &w.DB, Searcher: New(&w.DB, nil, o)}
		found, err := lib.Search(context.Background(), Query{Text: "loop", Limit: 2})
		views := found.Hits
		if err != nil || len(views) != 2 {
			t.Fatalf("%v %v", views, err)
		}
		b, _ := json.Marshal(views[0])
		var got struct {
			Score  float64
			Scores map[string]any
		}
		json.Unmarshal(b, &got)
		r, hasR := got.Scores["rerank"]
		_, hasP := got.Scores["rerank_probability"]
		if reranked := f != nil; hasR != reranked || hasP != reranked {
			t.Errorf("reranked %v: %s", reranked, b)
		}
		if f != nil && r != got.Score {
			t.Errorf("score %v, rerank %v", got.Score, r)
		}
	}
}

// instantReranker scores passages by length, at no cost: what a search
// spends on reranking besides the model.
type instantReranker struct{}

func (instantReranker) Rerank(_ context.Context, _ string, passages []string) ([]rerank.Score, error) {
	out := make([]rerank.Score, len(passages))
	for i, p := range passages {
		out[i] = rerank.Score{Relevance: float64(len(p)), Probability: 0.5}
	}
	return out, nil
}

// BenchmarkCrossRerank measures a hybrid search (the built-in embedder's
// defaults) without a reranker, with one that answers at once in process,
// and with one behind TEI's wire format on a local server that answers at
// once: grimoire's own cost of reranking, apart from the model's.
func BenchmarkCrossRerank(b *testing.B) {
	r, emb := syntheticIndex(b, benchChunks())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/info" {
			fmt.Fprint(w, `{"model_id":"m","model_type":{"reranker":{}},"max_input_length":8192,"max_client_batch_size":32}`)
			return
		}
		var body struct{ Texts []string }
		json.NewDecoder(req.Body).Decode(&body)
		ranks := make([]map[string]any, len(body.Texts))
		for i, t := range body.Texts {
			ranks[i] = map[string]any{"index": i, "score": float64(len(t))}
		}
		json.NewEncoder(w).Encode(ranks)
	}))
	defer srv.Close()
	tei, err := rerank.New(rerank.Config{Provider: rerank.ProviderTEI, URL: srv.URL}, nil)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(2))
	queries := make([]string, 1000)
	for i := range queries {
		queries[i] = fmt.Sprintf("w%d w%s w%s", rng.Intn(5), strconv.FormatInt(int64(20+rng.Intn(2000)), 36), strconv.FormatInt(int64(20+rng.Intn(2000)), 36))
	}
	for _, run := range []struct {
		name string
		rr   PassageReranker
	}{{"none", nil}, {"in-process", instantReranker{}}, {"tei-http", tei}} {
		b.Run(run.name, func(b *testing.B) {
			s := New(&r.DB, emb, Options{Dim: emb.Info().Dim, VectorWeight: 0.01, FTSWeight: 1, Fusion: Rerank, Reranker: run.rr})
			if err := s.Prepare(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(context.Background(), Query{Text: queries[i%len(queries)]}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fixedReranker gives every passage the same probability.
type fixedReranker float64

func (f fixedReranker) Rerank(_ context.Context, _ string, passages []string) ([]rerank.Score, error) {
	out := make([]rerank.Score, len(passages))
	for i := range passages {
		out[i] = rerank.Score{Relevance: float64(f), Probability: float64(f)}
	}
	return out, nil
}

// A reranker's probabilities have the last word on no-match: none likely
// relevant makes it, one likely relevant unmakes what the words made.
func TestRerankerJudgesNoMatch(t *testing.T) {
	w := newIndex(t, knots())
	for _, tc := range []struct {
		question    string
		probability float64
		want        bool
	}{
		{"bowline loop", 0.02, true},
		{"bowline loop", 0.3, false},
		{"how do I bake sourdough bread on a rope", 0.9, false},
		{"how do I bake sourdough bread on a rope", 0.3, true},
	} {
		s := New(&w.DB, nil, Options{Mode: FTS, Reranker: fixedReranker(tc.probability)})
		hits, err := s.Search(context.Background(), Query{Text: tc.question})
		if err != nil {
			t.Fatal(err)
		}
		if NoMatch(hits) != tc.want {
			t.Errorf("%q at probability %v: no_match %v, want %v", tc.question, tc.probability, NoMatch(hits), tc.want)
		}
	}
}
