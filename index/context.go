package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/grimoire-search/grimoire/index/fulltext"
	"github.com/grimoire-search/grimoire/internal/vec8"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/model"
)

// SectionToSummarize is a section whose Contextual Retrieval summary has not
// been written yet.
type SectionToSummarize struct {
	ChapterIndex int
	Index        int
	Chapter      string
	Title        string
	Text         string
}

// SectionsToSummarize returns the sections of book id without a summary
// that still have chunks waiting for their context.
func (d *DB) SectionsToSummarize(ctx context.Context, id int64) ([]SectionToSummarize, error) {
	rows, err := d.db.QueryContext(ctx, `
SELECT s.chapter_idx, s.idx, c.title, s.title, s.text, s.from_chunks = 1, s.first_chunk, s.chunk_count
FROM section s JOIN chapter c ON c.book_id = s.book_id AND c.idx = s.chapter_idx
WHERE s.book_id = ? AND s.summary IS NULL AND EXISTS (
	SELECT 1 FROM chunk k WHERE k.book_id = s.book_id AND k.chapter_idx = s.chapter_idx
	  AND k.section_idx = s.idx AND k.state = 'pending')
ORDER BY s.chapter_idx, s.idx`, id)
	if err != nil {
		return nil, fmt.Errorf("sections of book %d: %w", id, err)
	}
	defer rows.Close()
	var out []SectionToSummarize
	var stored []storedSection
	for rows.Next() {
		var s SectionToSummarize
		var st storedSection
		if err := rows.Scan(&s.ChapterIndex, &s.Index, &s.Chapter, &s.Title, &st.text, &st.fromChunks, &st.first, &st.size); err != nil {
			return nil, err
		}
		out = append(out, s)
		stored = append(stored, st)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The writer has one connection: the rows go before the chunks are read.
	rows.Close()
	for i := range out {
		if out[i].Text, err = stored[i].read(ctx, d.db, id); err != nil {
			return nil, fmt.Errorf("section %d.%d of book %d: %w", out[i].ChapterIndex, out[i].Index, id, err)
		}
	}
	return out, nil
}

// StoreSummary records a section's summary ("" for none), so that it is
// never asked for again.
func (w *Writer) StoreSummary(ctx context.Context, id int64, chapter, section int, summary string) error {
	_, err := w.exec(ctx, `UPDATE section SET summary = ? WHERE book_id = ? AND chapter_idx = ? AND idx = ?`, summary, id, chapter, section)
	if err != nil {
		return fmt.Errorf("store summary of section %d.%d: %w", chapter, section, err)
	}
	return nil
}

// ChunkToContextualize is a chunk waiting for its context, with its
// section's summary.
type ChunkToContextualize struct {
	library.Chunk
	Summary string
}

// ChunksToContextualize returns up to limit pending chunks of book id whose
// section summary is written, in book order.
func (d *DB) ChunksToContextualize(ctx context.Context, id int64, limit int) ([]ChunkToContextualize, error) {
	rows, err := d.db.QueryContext(ctx, `
SELECT k.id, k.idx, k.chapter_idx, k.section_idx, k.heading, k.text, s.summary
FROM chunk k JOIN section s ON s.book_id = k.book_id AND s.chapter_idx = k.chapter_idx AND s.idx = k.section_idx
WHERE k.book_id = ? AND k.state = 'pending' AND s.summary IS NOT NULL
ORDER BY k.idx LIMIT ?`, id, limit)
	if err != nil {
		return nil, fmt.Errorf("chunks of book %d: %w", id, err)
	}
	defer rows.Close()
	var out []ChunkToContextualize
	for rows.Next() {
		k := ChunkToContextualize{Chunk: library.Chunk{BookID: id, State: library.ChunkPending}}
		if err := rows.Scan(&k.ID, &k.Index, &k.ChapterIndex, &k.SectionIndex, &k.Heading, &k.Text, &k.Summary); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// StoreContext records a chunk's situating context and moves it to
// contextualized; the full-text index follows by trigger, and the chunk's
// length in tokens with the context's.
func (w *Writer) StoreContext(ctx context.Context, chunkID int64, text string) error {
	err := w.Update(ctx, func(t *Tx) error {
		var heading, body string
		err := t.tx.QueryRowContext(ctx, `SELECT heading, text FROM chunk WHERE id = ? AND state = 'pending'`, chunkID).Scan(&heading, &body)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		_, err = t.tx.ExecContext(ctx, `UPDATE chunk SET context = ?, length = ?, state = 'contextualized' WHERE id = ?`,
			text, fulltext.Length(heading, text, body), chunkID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store context of chunk %d: %w", chunkID, err)
	}
	return nil
}

const contextStampKey = "context_model"

// model.ContextStamp returns the stamp of the contexts, ok false when none were
// written.
func (d *DB) ContextStamp(ctx context.Context) (s model.ContextStamp, ok bool, err error) {
	v, err := d.Meta(ctx, contextStampKey)
	if err != nil || v == "" {
		return s, false, err
	}
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return s, false, fmt.Errorf("read context stamp: %w", err)
	}
	return s, true, nil
}

// SetContextStamp records who writes the contexts from now on.
func (w *Writer) SetContextStamp(ctx context.Context, s model.ContextStamp) error {
	b, _ := json.Marshal(s)
	return w.SetMeta(ctx, contextStampKey, string(b))
}

// Model switches: `reindex --embeddings` embeds every chunk again into
// embedding_next, resumably, then swaps the sets in one transaction.

const nextStampKey = "embedding_next"

// NextStamp returns the model a re-embedding is switching to, if one is
// under way.
func (d *DB) NextStamp(ctx context.Context) (s model.Stamp, ok bool, err error) {
	if s, ok, err = readStamp(ctx, d.db, nextStampKey); err != nil {
		return s, false, fmt.Errorf("read next embedding stamp: %w", err)
	}
	return s, ok, nil
}

// BeginReembed starts (or resumes) a switch to the model s. A switch to
// another model that was under way is dropped.
func (w *Writer) BeginReembed(ctx context.Context, s model.Stamp) error {
	cur, ok, err := w.NextStamp(ctx)
	if err != nil {
		return err
	}
	if ok && cur == s {
		return nil
	}
	b, _ := json.Marshal(s)
	return w.Update(ctx, func(t *Tx) error {
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM embedding_next`); err != nil {
			return fmt.Errorf("begin re-embedding: %w", err)
		}
		_, err := t.tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, nextStampKey, string(b))
		return err
	})
}

// ReembedProgress returns how many embedded chunks have their new vector.
func (d *DB) ReembedProgress(ctx context.Context) (done, total int, err error) {
	err = d.db.QueryRowContext(ctx, `
SELECT (SELECT count(*) FROM embedding_next), (SELECT count(*) FROM chunk WHERE state = 'embedded')`).Scan(&done, &total)
	return done, total, err
}

const chunksToReembedSQL = `
SELECT k.id, k.book_id, k.idx, k.heading, k.context, k.text FROM chunk k
WHERE k.id > ? AND k.state = 'embedded' AND NOT EXISTS (SELECT 1 FROM embedding_next n WHERE n.chunk_id = k.id)
ORDER BY k.id LIMIT ?`

// ChunksToReembed returns up to limit embedded chunks without a new vector
// whose id is above after. A caller going batch by batch passes the last id
// it was given: a search from the first chunk would pass over every chunk
// done so far, a cost that grows with the square of the library's chunks.
func (d *DB) ChunksToReembed(ctx context.Context, after int64, limit int) ([]library.Chunk, error) {
	rows, err := d.db.QueryContext(ctx, chunksToReembedSQL, after, limit)
	if err != nil {
		return nil, fmt.Errorf("chunks to re-embed: %w", err)
	}
	defer rows.Close()
	var out []library.Chunk
	for rows.Next() {
		var k library.Chunk
		if err := rows.Scan(&k.ID, &k.BookID, &k.Index, &k.Heading, &k.Context, &k.Text); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// StoreNextEmbeddings stores new-model vectors, in one transaction.
func (w *Writer) StoreNextEmbeddings(ctx context.Context, ids []int64, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("store embeddings: %d ids, %d vectors", len(ids), len(vecs))
	}
	return w.Update(ctx, func(t *Tx) error {
		ins, err := t.tx.PrepareContext(ctx, `INSERT OR REPLACE INTO embedding_next(chunk_id, vec) VALUES (?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		var buf []byte
		for i, id := range ids {
			buf = vec8.Append(buf[:0], vecs[i])
			if _, err := ins.ExecContext(ctx, id, buf); err != nil {
				return fmt.Errorf("store new embedding of chunk %d: %w", id, err)
			}
		}
		return nil
	})
}

// SwapEmbeddings replaces every vector with its new-model one and restamps
// the index, in one transaction. It refuses when a chunk still lacks its
// new vector.
func (w *Writer) SwapEmbeddings(ctx context.Context) error {
	next, ok, err := w.NextStamp(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("swap embeddings: no re-embedding under way")
	}
	b, _ := json.Marshal(next)
	return w.Update(ctx, func(t *Tx) error {
		var missing int
		if err := t.tx.QueryRowContext(ctx, `
SELECT count(*) FROM chunk k WHERE k.state = 'embedded' AND NOT EXISTS (SELECT 1 FROM embedding_next n WHERE n.chunk_id = k.id)`).Scan(&missing); err != nil {
			return err
		}
		if missing > 0 {
			return fmt.Errorf("swap embeddings: %d chunks have no new vector yet", missing)
		}
		for _, q := range []string{
			`DELETE FROM embedding`,
			`INSERT INTO embedding(chunk_id, vec) SELECT chunk_id, vec FROM embedding_next ORDER BY chunk_id`,
			`DELETE FROM embedding_next`,
		} {
			if _, err := t.tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("swap embeddings: %w", err)
			}
		}
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, stampKey, string(b)); err != nil {
			return err
		}
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM meta WHERE key = ?`, nextStampKey); err != nil {
			return err
		}
		return t.bumpVectorGeneration(ctx)
	})
}
