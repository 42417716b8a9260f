package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/grimoire-search/grimoire/index/fulltext"
)

// A server answers many searches between two changes to the index. What
// they share of the library (its ready books with their paths, which
// books share text, its totals) is read once per change: each search
// first asks the index whether anything changed (Snapshot), and reads
// the rest only when it did (ReadLibrary).

// Snapshot is what a search reads of the library before anything else.
type Snapshot struct {
	// Key changes whenever chunks, vectors, books, their files, the
	// books waiting for OCR or the books that share text change.
	Key string
	// Chunks and Tokens are the library's count of chunks and of their
	// tokens, which BM25 normalises by.
	Chunks, Tokens int64
}

// Corpus is what BM25 knows of the library as of s.
func (s *LibraryState) Corpus() fulltext.Corpus {
	return fulltext.Corpus{Chunks: s.Chunks, Tokens: s.Tokens, MinChunk: s.minChunk, MaxChunk: s.maxChunk}
}

// AvgLen is the chunks' average length in tokens.
func (s Snapshot) AvgLen() float64 {
	if s.Chunks == 0 {
		return 0
	}
	return float64(s.Tokens) / float64(s.Chunks)
}

const snapshotKey = `coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'chunk'), 0) || '/' ||
	coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'embedding'), 0) || '/' ||
	coalesce((SELECT value FROM meta WHERE key = 'vector_generation'), '') || '/' ||
	(SELECT n FROM library_generation)`

const snapshotQuery = `SELECT ` + snapshotKey + `, t.chunks, t.tokens FROM text_totals t`

// Snapshot reads the library's change key and totals, in one question.
func (d *DB) Snapshot(ctx context.Context) (Snapshot, error) {
	return snapshotOf(ctx, d.db)
}

func snapshotOf(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (Snapshot, error) {
	var s Snapshot
	if err := q.QueryRowContext(ctx, snapshotQuery).Scan(&s.Key, &s.Chunks, &s.Tokens); err != nil {
		return Snapshot{}, fmt.Errorf("index change key: %w", err)
	}
	return s, nil
}

// LibraryState is what searches share of the library while its key
// stays the same. It is not changed once read.
type LibraryState struct {
	Snapshot
	// Books are the ready books by id, named: as filters, and the
	// question's names, read them.
	Books map[int64]BookName
	// Progress is how far indexing has got.
	Progress Progress
	// Postings says that every ready book has postings, so that full-text
	// search can rank from them (Terms); shards are the shards they are
	// in, a list of integers of ours.
	Postings bool
	shards   string
	// minChunk and maxChunk bound the chunks' ids.
	minChunk, maxChunk int64
	// Shared lists, for each book that shares text, the books that hold
	// it, by the share of it they hold, most first.
	Shared map[int64][]SharedBook
	// Features is the header of the sub-word statistics the writer drew,
	// when HasFeatures.
	Features    FeatureStats
	HasFeatures bool
}

// BookName is what names a ready book: its slug, title and authors.
type BookName struct {
	Slug, Title, Author string
}

// SharedBook is a book that holds Share of another's text.
type SharedBook struct {
	ID    int64
	Share float64
}

// ReadLibrary reads the library's state, all of it as of one moment.
func (d *DB) ReadLibrary(ctx context.Context) (*LibraryState, error) {
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("read the library: %w", err)
	}
	defer tx.Rollback()
	s := &LibraryState{Books: make(map[int64]BookName), Shared: make(map[int64][]SharedBook)}
	if s.Snapshot, err = snapshotOf(ctx, tx); err != nil {
		return nil, err
	}
	err = tx.QueryRowContext(ctx, `
SELECT (SELECT count(*) FROM book b WHERE b.status IN ('pending', 'parsed')
		AND NOT EXISTS (SELECT 1 FROM ocr_book o WHERE o.hash = b.hash AND o.waiting != '')),
	(SELECT count(*) FROM book WHERE status = 'ready'),
	(SELECT count(*) FROM book WHERE status = 'ready') = (SELECT count(*) FROM fts_book),
	coalesce((SELECT group_concat(s) FROM (SELECT DISTINCT book_id >> 3 AS s FROM fts_book)), ''),
	coalesce((SELECT min(id) FROM chunk), 0), coalesce((SELECT max(id) FROM chunk), -1)`).
		Scan(&s.Progress.Indexing, &s.Progress.Ready, &s.Postings, &s.shards, &s.minChunk, &s.maxChunk)
	if err != nil {
		return nil, fmt.Errorf("read the library: %w", err)
	}
	if s.Progress.Indexing == 0 {
		s.Progress.Ready = 0 // as Progress gives it
	}
	err = tx.QueryRowContext(ctx, `SELECT version, chunks, docs FROM feature_stats`).Scan(&s.Features.Version, &s.Features.Chunks, &s.Features.Docs)
	if s.HasFeatures = err == nil; err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read the library: feature statistics: %w", err)
	}
	err = readAll(ctx, tx, `SELECT id, slug, title, author FROM book WHERE status = 'ready'`, func(r *sql.Rows) error {
		var id int64
		var b BookName
		if err := r.Scan(&id, &b.Slug, &b.Title, &b.Author); err != nil {
			return err
		}
		s.Books[id] = b
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the library: books: %w", err)
	}
	err = readAll(ctx, tx, `SELECT book_id, other_id, share FROM shared_text ORDER BY book_id, share DESC, other_id`, func(r *sql.Rows) error {
		var id int64
		var o SharedBook
		if err := r.Scan(&id, &o.ID, &o.Share); err != nil {
			return err
		}
		s.Shared[id] = append(s.Shared[id], o)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the library: books that share text: %w", err)
	}
	return s, nil
}
