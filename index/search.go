package index

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/grimoire-search/grimoire/index/fulltext"
	"github.com/grimoire-search/grimoire/internal/passage"
)

// FTSHit is one chunk found by full-text search.
type FTSHit = fulltext.Hit

// FTSWeights are the BM25 weights of the full-text columns.
type FTSWeights = fulltext.Weights

// SearchFTS runs an FTS5 MATCH expression over the chunks of ready books that
// f selects and returns the best limit hits, best first. The expression must
// already be safe FTS5 syntax; retrieve builds it from user text. Searches
// rank from the postings (Terms); FTS5 answers what they cannot: a phrase
// (a word the tokenizer cuts in several, "e-mail", which needs the words'
// positions), and any search while some ready book has no postings yet
// (an index an older grimoire wrote, until the writer has caught up).
func (d *DB) SearchFTS(ctx context.Context, match string, f BookFilter, w FTSWeights, limit int) ([]FTSHit, error) {
	if f.Author != "" || f.Type != "" || f.Path != "" || f.Query != "" || f.Tag != "" || f.Series != "" || f.Collection != "" || f.ItemType != "" {
		return d.searchFTSJoined(ctx, match, f, w, limit)
	}
	// Rank inside FTS5 first and look at the chunk and book rows of the
	// best few only: joining them for every match (a common word matches
	// a quarter of the library) costs more than the ranking itself.
	// A book's chunks have consecutive ids (one writer stores them in one
	// transaction), and FTS5 seeks rowid ranges in its lists.
	// (Each of min and max alone is one seek; together in one SELECT
	// they would read every chunk.)
	q := `SELECT coalesce((SELECT min(id) FROM chunk), 0), coalesce((SELECT max(id) FROM chunk), -1)`
	args := []any{}
	if f.Slug != "" {
		q = `SELECT coalesce(min(k.id), 0), coalesce(max(k.id), -1) FROM chunk k JOIN book b ON b.id = k.book_id WHERE b.slug = ?`
		args = append(args, f.Slug)
	}
	var lo, hi int64
	if err := d.db.QueryRowContext(ctx, q, args...).Scan(&lo, &hi); err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	parts := 1
	if hi-lo >= ftsSplitRows {
		parts = min(runtime.GOMAXPROCS(0), 4)
	}
	for want := limit + 16; ; want *= 4 {
		cands, err := d.rankFTS(ctx, match, w, lo, hi, want, parts)
		if err != nil {
			return nil, err
		}
		out, err := d.keepReady(ctx, cands, f.Slug, limit)
		if err != nil {
			return nil, err
		}
		if len(out) == limit || len(cands) < want {
			return out, nil
		}
	}
}

// ftsSplitRows is the span of chunk ids above which full-text ranking is
// split across cores. At 100,000 chunks a query of common words ranked in
// two halves on two cores answers in 0.6 of the time of one query (each
// half still counts every row of each word for BM25's IDF; the scoring is
// what is shared); typical queries gain 15 %.
const ftsSplitRows = 20000

// rankFTS returns the best want rows of [lo, hi] by BM25, best first (ties
// by rowid), ranking parts ranges of rowids side by side and merging them.
func (d *DB) rankFTS(ctx context.Context, match string, w FTSWeights, lo, hi int64, want, parts int) ([]FTSHit, error) {
	if parts <= 1 {
		return d.rankFTSRange(ctx, match, w, lo, hi, want)
	}
	step := (hi - lo) / int64(parts)
	lists := make([][]FTSHit, parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for i := range parts {
		a, b := lo+int64(i)*step, lo+int64(i+1)*step-1
		if i == parts-1 {
			b = hi
		}
		wg.Go(func() { lists[i], errs[i] = d.rankFTSRange(ctx, match, w, a, b, want) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	all := slices.Concat(lists...)
	slices.SortFunc(all, func(a, b FTSHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	})
	return all[:min(want, len(all))], nil
}

func (d *DB) rankFTSRange(ctx context.Context, match string, w FTSWeights, lo, hi int64, want int) ([]FTSHit, error) {
	rows, err := d.db.QueryContext(ctx, `
SELECT rowid, bm25(chunk_fts, ?, ?, ?) AS s FROM chunk_fts
WHERE chunk_fts MATCH ? AND rowid BETWEEN ? AND ?
ORDER BY s, rowid LIMIT ?`, w.Heading, w.Context, w.Text, match, lo, hi, want)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	var out []FTSHit
	for rows.Next() {
		var h FTSHit
		if err := rows.Scan(&h.ChunkID, &h.Score); err != nil {
			return nil, err
		}
		h.Score = -h.Score
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	return out, nil
}

// keepReady keeps the candidates whose book is ready (and is slug, when
// given), filling in their book ids, in order, at most limit of them.
func (d *DB) keepReady(ctx context.Context, cands []FTSHit, slug string, limit int) ([]FTSHit, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(cands))
	for i, c := range cands {
		ids[i] = c.ChunkID
	}
	ph, args := idList(ids)
	// CROSS JOIN keeps SQLite from walking every chunk of every ready book
	// to find the few asked for.
	q := `SELECT k.id, k.book_id FROM chunk k CROSS JOIN book b ON b.id = k.book_id AND b.status = 'ready' WHERE k.id IN (` + ph + `)`
	if slug != "" {
		q += ` AND b.slug = ?`
		args = append(args, slug)
	}
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	book := make(map[int64]int64, len(cands))
	for rows.Next() {
		var id, b int64
		if err := rows.Scan(&id, &b); err != nil {
			return nil, err
		}
		book[id] = b
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]FTSHit, 0, min(limit, len(book)))
	for _, c := range cands {
		if b, ok := book[c.ChunkID]; ok && len(out) < limit {
			c.BookID = b
			c.Rank = len(out) + 1
			out = append(out, c)
		}
	}
	return out, nil
}

// searchFTSJoined filters while ranking, for filters that select books by
// their metadata.
func (d *DB) searchFTSJoined(ctx context.Context, match string, f BookFilter, w FTSWeights, limit int) ([]FTSHit, error) {
	f.ReadyOnly = true
	where, args := f.where()
	cond := strings.TrimPrefix(where, "WHERE ")
	q := `
SELECT k.id, k.book_id, bm25(chunk_fts, ?, ?, ?) AS s
FROM chunk_fts
JOIN chunk k ON k.id = chunk_fts.rowid
JOIN book b ON b.id = k.book_id
WHERE chunk_fts MATCH ? AND ` + cond + `
ORDER BY s LIMIT ?`
	all := append([]any{w.Heading, w.Context, w.Text, match}, args...)
	all = append(all, limit)
	rows, err := d.db.QueryContext(ctx, q, all...)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	defer rows.Close()
	var out []FTSHit
	for rows.Next() {
		var h FTSHit
		if err := rows.Scan(&h.ChunkID, &h.BookID, &h.Score); err != nil {
			return nil, err
		}
		h.Score = -h.Score
		h.Rank = len(out) + 1
		out = append(out, h)
	}
	return out, rows.Err()
}

// FoldTerm lowers w and strips its diacritics as the full-text index's
// tokenizer (unicode61 with remove_diacritics 2) does, for looking up a
// word's statistics with TermDocs. It does not stem.
func FoldTerm(w string) string { return passage.Fold(w) }

// TermDocs returns how many chunks contain each of the given index terms
// (as the tokenizer stores them: lower case, folded, stemmed); a term the
// index does not hold is left out of the map.
func (d *DB) TermDocs(ctx context.Context, terms []string) (map[string]int, error) {
	out := make(map[string]int, len(terms))
	if err := d.commonTermDocs(ctx, terms, out); err != nil {
		return nil, err
	}
	// One equality lookup per term: fts5vocab seeks on term = ?, but scans
	// the whole vocabulary for term IN (...).
	for _, t := range terms {
		if _, done := out[t]; done {
			continue
		}
		var n int
		err := d.db.QueryRowContext(ctx, `SELECT doc FROM chunk_vocab WHERE term = ?`, t).Scan(&n)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("term statistics: %w", err)
		}
		out[t] = n
	}
	return out, nil
}

// ChunkCount returns the number of chunks, and a key that changes whenever
// chunks are added or removed, for callers that cache the count.
func (d *DB) ChunkCount(ctx context.Context) (n int, err error) {
	if err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM chunk`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count chunks: %w", err)
	}
	return n, nil
}

// VectorRow is one stored embedding, as Vectors yields it. Vec is its
// encoding (internal/vec8), only valid during the callback.
type VectorRow struct {
	ID      int64
	ChunkID int64
	BookID  int64
	Vec     []byte
}

// Vectors calls fn for every embedding with an id greater than after, in id
// order.
func (d *DB) Vectors(ctx context.Context, after int64, fn func(VectorRow) error) error {
	rows, err := d.db.QueryContext(ctx, `
SELECT e.id, e.chunk_id, k.book_id, e.vec FROM embedding e JOIN chunk k ON k.id = e.chunk_id
WHERE e.id > ? ORDER BY e.id`, after)
	if err != nil {
		return fmt.Errorf("load vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r VectorRow
		var raw sql.RawBytes
		if err := rows.Scan(&r.ID, &r.ChunkID, &r.BookID, &raw); err != nil {
			return fmt.Errorf("load vectors: %w", err)
		}
		r.Vec = raw
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CountVectors returns the number of embeddings with an id greater than
// after.
func (d *DB) CountVectors(ctx context.Context, after int64) (int, error) {
	q, args := `SELECT count(*) FROM embedding WHERE id > ?`, []any{after}
	if after <= 0 {
		// All of them (ids start at 1), counted in the chunk_id index:
		// a range of ids is counted in the rows, which are the vectors
		// themselves (2 s of reading for a million).
		q, args = `SELECT count(*) FROM embedding`, nil
	}
	var n int
	if err := d.db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count vectors: %w", err)
	}
	return n, nil
}

// VectorGeneration changes whenever embeddings may have been removed (a
// prune, a delete, a re-ingest), so a reader knows to reload rather than
// append. Together with the largest embedding id it tells a reader whether
// its vectors are current.
func (d *DB) VectorGeneration(ctx context.Context) (gen string, maxID int64, err error) {
	err = d.db.QueryRowContext(ctx, `
SELECT coalesce((SELECT value FROM meta WHERE key = 'vector_generation'), ''),
	coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'embedding'), 0)`).Scan(&gen, &maxID)
	if err != nil {
		return "", 0, fmt.Errorf("vector generation: %w", err)
	}
	return gen, maxID, nil
}

func (t *Tx) bumpVectorGeneration(ctx context.Context) error {
	_, err := t.tx.ExecContext(ctx, `
INSERT INTO meta(key, value) VALUES ('vector_generation', '1')
ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`)
	return err
}

// ChunkText is the texts of a chunk that were indexed, as the samples of
// the library's statistics read them.
type ChunkText struct {
	Heading, Context, Text string
}

// String joins the texts the way they are embedded.
func (c ChunkText) String() string { return JoinText(c.Heading, c.Context, c.Text) }

// JoinText joins a chunk's heading, context and text, leaving out the empty
// ones, the way they are embedded.
func JoinText(heading, context, text string) string {
	parts := make([]string, 0, 3)
	for _, p := range []string{heading, context, text} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n\n")
}
