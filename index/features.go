package index

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// FeatureStats count, for a sample of the chunks, how many hold each text
// feature (a hash of a character n-gram; package subword says what a
// feature is, and when and how the statistics are drawn and read): search
// weighs features by their rarity with them. The writer refreshes them when
// the library has grown or shrunk by a tenth; a sample of a couple of
// thousand chunks estimates rarity as well as all of them.
type FeatureStats struct {
	// Version changes with every refresh.
	Version int64
	// Chunks is the index's size when sampled; Docs the chunks sampled.
	Chunks, Docs int
	// Keys are the features seen, in increasing order; DF[i] is how many
	// sampled chunks hold Keys[i].
	Keys []uint64
	DF   []uint32
}

// Count returns how many sampled chunks hold feature key.
func (s FeatureStats) Count(key uint64) uint32 {
	if i, ok := slices.BinarySearch(s.Keys, key); ok {
		return s.DF[i]
	}
	return 0
}

// FeatureSample is how many chunks feature statistics are drawn from.
const FeatureSample = 2000

// Stale reports whether statistics drawn at s.Chunks chunks are out of date
// for an index of n chunks.
func (s FeatureStats) Stale(n int) bool {
	d := n - s.Chunks
	return 10*max(d, -d) > s.Chunks
}

// Features extracts text features; fn is called once per distinct feature.
type Features func(text string, fn func(key uint64, count uint32))

// SampleFeatureStats draws feature statistics from FeatureSample chunks.
func (d *DB) SampleFeatureStats(ctx context.Context, features Features) (FeatureStats, error) {
	n, err := d.ChunkCount(ctx)
	if err != nil {
		return FeatureStats{}, err
	}
	st := FeatureStats{Chunks: n}
	df := make(map[uint64]uint32)
	err = d.sampleChunks(ctx, FeatureSample, n, func(c ChunkText) {
		st.Docs++
		features(c.String(), func(key uint64, _ uint32) { df[key]++ })
	})
	if err != nil {
		return FeatureStats{}, err
	}
	st.Keys = make([]uint64, 0, len(df))
	for k := range df {
		st.Keys = append(st.Keys, k)
	}
	slices.Sort(st.Keys)
	st.DF = make([]uint32, len(st.Keys))
	for i, k := range st.Keys {
		st.DF[i] = df[k]
	}
	return st, nil
}

// FeatureStatsHeader returns the stored statistics without their counts
// (Keys and DF are nil), or ok false when there are none: an index written before
// them, or not synced since.
func (d *DB) FeatureStatsHeader(ctx context.Context) (st FeatureStats, ok bool, err error) {
	err = d.db.QueryRowContext(ctx, `SELECT version, chunks, docs FROM feature_stats`).Scan(&st.Version, &st.Chunks, &st.Docs)
	if errors.Is(err, sql.ErrNoRows) {
		return st, false, nil
	}
	if err != nil {
		return st, false, fmt.Errorf("feature statistics: %w", err)
	}
	return st, true, nil
}

// FeatureStats returns the stored statistics, or ok false when there are
// none.
func (d *DB) FeatureStats(ctx context.Context) (st FeatureStats, ok bool, err error) {
	var blob []byte
	err = d.db.QueryRowContext(ctx, `SELECT version, chunks, docs, df FROM feature_stats`).Scan(&st.Version, &st.Chunks, &st.Docs, &blob)
	if errors.Is(err, sql.ErrNoRows) {
		return st, false, nil
	}
	if err != nil {
		return st, false, fmt.Errorf("feature statistics: %w", err)
	}
	if st.Keys, st.DF, err = decodeDF(blob); err != nil {
		return st, false, fmt.Errorf("feature statistics: %w", err)
	}
	return st, true, nil
}

// PutFeatureStats stores st in place of the statistics before it.
func (w *Writer) PutFeatureStats(ctx context.Context, st FeatureStats) error {
	_, err := w.exec(ctx, `
INSERT INTO feature_stats(id, version, chunks, docs, df) VALUES (1, 1, ?, ?, ?)
ON CONFLICT(id) DO UPDATE SET version = version + 1, chunks = excluded.chunks, docs = excluded.docs, df = excluded.df`,
		st.Chunks, st.Docs, encodeDF(st.Keys, st.DF))
	if err != nil {
		return fmt.Errorf("store feature statistics: %w", err)
	}
	return nil
}

// encodeDF writes the keys (in increasing order) as varint gaps, each
// followed by its count: about 5 bytes a feature instead of 12.
func encodeDF(keys []uint64, df []uint32) []byte {
	buf := binary.AppendUvarint(nil, uint64(len(keys)))
	var prev uint64
	for i, k := range keys {
		buf = binary.AppendUvarint(buf, k-prev)
		buf = binary.AppendUvarint(buf, uint64(df[i]))
		prev = k
	}
	return buf
}

func decodeDF(b []byte) (keys []uint64, df []uint32, err error) {
	n, used := binary.Uvarint(b)
	if used <= 0 || n > uint64(len(b)) {
		return nil, nil, errors.New("bad length")
	}
	b = b[used:]
	keys, df = make([]uint64, 0, n), make([]uint32, 0, n)
	var key uint64
	for i := range n {
		gap, u1 := binary.Uvarint(b)
		if u1 <= 0 || (gap == 0 && i > 0) {
			return nil, nil, errors.New("truncated or out of order")
		}
		count, u2 := binary.Uvarint(b[u1:])
		if u2 <= 0 || count > 1<<32-1 {
			return nil, nil, errors.New("truncated")
		}
		b = b[u1+u2:]
		if key+gap < key {
			return nil, nil, errors.New("out of order")
		}
		key += gap
		keys, df = append(keys, key), append(df, uint32(count))
	}
	return keys, df, nil
}

// sampleChunks calls fn with the texts of about n chunks spread evenly over
// the index by id (so over its books), or of every chunk when the index,
// which holds total chunks, holds no more than n. The same index gives the
// same sample.
func (d *DB) sampleChunks(ctx context.Context, n, total int, fn func(ChunkText)) error {
	if total <= n {
		rows, err := d.db.QueryContext(ctx, `SELECT heading, context, text FROM chunk`)
		if err != nil {
			return fmt.Errorf("sample chunks: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var c ChunkText
			if err := rows.Scan(&c.Heading, &c.Context, &c.Text); err != nil {
				return fmt.Errorf("sample chunks: %w", err)
			}
			fn(c)
		}
		return rows.Err()
	}
	var lo, hi int64
	err := d.db.QueryRowContext(ctx, `
SELECT coalesce((SELECT min(id) FROM chunk), 0), coalesce((SELECT max(id) FROM chunk), -1)`).Scan(&lo, &hi)
	if err != nil {
		return fmt.Errorf("sample chunks: %w", err)
	}
	// One seek per sampled chunk: a scan would read every chunk's text.
	stmt, err := d.db.PrepareContext(ctx, `SELECT id, heading, context, text FROM chunk WHERE id >= ? ORDER BY id LIMIT 1`)
	if err != nil {
		return fmt.Errorf("sample chunks: %w", err)
	}
	defer stmt.Close()
	last := int64(-1)
	span := hi - lo + 1
	for i := int64(0); i < int64(n); i++ {
		var id int64
		var c ChunkText
		err := stmt.QueryRowContext(ctx, lo+i*span/int64(n)).Scan(&id, &c.Heading, &c.Context, &c.Text)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return fmt.Errorf("sample chunks: %w", err)
		}
		if id == last {
			continue // a gap in the ids: the next chunk was sampled already
		}
		last = id
		fn(c)
	}
	return nil
}
