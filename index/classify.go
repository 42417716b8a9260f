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

// provisionalRole is the role a chunk is stored with until classifyBook,
// in the same transaction, gives it its own: a role of the same size, so
// that the row does not grow and split its page (which took the chunk
// table from 6.5 to 9.6 MB on the corpus's text books).
const provisionalRole = passage.Content

// classifyBook works out and stores the role of every chunk of book id,
// and the copy signature of those stored without one, from the rows the
// transaction holds.
func (t *Tx) classifyBook(ctx context.Context, id int64) error {
	var title, authorsJSON string
	if err := t.tx.QueryRowContext(ctx, `SELECT title, authors FROM book WHERE id = ?`, id).Scan(&title, &authorsJSON); err != nil {
		return fmt.Errorf("classify the passages of book %d: %w", id, err)
	}
	var authors []string
	json.Unmarshal([]byte(authorsJSON), &authors)
	rows, err := t.tx.QueryContext(ctx, `
SELECT k.id, k.idx, k.text, coalesce(c.title, ''), coalesce(s.title, ''),
	k.idx = 0 AND NOT EXISTS (SELECT 1 FROM chunk n WHERE n.book_id = k.book_id AND n.idx = 1), k.role,
	NOT EXISTS (SELECT 1 FROM chunk_signature g WHERE g.chunk_id = k.id)
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
		sig  []byte // nil: the chunk's stays; else never nil, since a passage of fewer than three words has no shingles
	}
	var out []classified
	for rows.Next() {
		var chunkID int64
		var idx int
		var stored sql.NullInt64
		var unsigned bool
		p := passage.Passage{BookTitle: title, Authors: authors}
		if err := rows.Scan(&chunkID, &idx, &p.Text, &p.ChapterTitle, &p.SectionTitle, &p.Only, &stored, &unsigned); err != nil {
			rows.Close()
			return fmt.Errorf("classify the passages of book %d: %w", id, err)
		}
		if err := ctx.Err(); err != nil {
			rows.Close()
			return err
		}
		c := classified{chunkID, passage.Classify(p), nil}
		if unsigned {
			c.sig = passage.EncodeSignature([]byte{}, passage.SignatureOf(p.Text))
		} else if stored.Valid && passage.Role(stored.Int64) == c.role {
			continue
		}
		out = append(out, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("classify the passages of book %d: %w", id, err)
	}
	upd, err := t.tx.PrepareContext(ctx, `UPDATE chunk SET role = ? WHERE id = ?`)
	if err != nil {
		return fmt.Errorf("classify the passages of book %d: %w", id, err)
	}
	defer upd.Close()
	insSig, err := t.tx.PrepareContext(ctx, `INSERT INTO chunk_signature(chunk_id, signature) VALUES (?, ?)`)
	if err != nil {
		return fmt.Errorf("classify the passages of book %d: %w", id, err)
	}
	defer insSig.Close()
	for _, c := range out {
		if _, err := upd.ExecContext(ctx, int(c.role), c.id); err != nil {
			return fmt.Errorf("classify passage %d of book %d: %w", c.id, id, err)
		}
		if c.sig == nil {
			continue
		}
		if _, err := insSig.ExecContext(ctx, c.id, c.sig); err != nil {
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
	return w.bookByBook(ctx, func(t *Tx) (bool, error) {
		var id int64
		err := t.tx.QueryRowContext(ctx, `SELECT book_id FROM chunk INDEXED BY chunk_unclassified WHERE role IS NULL LIMIT 1`).Scan(&id)
		if err == sql.ErrNoRows {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("unclassified passages: %w", err)
		}
		return true, t.classifyBook(ctx, id)
	})
}

// checkRoles verifies that every chunk of a ready book has a role and a
// copy signature, of the kinds package passage makes.
func (d *DB) checkRoles(ctx context.Context) error {
	var missing, bad int
	if err := d.db.QueryRowContext(ctx, `
SELECT coalesce(sum(k.role IS NULL OR g.signature IS NULL), 0),
	coalesce(sum(k.role NOT IN (?, ?, ?) OR length(g.signature) % 2 != 0), 0)
FROM chunk k JOIN book b ON b.id = k.book_id LEFT JOIN chunk_signature g ON g.chunk_id = k.id WHERE b.status = 'ready'`,
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
