package retrieve

import (
	"context"
	"fmt"
	"testing"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/model/embed"
)

// modelEmbedder is a query embedder that names its model.
type modelEmbedder struct {
	fakeEmbedder
	info embed.Info
}

func (m modelEmbedder) Info() embed.Info { return m.info }

func (m modelEmbedder) EmbedDocuments(context.Context, []string) ([][]float32, error) {
	return nil, fmt.Errorf("not for documents")
}

var (
	builtinModel = modelEmbedder{info: embed.Info{Provider: "builtin", Model: "hash", Dim: 4}}
	neuralModel  = modelEmbedder{info: embed.Info{Provider: "ollama", Model: "nomic", Dim: 4}}
)

func TestTune(t *testing.T) {
	tests := []struct {
		name         string
		fusion       string
		vectorWeight float64
		emb          embed.Embedder
		wantFusion   string
		wantWeight   float64
		wantDim      int
	}{
		{"builtin, automatic", Auto, 0, builtinModel, Rerank, 0.01, 4},
		{"neural, automatic", Auto, 0, neuralModel, RRF, 1, 4},
		{"no embedder, automatic", Auto, 0, nil, Rerank, 0, 0},
		{"builtin, chosen", RRF, 0.5, builtinModel, RRF, 0.5, 4},
		{"neural, chosen", Rerank, 2, neuralModel, Rerank, 2, 4},
		{"no embedder, chosen", RRF, 0.5, nil, RRF, 0.5, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ConfigDefaults()
			o.Fusion, o.VectorWeight = tc.fusion, tc.vectorWeight
			got := tune(o, tc.emb)
			if got.Fusion != tc.wantFusion || got.VectorWeight != tc.wantWeight || got.Dim != tc.wantDim {
				t.Errorf("fusion %s, vector weight %v, dim %d; want %s, %v, %d", got.Fusion, got.VectorWeight, got.Dim, tc.wantFusion, tc.wantWeight, tc.wantDim)
			}
			if got.Mode != o.Mode || got.RRFK != o.RRFK || got.CandidatePool != o.CandidatePool || got.FTSWeight != o.FTSWeight {
				t.Errorf("changed what it does not settle: %+v", got)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		mode, fusion string
		want         string
	}{
		{Hybrid, Auto, ""},
		{FTS, RRF, ""},
		{Vector, Rerank, ""},
		{"semantic", Auto, `mode = "semantic": want "hybrid", "fts" or "vector"`},
		{"", Auto, `mode = "": want "hybrid", "fts" or "vector"`},
		{Hybrid, "blend", `fusion = "blend": want "auto", "rrf" or "rerank"`},
	}
	for _, tc := range tests {
		o := ConfigDefaults()
		o.Mode, o.Fusion = tc.mode, tc.fusion
		err := o.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s/%s: %v", tc.mode, tc.fusion, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || fault.CodeOf(err) != fault.Invalid):
			t.Errorf("%s/%s: %v, want the invalid %s", tc.mode, tc.fusion, err, tc.want)
		}
	}
}

func TestOpenChecksTheModel(t *testing.T) {
	ctx := context.Background()
	w := newIndex(t, smallShelf())
	if err := w.SetStamp(ctx, neuralModel.info.Stamp()); err != nil {
		t.Fatal(err)
	}
	open := func(emb embed.Embedder, err error) (*Searcher, error) {
		return Open(ctx, &w.DB, ConfigDefaults(), func(context.Context) (embed.Embedder, error) { return emb, err }, nil)
	}

	s, err := open(neuralModel, nil)
	if err != nil || s.emb == nil || s.opts.Fusion != RRF || s.opts.Dim != 4 {
		t.Fatalf("the index's own model: %v %+v", err, s)
	}
	if _, err := open(builtinModel, nil); fault.CodeOf(err) != fault.Conflict {
		t.Fatalf("another model: %v", err)
	}
	if _, err := open(nil, fmt.Errorf("ollama: no model nomic")); err == nil {
		t.Fatal("a model that cannot be built searched anyway")
	}
	s, err = open(nil, fmt.Errorf("ollama: %w", embed.ErrUnreachable))
	if err != nil || s.emb != nil || s.opts.Fusion != Rerank {
		t.Fatalf("server down: %v %+v", err, s)
	}
	if err := w.BeginReembed(ctx, builtinModel.info.Stamp()); err != nil {
		t.Fatal(err)
	}
	s, err = open(builtinModel, nil)
	if err != nil || s.emb != nil || s.opts.Fusion != Rerank {
		t.Fatalf("switch to the model under way: %v %+v", err, s)
	}
	if hits := search(t, s, Query{Text: "owls"}); len(hits) == 0 {
		t.Error("full text found nothing")
	}
}
