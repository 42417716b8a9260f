package ingest

import (
	"context"
	"fmt"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/model/embed"
)

// Reembed switches the index to the embedder e: every embedded chunk gets a
// vector of the new model (its stored context is reused, never asked for
// again), kept apart while the old vectors go on answering; when all are
// done the two sets are swapped in one transaction. It is resumable: a run
// cut short continues where it stopped. It returns the number of chunks
// embedded by this run.
func Reembed(ctx context.Context, w *index.Writer, e embed.Embedder, batch int, progress func(done, total int)) (int, error) {
	want := e.Info().Stamp()
	cur, ok, err := w.Stamp(ctx)
	if err != nil {
		return 0, err
	}
	if !ok {
		// Nothing embedded yet: the new model simply becomes the stamp.
		return 0, w.SetStamp(ctx, want)
	}
	if cur == want {
		return 0, nil
	}
	if batch <= 0 {
		batch = 64
	}
	if err := w.BeginReembed(ctx, want); err != nil {
		return 0, err
	}
	n := 0
	// A pass from the first chunk that finds nothing ends the work: one
	// after the cursor may have missed a chunk embedded behind it meanwhile.
	var after int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		chunks, err := w.ChunksToReembed(ctx, after, batch)
		if err != nil {
			return n, err
		}
		if len(chunks) == 0 {
			if after == 0 {
				break
			}
			after = 0
			continue
		}
		after = chunks[len(chunks)-1].ID
		texts := make([]string, len(chunks))
		ids := make([]int64, len(chunks))
		for i, k := range chunks {
			texts[i], ids[i] = EmbeddingText(k), k.ID
		}
		vecs, err := EmbedAll(ctx, e, texts)
		if err != nil {
			return n, fmt.Errorf("re-embed: %w", err)
		}
		if err := w.StoreNextEmbeddings(ctx, ids, vecs); err != nil {
			return n, err
		}
		n += len(chunks)
		if progress != nil {
			done, total, err := w.ReembedProgress(ctx)
			if err == nil {
				progress(done, total)
			}
		}
	}
	return n, w.SwapEmbeddings(ctx)
}
