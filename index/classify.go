package index

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/grimoire-search/grimoire/internal/passage"
)

// Each chunk holds its role and its copy signature (package passage),
// worked out once from its text, the titles it stands under (its book's,
// authors', chapter's and section's) and whether it is its book's only
// chunk: when its book is stored, and again for the whole book when a
// catalogue changes the book's title or authors. Chunks an older grimoire
// stored have neither until Writer.Classify fills them in.

// classifyBook works out and stores the role and copy signature of every
// chunk of book id, from the rows the transaction holds.
func (t *Tx) classifyBook(ctx context.Context, id int64) error {
	var title, authorsJSON string
	if err := t.tx.QueryRowContext(ctx, `SELECT title, authors FROM book WHERE id = ?`, id).Scan(&title, &authorsJSON); err != nil {
		return fmt.Errorf("classify the passages of book %d: %w", id, err)
	}
	var authors []string
	json.Unmarshal([]byte(authorsJSON), &authors)
	rows, err := t.tx.QueryContext(ctx, `
SELECT k.id, k.idx, k.text, coalesce(c.title, ''), coalesce(s.title, ''),
	k.idx = 0 AND NOT EXISTS (SELECT 1 FROM chunk n WHERE n.book_id = k.book_id AND n.idx = 1)
FROM chunk k
LEFT JOIN chapter c ON c.book_id = k.book_id AND c.idx = k.chapter_idx
LEFT JOIN section s INDEXED BY section_title ON s.book_id = k.book_id AND s.chapter_idx = k.chapter_idx AND s.idx = k.section_idx
WHERE k.book_id = ? ORDER BY k.idx`, id)
	if err != nil {
		return fmt.Errorf("classify the passages of book %d: %w", id, err)
	}
	type classified struct {
		id   int64
		role passage.Role
		sig  []byte // never nil: a passage of fewer than three words has no shingles, and is classified
	}
	var out []classified
	for rows.Next() {
		var chunkID int64
		var idx int
		p := passage.Passage{BookTitle: title, Authors: authors}
		if err := rows.Scan(&chunkID, &idx, &p.Text, &p.ChapterTitle, &p.SectionTitle, &p.Only); err != nil {
			rows.Close()
			return fmt.Errorf("classify the passages of book %d: %w", id, err)
		}
		if err := ctx.Err(); err != nil {
			rows.Close()
			return err
		}
		out = append(out, classified{chunkID, passage.Classify(p), passage.EncodeSignature([]byte{}, passage.SignatureOf(p.Text))})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("classify the passages of book %d: %w", id, err)
	}
	upd, err := t.tx.PrepareContext(ctx, `UPDATE chunk SET role = ?, signature = ? WHERE id = ?`)
	if err != nil {
		return fmt.Errorf("classify the passages of book %d: %w", id, err)
	}
	defer upd.Close()
	for _, c := range out {
		if _, err := upd.ExecContext(ctx, int(c.role), c.sig, c.id); err != nil {
			return fmt.Errorf("classify passage %d of book %d: %w", c.id, id, err)
		}
	}
	return nil
}

// Classify fills in the roles and copy signatures of the chunks an older
// grimoire stored without them, one book a transaction, until none is
// left or ctx ends: a writer stopped part way (even by kill -9) leaves
// whole books classified, and the next one goes on. It returns how many
// books it classified.
func (w *Writer) Classify(ctx context.Context) (int, error) {
	done := 0
	for {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		// The book is picked in the transaction that classifies it: a
		// reconcile beside ingest (watch) may prune it.
		wrote := false
		err := w.Update(ctx, func(t *Tx) error {
			var id int64
			err := t.tx.QueryRowContext(ctx, `SELECT book_id FROM chunk INDEXED BY chunk_unclassified WHERE role IS NULL LIMIT 1`).Scan(&id)
			if err == sql.ErrNoRows {
				return nil
			}
			if err != nil {
				return fmt.Errorf("unclassified passages: %w", err)
			}
			wrote = true
			return t.classifyBook(ctx, id)
		})
		if err != nil || !wrote {
			return done, err
		}
		done++
	}
}

// checkRoles verifies that every chunk of a ready book has a role and a
// copy signature, of the kinds package passage makes.
func (d *DB) checkRoles(ctx context.Context) error {
	var missing, bad int
	if err := d.db.QueryRowContext(ctx, `
SELECT coalesce(sum(k.role IS NULL OR k.signature IS NULL), 0),
	coalesce(sum(k.role NOT IN (?, ?, ?) OR length(k.signature) % 2 != 0), 0)
FROM chunk k JOIN book b ON b.id = k.book_id WHERE b.status = 'ready'`,
		int(passage.Content), int(passage.Contents), int(passage.Bare)).Scan(&missing, &bad); err != nil {
		return fmt.Errorf("check passage roles: %w", err)
	}
	if missing > 0 {
		return fmt.Errorf("check passage roles: %d passages of ready books are not classified (a sync classifies them)", missing)
	}
	if bad > 0 {
		return fmt.Errorf("check passage roles: %d passages have a role or copy signature no grimoire writes", bad)
	}
	return nil
}
