package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/grimoire-search/grimoire/internal/vec8"
)

// Vectors are stored in the vec8 encoding (8-bit integers and a scale, at
// the precision search scans them); grimoires before schema 22 stored
// little-endian float32s, which migration 22 converts and a rebuild's
// salvage may still read in an old file.

// execQuerier is a transaction or a database, for a migration.
type execQuerier interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// storedVector returns raw, a vector of dim components as any grimoire
// stored it, in the encoding stored now: as it is, or quantized from the
// float32s of an older index; false when it is neither.
func storedVector(raw []byte, dim int) ([]byte, bool) {
	switch len(raw) {
	case vec8.Size(dim):
		return raw, true
	case 4 * dim:
		return vec8.Append(nil, float32s(raw)), true
	}
	return nil, false
}

// float32s decodes little-endian float32s, as older grimoires stored
// vectors; a trailing partial float is left out.
func float32s(raw []byte) []float32 {
	v := make([]float32, len(raw)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return v
}

// requantizeBatch is how many vectors migration 22 holds in memory at once.
const requantizeBatch = 1000

// requantizeVectors is migration 22: it converts the float32 vectors of
// embedding and embedding_next to the vec8 encoding. A vector is one when
// it is as long as its model's dimension (its stamp) makes it, or, without
// a stamp, any whole number of floats. Others are left as they are: they
// were of no use before either, and Check tells of them.
func requantizeVectors(ctx context.Context, q execQuerier) error {
	for _, t := range []struct{ table, key, restore, stamp string }{
		{"embedding", "id", `INSERT INTO embedding(id, chunk_id, vec) SELECT key, chunk_id, vec FROM temp.requantized ORDER BY key`, stampKey},
		{"embedding_next", "chunk_id", `INSERT INTO embedding_next(chunk_id, vec) SELECT chunk_id, vec FROM temp.requantized ORDER BY key`, nextStampKey},
	} {
		dim, err := stampDim(ctx, q, t.stamp)
		if err == nil {
			err = requantizeTable(ctx, q, t.table, t.key, t.restore, dim)
		}
		if err != nil {
			return fmt.Errorf("convert the vectors of %s: %w", t.table, err)
		}
	}
	return nil
}

// stampDim returns the dimension of the stamp stored under key in meta, 0
// when there is none.
func stampDim(ctx context.Context, q execQuerier, key string) (int, error) {
	s, _, err := readStamp(ctx, q, key)
	if err != nil {
		return 0, fmt.Errorf("read the stamp %s: %w", key, err)
	}
	return max(s.Dim, 0), nil
}

// requantizeTable converts the vectors of table into a temporary table,
// in batches by key, then writes the table again from it. Rows updated in
// place would stay on their pages, a quarter full: the table would keep
// every page it had, none of them free for the index to reuse.
func requantizeTable(ctx context.Context, q execQuerier, table, key, restore string, dim int) error {
	const isFloats = `(length(vec) = 4 * ?1 OR (?1 = 0 AND length(vec) > 0 AND length(vec) % 4 = 0))`
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE `+isFloats, dim).Scan(&n); err != nil || n == 0 {
		return err
	}
	if _, err := q.ExecContext(ctx, `CREATE TEMP TABLE requantized (key INTEGER PRIMARY KEY, chunk_id INTEGER NOT NULL, vec BLOB NOT NULL)`); err != nil {
		return err
	}
	sel := `SELECT ` + key + `, chunk_id, vec, ` + isFloats + ` FROM ` + table + ` WHERE ` + key + ` > ?2 ORDER BY ` + key + ` LIMIT ?3`
	type row struct {
		key, chunk int64
		vec        []byte
	}
	var after int64
	for {
		// A batch is read whole before it is written: a query's rows are
		// only valid until the next statement.
		rows, err := q.QueryContext(ctx, sel, dim, after, requantizeBatch)
		if err != nil {
			return err
		}
		var batch []row
		for rows.Next() {
			var r row
			var raw []byte
			var convert bool
			if err := rows.Scan(&r.key, &r.chunk, &raw, &convert); err != nil {
				rows.Close()
				return err
			}
			r.vec = raw
			if convert {
				r.vec = vec8.Append(nil, float32s(raw))
			}
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, r := range batch {
			if _, err := q.ExecContext(ctx, `INSERT INTO temp.requantized(key, chunk_id, vec) VALUES (?, ?, ?)`, r.key, r.chunk, r.vec); err != nil {
				return err
			}
			after = r.key
		}
		if len(batch) < requantizeBatch {
			break
		}
	}
	for _, s := range []string{`DELETE FROM ` + table, restore, `DROP TABLE temp.requantized`} {
		if _, err := q.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// checkVectors checks that every stored vector is as long as the
// dimension of its model makes it. Without a model stamp there is no
// dimension to hold them to.
func (d *DB) checkVectors(ctx context.Context) error {
	for _, t := range []struct{ table, stamp string }{{"embedding", stampKey}, {"embedding_next", nextStampKey}} {
		dim, err := stampDim(ctx, d.db, t.stamp)
		if err != nil {
			return fmt.Errorf("check vectors: %w", err)
		}
		if dim == 0 {
			continue
		}
		var bad int
		if err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM `+t.table+` WHERE length(vec) != ?`, vec8.Size(dim)).Scan(&bad); err != nil {
			return fmt.Errorf("check vectors: %w", err)
		}
		if bad > 0 {
			return fmt.Errorf("check vectors: %s: %d not %d bytes long, as %d dimensions make them (`grimoire reindex --embeddings` embeds them again)", t.table, bad, vec8.Size(dim), dim)
		}
	}
	return nil
}
