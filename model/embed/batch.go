package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/model/modelserver"
)

// Defaults shared by the server-backed embedders.
const (
	// DefaultBatchSize is the number of texts per request: large enough to
	// amortise a request, small enough that a batch on a laptop CPU answers
	// well within the timeout.
	DefaultBatchSize = 32
	// DefaultTimeout bounds one request. The first request after a server
	// starts also loads the model.
	DefaultTimeout = 2 * time.Minute
)

// requestFunc embeds texts (prefixes applied) in one request and returns
// one vector per text, in order, as the server sent them.
type requestFunc func(ctx context.Context, texts []string) ([][]float32, error)

// batcher runs the calls of a server-backed embedder.
type batcher struct {
	size int
	// dim is the vector length every response must have; 0 while probing.
	dim int
	// limit is the model's context, reported in too-long errors when the
	// server does not name it.
	limit int
	send  requestFunc
}

// embed prefixes texts, sends them in batches and returns unit vectors. Empty
// texts are not sent: they get the zero vector, which scores 0 against
// everything, as with the built-in embedder. A batch the server refuses as
// too long is bisected to name the texts at fault, since servers do not say
// which input of a batch it was.
func (b *batcher) embed(ctx context.Context, texts []string, prefix string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var idx []int
	var in []string
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			continue
		}
		idx = append(idx, i)
		in = append(in, prefix+t)
	}
	var tooLong []int
	var tooLongErr error
	for start := 0; start < len(in); start += b.size {
		end := min(start+b.size, len(in))
		vs, bad, err := b.locate(ctx, in[start:end], start)
		if err != nil {
			return nil, err
		}
		if len(bad) > 0 {
			if tooLongErr == nil {
				tooLongErr = bad[0].err
			}
			for _, x := range bad {
				tooLong = append(tooLong, idx[x.i])
			}
			continue
		}
		for j, v := range vs {
			out[idx[start+j]] = v
		}
	}
	if len(tooLong) > 0 {
		return nil, b.tooLongError(tooLong, tooLongErr)
	}
	dim := b.dim
	for i := range out {
		if out[i] == nil {
			if dim == 0 {
				dim = len(firstNonNil(out))
			}
			out[i] = make([]float32, dim)
		}
	}
	return out, nil
}

// embedQuery embeds one query.
func (b *batcher) embedQuery(ctx context.Context, text, prefix string) ([]float32, error) {
	vs, err := b.embed(ctx, []string{text}, prefix)
	var tl *TooLongError
	if errors.As(err, &tl) {
		tl.query = true
	}
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

func firstNonNil(vs [][]float32) []float32 {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

type badText struct {
	i   int // index into the prefixed inputs
	err error
}

// locate sends one batch; when it is refused as too long, it halves the
// batch until it has found every text at fault. Batches that fit are still
// embedded on the way, but their vectors are dropped: the caller splits the
// long texts and embeds the batch again.
func (b *batcher) locate(ctx context.Context, texts []string, offset int) ([][]float32, []badText, error) {
	vs, err := b.request(ctx, texts)
	if err == nil {
		return vs, nil, nil
	}
	if !errors.Is(err, ErrTooLong) {
		return nil, nil, err
	}
	if len(texts) == 1 {
		return nil, []badText{{offset, err}}, nil
	}
	mid := len(texts) / 2
	lv, lbad, err := b.locate(ctx, texts[:mid], offset)
	if err != nil {
		return nil, nil, err
	}
	rv, rbad, err := b.locate(ctx, texts[mid:], offset+mid)
	if err != nil {
		return nil, nil, err
	}
	if bad := append(lbad, rbad...); len(bad) > 0 {
		return nil, bad, nil
	}
	// Both halves fit although the whole did not: the server limits a
	// request, not a text (llama.cpp's batch size). Keep the vectors.
	return append(lv, rv...), nil, nil
}

// request sends one batch and checks and normalises what comes back.
func (b *batcher) request(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := b.send(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("server returned %d vectors for %d texts", len(vs), len(texts))
	}
	for i, v := range vs {
		if b.dim != 0 && len(v) != b.dim {
			return nil, fmt.Errorf("server returned a vector of %d dimensions, the model's have %d", len(v), b.dim)
		}
		if err := normalize(v); err != nil {
			return nil, fmt.Errorf("text %d of the batch: %w", i, err)
		}
	}
	return vs, nil
}

func (b *batcher) tooLongError(indexes []int, err error) error {
	limit := b.limit
	var re *modelserver.Error
	if errors.As(err, &re) && re.Limit > 0 {
		limit = re.Limit
	}
	return &TooLongError{Indexes: indexes, Limit: limit, Err: err}
}

// normalize scales v to unit length in place. Servers differ in whether they
// normalise (Ollama does, TEI and llama.cpp by default, vLLM per model), and
// the index compares vectors by dot product.
func normalize(v []float32) error {
	if len(v) == 0 {
		return errors.New("server returned an empty vector")
	}
	var n2 float64
	for _, x := range v {
		n2 += float64(x) * float64(x)
	}
	if n2 == 0 || math.IsNaN(n2) || math.IsInf(n2, 0) {
		// Some model builds return zeros (or NaNs) for inputs they fail
		// on; such a vector would match nothing, or everything.
		return errors.New("server returned a zero or non-finite vector")
	}
	inv := 1 / math.Sqrt(n2)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return nil
}

// served is what the server-backed embedders share: their prefixes, their
// batcher and what the probe learned of the model.
type served struct {
	pre  Prefixes
	b    batcher
	info Info
}

// probe starts the batcher and embeds a probe text, which checks that model
// embeds and learns the length of its vectors.
func (e *served) probe(ctx context.Context, size, limit int, model string, send requestFunc) error {
	e.b = batcher{size: size, limit: limit, send: send}
	vs, err := e.b.embed(ctx, []string{"grimoire"}, e.pre.Document)
	if err != nil {
		return fmt.Errorf("probe embedding with %s: %w", model, err)
	}
	e.b.dim = len(vs[0])
	return nil
}

// Info implements Embedder. For Ollama, Model is the name without
// ":latest", so that "nomic-embed-text" and "nomic-embed-text:latest" stamp
// the same.
func (e *served) Info() Info { return e.info }

// Prefixes returns the query and document prefixes the embedder applies.
func (e *served) Prefixes() Prefixes { return e.pre }

// EmbedDocuments implements Embedder. A text longer than the model's
// context fails the call with a *TooLongError naming it.
func (e *served) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	return e.b.embed(ctx, texts, e.pre.Document)
}

// EmbedQuery implements Embedder. A query without any text gets the zero
// vector; the caller should skip the vector arm for it.
func (e *served) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	return e.b.embedQuery(ctx, text, e.pre.Query)
}
