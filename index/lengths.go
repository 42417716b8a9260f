package index

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/grimoire-search/grimoire/index/fulltext"
)

// BM25 normalises a chunk's score by its length in tokens against the
// library's average. Each chunk's length is stored with it (chunk.length,
// textLength) and the library's totals in text_totals, kept by triggers in
// the transaction that adds or removes chunks: search reads both as
// ordinary rows, not from the full-text index's own records.

// fillLengths measures the chunks an older grimoire stored, inside the
// migration that adds their lengths (migration 23): its triggers add each
// length to the totals.
func fillLengths(ctx context.Context, tx execQuerier) error {
	upd, err := tx.PrepareContext(ctx, `UPDATE chunk SET length = ? WHERE id = ?`)
	if err != nil {
		return fmt.Errorf("chunk lengths: %w", err)
	}
	defer upd.Close()
	// In batches of ids: an UPDATE while the chunk table is read would
	// see its own writes.
	const batch = 2000
	for after := int64(0); ; {
		type measured struct{ id, length int64 }
		var got []measured
		err := readAll(ctx, tx, `SELECT id, heading, context, text FROM chunk WHERE id > ? ORDER BY id LIMIT ?`, func(r *sql.Rows) error {
			var m measured
			var heading, context, text string
			if err := r.Scan(&m.id, &heading, &context, &text); err != nil {
				return err
			}
			m.length = int64(fulltext.Length(heading, context, text))
			got = append(got, m)
			return nil
		}, after, batch)
		if err != nil {
			return fmt.Errorf("chunk lengths: %w", err)
		}
		for _, m := range got {
			if _, err := upd.ExecContext(ctx, m.length, m.id); err != nil {
				return fmt.Errorf("chunk lengths: chunk %d: %w", m.id, err)
			}
		}
		if len(got) < batch {
			return nil
		}
		after = got[len(got)-1].id
	}
}

// checkLengths verifies that every chunk's length is its text's and that
// the totals are the sums of the chunks.
func (d *DB) checkLengths(ctx context.Context) error {
	wrong := 0
	var chunks, tokens int64
	err := readAll(ctx, d.db, `SELECT heading, context, text, length FROM chunk`, func(r *sql.Rows) error {
		var heading, context, text string
		var n int
		if err := r.Scan(&heading, &context, &text, &n); err != nil {
			return err
		}
		if n != fulltext.Length(heading, context, text) {
			wrong++
		}
		chunks++
		tokens += int64(n)
		return nil
	})
	if err != nil {
		return fmt.Errorf("check chunk lengths: %w", err)
	}
	if wrong > 0 {
		return fmt.Errorf("check chunk lengths: %d chunks have a length other than their text's", wrong)
	}
	var totalChunks, totalTokens int64
	if err := d.db.QueryRowContext(ctx, `SELECT chunks, tokens FROM text_totals`).Scan(&totalChunks, &totalTokens); err != nil {
		return fmt.Errorf("check text totals: %w", err)
	}
	if totalChunks != chunks || totalTokens != tokens {
		return fmt.Errorf("check text totals: %d chunks of %d tokens recorded, %d of %d stored", totalChunks, totalTokens, chunks, tokens)
	}
	return nil
}
