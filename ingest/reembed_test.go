package ingest

import (
	"context"
	"testing"

	"github.com/grimoire-search/grimoire/model/embed"
)

// renamedModel is the built-in embedder under another model name: the
// index takes it for a model switch.
type renamedModel struct{ *countingEmbedder }

func (m renamedModel) Info() embed.Info {
	i := m.countingEmbedder.Info()
	i.Model += "-next"
	return i
}

// TestReembedTakesEachChunkOnce: a model switch in small batches embeds
// every chunk once, going on from the last batch, and swaps the vectors.
func TestReembedTakesEachChunkOnce(t *testing.T) {
	ctx := context.Background()
	l := newTestLibrary(t)
	l.write("big.md", bigBook())
	l.reconcile()
	if _, err := l.ingest(ctx); err != nil {
		t.Fatal(err)
	}
	e := renamedModel{&countingEmbedder{Builtin: embed.NewBuiltin(), texts: map[string]int{}}}
	var last, total int
	n, err := Reembed(ctx, l.w, e, 7, func(done, all int) { last, total = done, all })
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || n != total || last != total {
		t.Fatalf("re-embedded %d, progress %d of %d", n, last, total)
	}
	if len(e.texts) != n {
		t.Errorf("%d distinct texts embedded for %d chunks", len(e.texts), n)
	}
	for text, times := range e.texts {
		if times != 1 {
			t.Errorf("embedded %d times: %.40q", times, text)
		}
	}
	stamp, _, err := l.w.Stamp(ctx)
	if err != nil || stamp != e.Info().Stamp() {
		t.Errorf("stamp %q (%v), want %q", stamp, err, e.Info().Stamp())
	}
}
