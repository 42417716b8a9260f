package ingest

import (
	"context"

	"github.com/grimoire-search/grimoire/model/embed"
)

// aheadFloats bounds the vectors worked out ahead of one book's embedding
// stage (64 MB): past that, the stage embeds the rest itself.
const aheadFloats = 16 << 20

// ahead is the embedding of a book's chunks, worked out in the background
// from the moment the book is parsed, while the index stores it. It only
// saves time: the embedding stage takes a vector from it where the chunk's
// text is the one embedded, and embeds every other chunk itself, as it
// would without.
type ahead struct {
	cancel context.CancelFunc
	// batches come in chunk order, and the channel is closed when the
	// work ends (done, failed or cancelled).
	batches chan aheadBatch
	// ready holds the vectors received and not yet taken, by chunk index;
	// covered is the index past the last batch received.
	ready   map[int]aheadVector
	covered int
	closed  bool
}

type aheadBatch struct {
	start int
	vecs  []aheadVector // nil vec where none was worked out
}

type aheadVector struct {
	vec  []float32
	text string
}

// embedAhead starts embedding pr's chunks that have no vector yet, in
// batches of the pipeline's size.
func embedAhead(ctx context.Context, e embed.Embedder, pr prepared, batch int) *ahead {
	ctx, cancel := context.WithCancel(ctx)
	chunks := pr.layout.chunks
	a := &ahead{
		cancel:  cancel,
		batches: make(chan aheadBatch, (len(chunks)+batch-1)/batch),
		ready:   make(map[int]aheadVector),
	}
	go func() {
		defer close(a.batches)
		budget := aheadFloats
		for start := 0; start < len(chunks) && budget > 0; start += batch {
			end := min(start+batch, len(chunks))
			out := aheadBatch{start: start, vecs: make([]aheadVector, end-start)}
			var todo []string
			var at []int
			for i := start; i < end; i++ {
				if i < len(pr.vecs) && pr.vecs[i] != nil {
					continue // salvaged, stored with the chunks
				}
				text := EmbeddingText(chunks[i])
				out.vecs[i-start].text = text
				todo, at = append(todo, text), append(at, i-start)
			}
			if len(todo) > 0 {
				got, err := EmbedAll(ctx, e, todo)
				if err != nil {
					// The embedding stage meets the error again, and
					// reports it.
					return
				}
				for j, i := range at {
					out.vecs[i].vec = got[j]
					budget -= len(got[j])
				}
			}
			a.batches <- out
		}
	}()
	return a
}

// vector returns the vector worked out for chunk i if its text is text,
// waiting for it if need be; nil when there is none. The stage asks for
// chunks in order.
func (a *ahead) vector(i int, text string) []float32 {
	if a == nil {
		return nil
	}
	for {
		if v, ok := a.ready[i]; ok {
			delete(a.ready, i)
			if v.text != text {
				return nil
			}
			return v.vec
		}
		if a.closed || i < a.covered {
			return nil
		}
		b, ok := <-a.batches
		if !ok {
			a.closed = true
			continue
		}
		for j, v := range b.vecs {
			if v.vec != nil {
				a.ready[b.start+j] = v
			}
		}
		a.covered = b.start + len(b.vecs)
	}
}

// discard stops the work and waits for it to end.
func (a *ahead) discard() {
	if a == nil {
		return
	}
	a.cancel()
	for range a.batches {
	}
	a.closed = true
	clear(a.ready)
}
