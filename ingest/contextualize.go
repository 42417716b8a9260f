package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model/llm"
)

// contextualize writes Contextual Retrieval's summaries and contexts for a
// book: one summary per section, then one situating context per chunk from
// its section's summary and its own text. Every answer is stored as soon as
// it arrives, so a crash never asks the model again for stored work; at most
// the requests in flight are lost.
func (p *pipeline) contextualize(ctx context.Context, b library.Book) error {
	sections, err := p.w.SectionsToSummarize(ctx, b.ID)
	if err != nil {
		return err
	}
	c := p.opts.Context
	p.progress.ChunksDone, p.progress.ChunksTotal = 0, b.Chunks
	p.at(StageContexts)
	err = p.parallel(ctx, len(sections), func(ctx context.Context, i int) error {
		s := sections[i]
		summary, err := c.SummarizeSection(ctx, b.Title, headingPath(b.Title, s.Chapter, s.Title), s.Text)
		if err != nil {
			if !recoverable(err) {
				return fmt.Errorf("summarize %q, %s: %w", b.Title, s.Title, err)
			}
			// The chunks still get contexts, from their own text.
			p.log.Warn("no summary for a section", "book", b.Title, "section", s.Title, "reason", err)
			summary = ""
		}
		return p.w.StoreSummary(ctx, b.ID, s.ChapterIndex, s.Index, summary)
	})
	if err != nil {
		return err
	}
	for {
		chunks, err := p.w.ChunksToContextualize(ctx, b.ID, 8*p.opts.ContextConcurrency)
		if err != nil {
			return err
		}
		if len(chunks) == 0 {
			return nil
		}
		p.progress.ChunksDone = chunks[0].Index
		p.report()
		err = p.parallel(ctx, len(chunks), func(ctx context.Context, i int) error {
			k := chunks[i]
			text, err := c.SituateChunk(ctx, k.Summary, k.Heading, k.Text)
			if err != nil {
				if !recoverable(err) {
					return fmt.Errorf("contextualize %q: %w", b.Title, err)
				}
				p.log.Warn("no context for a chunk", "book", b.Title, "chunk", k.Index, "reason", err)
				text = ""
			}
			return p.w.StoreContext(ctx, k.ID, strings.TrimSpace(text))
		})
		if err != nil {
			return err
		}
	}
}

// recoverable errors of the language model concern one text; the others
// (unreachable, missing model, refused key) stop the run.
func recoverable(err error) bool {
	return errors.Is(err, llm.ErrTooLong) || errors.Is(err, llm.ErrEmptyReply)
}

// parallel runs fn(0..n-1) with at most ContextConcurrency at once and
// returns the first error; the others are cancelled.
func (p *pipeline) parallel(ctx context.Context, n int, fn func(context.Context, int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, p.opts.ContextConcurrency)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := fn(ctx, i); err != nil {
				once.Do(func() { first = err; cancel(err) })
			}
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}
