package index

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/grimoire-search/grimoire/fault"
)

// migrations are applied in order, by runMigration, which also does what a
// migration's SQL cannot; PRAGMA user_version is the number applied.
// Never edit a migration that has shipped: append a new one.
var migrations = []string{
	// 1: the initial schema.
	`
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

-- AUTOINCREMENT on book, chunk and embedding: ids are never reused, so a
-- reader holding vectors in memory can tell stale rows from live ones, and
-- load only rows newer than the last it saw.
CREATE TABLE book (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	hash        TEXT NOT NULL UNIQUE,
	slug        TEXT NOT NULL UNIQUE,
	title       TEXT NOT NULL DEFAULT '',
	authors     TEXT NOT NULL DEFAULT '[]', -- JSON array
	author      TEXT NOT NULL DEFAULT '',   -- authors joined, for display and filters
	language    TEXT NOT NULL DEFAULT '',
	source_type TEXT NOT NULL,
	page_count  INTEGER NOT NULL DEFAULT 0,
	size        INTEGER NOT NULL DEFAULT 0,
	status      TEXT NOT NULL DEFAULT 'pending'
	            CHECK (status IN ('pending', 'parsed', 'ready', 'failed')),
	error       TEXT NOT NULL DEFAULT '',
	attempts    INTEGER NOT NULL DEFAULT 0,
	origin_path TEXT NOT NULL DEFAULT '', -- a path it was found at, for citations once it has none
	replaces    INTEGER REFERENCES book(id) ON DELETE SET NULL,
	added_at    INTEGER NOT NULL,
	ready_at    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX book_status ON book(status);
CREATE INDEX book_replaces ON book(replaces) WHERE replaces IS NOT NULL;

CREATE TABLE file (
	path        TEXT PRIMARY KEY,
	root        TEXT NOT NULL,
	hash        TEXT NOT NULL,
	size        INTEGER NOT NULL,
	mtime_ns    INTEGER NOT NULL,
	inode       INTEGER NOT NULL,
	verified_ns INTEGER NOT NULL
);
CREATE INDEX file_hash ON file(hash);

CREATE TABLE chapter (
	book_id    INTEGER NOT NULL REFERENCES book(id) ON DELETE CASCADE,
	idx        INTEGER NOT NULL,
	title      TEXT NOT NULL,
	anchor     TEXT NOT NULL DEFAULT '',
	page_start INTEGER NOT NULL DEFAULT 0,
	page_end   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (book_id, idx)
) WITHOUT ROWID;

CREATE TABLE section (
	book_id     INTEGER NOT NULL REFERENCES book(id) ON DELETE CASCADE,
	chapter_idx INTEGER NOT NULL,
	idx         INTEGER NOT NULL,
	title       TEXT NOT NULL,
	synthesized INTEGER NOT NULL DEFAULT 0,
	anchor      TEXT NOT NULL DEFAULT '',
	page_start  INTEGER NOT NULL DEFAULT 0,
	page_end    INTEGER NOT NULL DEFAULT 0,
	tokens      INTEGER NOT NULL DEFAULT 0,
	first_chunk INTEGER NOT NULL DEFAULT 0,
	chunk_count INTEGER NOT NULL DEFAULT 0,
	text        TEXT NOT NULL,
	PRIMARY KEY (book_id, chapter_idx, idx)
) WITHOUT ROWID;

CREATE TABLE chunk (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	book_id     INTEGER NOT NULL REFERENCES book(id) ON DELETE CASCADE,
	idx         INTEGER NOT NULL,
	chapter_idx INTEGER NOT NULL,
	section_idx INTEGER NOT NULL,
	heading     TEXT NOT NULL,
	context     TEXT NOT NULL DEFAULT '',
	text        TEXT NOT NULL,
	anchor      TEXT NOT NULL DEFAULT '',
	page_start  INTEGER NOT NULL DEFAULT 0,
	page_end    INTEGER NOT NULL DEFAULT 0,
	tokens      INTEGER NOT NULL DEFAULT 0,
	state       TEXT NOT NULL DEFAULT 'pending'
	            CHECK (state IN ('pending', 'contextualized', 'embedded')),
	UNIQUE (book_id, idx)
);
CREATE INDEX chunk_state ON chunk(book_id, state);

-- External-content FTS5 over the chunk table: the text is stored once.
CREATE VIRTUAL TABLE chunk_fts USING fts5(
	heading, context, text,
	content = 'chunk', content_rowid = 'id',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER chunk_fts_insert AFTER INSERT ON chunk BEGIN
	INSERT INTO chunk_fts(rowid, heading, context, text)
	VALUES (new.id, new.heading, new.context, new.text);
END;
CREATE TRIGGER chunk_fts_delete AFTER DELETE ON chunk BEGIN
	INSERT INTO chunk_fts(chunk_fts, rowid, heading, context, text)
	VALUES ('delete', old.id, old.heading, old.context, old.text);
END;
CREATE TRIGGER chunk_fts_update AFTER UPDATE OF heading, context, text ON chunk BEGIN
	INSERT INTO chunk_fts(chunk_fts, rowid, heading, context, text)
	VALUES ('delete', old.id, old.heading, old.context, old.text);
	INSERT INTO chunk_fts(rowid, heading, context, text)
	VALUES (new.id, new.heading, new.context, new.text);
END;

CREATE TABLE embedding (
	id       INTEGER PRIMARY KEY AUTOINCREMENT,
	chunk_id INTEGER NOT NULL UNIQUE REFERENCES chunk(id) ON DELETE CASCADE,
	vec      BLOB NOT NULL
);

CREATE TABLE exclusion (
	hash        TEXT PRIMARY KEY,
	title       TEXT NOT NULL DEFAULT '',
	path        TEXT NOT NULL DEFAULT '',
	excluded_at INTEGER NOT NULL
);

-- Problems with files that never became books (too large, unreadable),
-- kept until the file is fine again or gone.
CREATE TABLE file_issue (
	path    TEXT PRIMARY KEY,
	error   TEXT NOT NULL,
	seen_at INTEGER NOT NULL
);

CREATE TABLE run (
	id       INTEGER PRIMARY KEY,
	kind     TEXT NOT NULL,
	started  INTEGER NOT NULL,
	finished INTEGER NOT NULL DEFAULT 0,
	counters TEXT NOT NULL DEFAULT '{}',
	failures TEXT NOT NULL DEFAULT '[]'
);
`,
	// 2: per-term document counts, so that searches can leave out terms
	// that nearly every chunk contains.
	`CREATE VIRTUAL TABLE chunk_vocab USING fts5vocab(chunk_fts, 'row');`,
	// 3: Contextual Retrieval's section summaries (NULL: not written yet),
	// and the vectors of a model being switched to, kept apart until the
	// set is complete.
	`
ALTER TABLE section ADD COLUMN summary TEXT;
CREATE TABLE embedding_next (
	chunk_id INTEGER PRIMARY KEY REFERENCES chunk(id) ON DELETE CASCADE,
	vec      BLOB NOT NULL
);
`,
	// 4: the printed page names of paged books ("iv", "12"), for citations.
	`ALTER TABLE book ADD COLUMN page_labels TEXT NOT NULL DEFAULT '[]';`,
	// 5: the chunks a stage works on next, in book order, without a sort
	// of all the book's chunks for every batch.
	`
DROP INDEX chunk_state;
CREATE INDEX chunk_state ON chunk(book_id, state, idx);
`,
	// 6: how many of a sample of chunks hold each text feature, for search
	// to weigh features by rarity (FeatureStats).
	`
CREATE TABLE feature_stats (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	version INTEGER NOT NULL,
	chunks  INTEGER NOT NULL,
	docs    INTEGER NOT NULL,
	df      BLOB NOT NULL
);
`,
	// 7: what each library folder was when its files were last trusted
	// (device and inode of the folder), and the removals held back under
	// it for want of evidence.
	`
CREATE TABLE library_root (
	path       TEXT PRIMARY KEY,
	device     INTEGER NOT NULL DEFAULT 0,
	inode      INTEGER NOT NULL DEFAULT 0,
	held       TEXT NOT NULL DEFAULT '',
	held_files INTEGER NOT NULL DEFAULT 0,
	held_since INTEGER NOT NULL DEFAULT 0
);
`,
	// 8: each file's format as the scan judged it by its name, so that a
	// book made for a content later (an exclusion lifted) takes its type
	// from the row. Rows written before took theirs from the extensions
	// read at the time, which are these.
	`
ALTER TABLE file ADD COLUMN source_type TEXT NOT NULL DEFAULT '';
UPDATE file SET source_type = CASE
	WHEN path LIKE '%.pdf' THEN 'pdf'
	WHEN path LIKE '%.epub' THEN 'epub'
	WHEN path LIKE '%.md' OR path LIKE '%.markdown' OR path LIKE '%.mdown' OR path LIKE '%.mkd' THEN 'markdown'
	WHEN path LIKE '%.txt' OR path LIKE '%.text' THEN 'text'
	ELSE '' END;
`,
	// 9: the slug a deleted book had, so that the name `delete` took also
	// lifts its exclusion. Rows written before keep '' and are matched by
	// their title's slug instead.
	`ALTER TABLE exclusion ADD COLUMN slug TEXT NOT NULL DEFAULT '';`,
	// 10: the sections that ingest cut out of a long chapter were titled
	// "Section 2 — first words…", a number one above the index that
	// `section` and get_section take; they are titled by their first words
	// alone now. Their chunks' heading paths end with the title.
	`
UPDATE chunk SET heading = substr(heading, 1, length(heading) - length(s.title)) || substr(s.title, instr(s.title, ' — ') + 3)
FROM section s
WHERE s.book_id = chunk.book_id AND s.chapter_idx = chunk.chapter_idx AND s.idx = chunk.section_idx
	AND s.synthesized = 1 AND s.title GLOB 'Section [0-9]* — *'
	AND substr(chunk.heading, -length(s.title)) = s.title;
UPDATE section SET title = substr(title, instr(title, ' — ') + 3)
WHERE synthesized = 1 AND title GLOB 'Section [0-9]* — *';
`,
	// 11: the library's files that are no book grimoire reads, so that
	// status can count what was left out, by extension.
	`
CREATE TABLE unsupported_file (
	path TEXT PRIMARY KEY,
	ext  TEXT NOT NULL
);
`,
	// 12: what a catalogue (a calibre library's metadata.opf) says of a
	// book beyond its text: series and place in it, tags (a JSON array),
	// publisher, publication date, identifiers (a JSON object, scheme to
	// value), and the file it came from.
	`
ALTER TABLE book ADD COLUMN series TEXT NOT NULL DEFAULT '';
ALTER TABLE book ADD COLUMN series_index REAL NOT NULL DEFAULT 0;
ALTER TABLE book ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
ALTER TABLE book ADD COLUMN publisher TEXT NOT NULL DEFAULT '';
ALTER TABLE book ADD COLUMN published TEXT NOT NULL DEFAULT '';
ALTER TABLE book ADD COLUMN identifiers TEXT NOT NULL DEFAULT '{}';
ALTER TABLE book ADD COLUMN catalog_path TEXT NOT NULL DEFAULT '';
`,
	// 13: OCR of scanned pages. ocr_page holds each page's recognised text
	// as soon as it is read, so that an interrupted run never reads a page
	// twice, and a reindex lays the book out again without OCR. ocr_book
	// holds the books whose scans are still to be read: how many scanned
	// pages they have, and why they wait ('' while they are due).
	`
CREATE TABLE ocr_page (
	hash       TEXT NOT NULL,
	page       INTEGER NOT NULL, -- 1-based
	text       TEXT NOT NULL,
	words      INTEGER NOT NULL,
	confidence REAL NOT NULL,    -- mean word confidence, 0 to 100
	PRIMARY KEY (hash, page)
) WITHOUT ROWID;
CREATE TABLE ocr_book (
	hash    TEXT PRIMARY KEY,
	pages   INTEGER NOT NULL,
	waiting TEXT NOT NULL DEFAULT ''
);
CREATE TRIGGER book_ocr_delete AFTER DELETE ON book BEGIN
	DELETE FROM ocr_page WHERE hash = old.hash;
	DELETE FROM ocr_book WHERE hash = old.hash;
END;
`,
	// 14: the sections' keys and titles apart from their text. A section
	// row holds its whole text, and SQLite reads a whole row to compare
	// its key: counting a book's sections, or finding a hit's section
	// title, read the book's text (3 MB for War and Peace, for each book
	// a search cited).
	`CREATE INDEX section_title ON section(book_id, chapter_idx, idx, title);`,
	// 15: the chunk counts of the library's most common terms, which FTS5
	// counts by walking their whole posting lists (see
	// Writer.RefreshCommonTerms). Any change to the chunks' text empties
	// the table in its own transaction: a count it holds is always FTS5's.
	`
CREATE TABLE common_term (
	term TEXT PRIMARY KEY,
	docs INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER common_term_insert AFTER INSERT ON chunk BEGIN
	DELETE FROM common_term;
END;
CREATE TRIGGER common_term_delete AFTER DELETE ON chunk BEGIN
	DELETE FROM common_term;
END;
CREATE TRIGGER common_term_update AFTER UPDATE OF heading, context, text ON chunk BEGIN
	DELETE FROM common_term;
END;
`,
	// 16: full-text postings of grimoire's own, beside FTS5's, for
	// searches that score only what they read (postings.go): for each
	// term and ready book, the book's chunks that hold it. Rows are
	// grouped by shards of 8 books (shard = book_id >> 3) before the
	// term: a book's rows then go into its shard's small part of the
	// table, where a table ordered by term alone would have each new book
	// touch pages all over it; a search seeks its terms in each shard.
	// fts_book lists the books whose postings are written, with their
	// terms (a JSON array), by which they are dropped: an index on book_id
	// would cost more to keep than the postings themselves. What changes
	// a book's chunks, or takes it out of the ready ones, drops them.
	`
CREATE TABLE fts_posting (
	shard   INTEGER NOT NULL,
	term    TEXT NOT NULL,
	book_id INTEGER NOT NULL,
	n       INTEGER NOT NULL,
	data    BLOB NOT NULL,
	PRIMARY KEY (shard, term, book_id)
) WITHOUT ROWID;
CREATE TABLE fts_book (
	book_id INTEGER PRIMARY KEY,
	terms   TEXT NOT NULL
);
CREATE TRIGGER fts_book_delete AFTER DELETE ON book
WHEN EXISTS (SELECT 1 FROM fts_book WHERE book_id = old.id) BEGIN
	DELETE FROM fts_posting WHERE shard = old.id >> 3 AND book_id = old.id AND term IN
		(SELECT value FROM json_each((SELECT terms FROM fts_book WHERE book_id = old.id)));
	DELETE FROM fts_book WHERE book_id = old.id;
END;
CREATE TRIGGER fts_book_unready AFTER UPDATE OF status ON book
WHEN old.status = 'ready' AND new.status != 'ready' AND EXISTS (SELECT 1 FROM fts_book WHERE book_id = old.id) BEGIN
	DELETE FROM fts_posting WHERE shard = old.id >> 3 AND book_id = old.id AND term IN
		(SELECT value FROM json_each((SELECT terms FROM fts_book WHERE book_id = old.id)));
	DELETE FROM fts_book WHERE book_id = old.id;
END;
CREATE TRIGGER fts_chunk_delete AFTER DELETE ON chunk
WHEN EXISTS (SELECT 1 FROM fts_book WHERE book_id = old.book_id) BEGIN
	DELETE FROM fts_posting WHERE shard = old.book_id >> 3 AND book_id = old.book_id AND term IN
		(SELECT value FROM json_each((SELECT terms FROM fts_book WHERE book_id = old.book_id)));
	DELETE FROM fts_book WHERE book_id = old.book_id;
END;
CREATE TRIGGER fts_chunk_update AFTER UPDATE OF heading, context, text ON chunk
WHEN EXISTS (SELECT 1 FROM fts_book WHERE book_id = old.book_id) BEGIN
	DELETE FROM fts_posting WHERE shard = old.book_id >> 3 AND book_id = old.book_id AND term IN
		(SELECT value FROM json_each((SELECT terms FROM fts_book WHERE book_id = old.book_id)));
	DELETE FROM fts_book WHERE book_id = old.book_id;
END;
`,
	// 17: a book's chunks go into FTS5 by one statement, and into the
	// common words' counts by the writer (addCommonTerms), when it stores
	// the book (Tx.StoreParsed), not by a trigger per chunk. FTS5 writes its
	// pending terms out as a segment of their own at each statement that
	// opens a savepoint, as every insert that fires triggers does: a
	// segment per chunk, merged again and again, was most of the cost
	// of storing a book.
	`
DROP TRIGGER IF EXISTS chunk_fts_insert;
DROP TRIGGER IF EXISTS common_term_insert;
`,
	// 18: which ready books share text (sharedtext.go). Each book with
	// postings has a sketch of its text (book_sketch: its smallest
	// shingles, a JSON array, and how many it has), listed by value in
	// sketch_value, by which a new book finds the books it shares text
	// with (shared_text, both ways, each with the share of book_id's text
	// that other_id holds). They go with the book's postings: when its
	// fts_book row goes.
	`
CREATE TABLE book_sketch (
	book_id  INTEGER PRIMARY KEY,
	sketch   TEXT NOT NULL,
	shingles INTEGER NOT NULL
);
CREATE TABLE sketch_value (
	value   INTEGER NOT NULL,
	book_id INTEGER NOT NULL,
	PRIMARY KEY (value, book_id)
) WITHOUT ROWID;
CREATE TABLE shared_text (
	book_id  INTEGER NOT NULL,
	other_id INTEGER NOT NULL,
	share    REAL NOT NULL,
	PRIMARY KEY (book_id, other_id)
) WITHOUT ROWID;
CREATE TRIGGER fts_book_sketch_delete AFTER DELETE ON fts_book BEGIN
	DELETE FROM sketch_value WHERE book_id = old.book_id AND value IN
		(SELECT value FROM json_each((SELECT sketch FROM book_sketch WHERE book_id = old.book_id)));
	DELETE FROM book_sketch WHERE book_id = old.book_id;
	DELETE FROM shared_text WHERE other_id = old.book_id AND book_id IN
		(SELECT other_id FROM shared_text WHERE book_id = old.book_id);
	DELETE FROM shared_text WHERE book_id = old.book_id;
END;
`,
	// 19: the folders below a library folder that were mount points (of
	// another device than their parent) when their files were last
	// trusted: their removals need evidence as a library folder's do.
	// They are library_root rows with mount set, and never configured.
	`
ALTER TABLE library_root ADD COLUMN mount INTEGER NOT NULL DEFAULT 0;
`,
	// 20: each chunk's role (passage.Role: what it says, or a table of
	// contents, a cover, a page number pointing elsewhere) and copy
	// signature (passage.Signature: the top 16 bits of each of its
	// shingles, as little-endian uint16s), worked out when its book is
	// stored (classify.go). The signatures have a table of their own:
	// in the chunk's row they would leave fewer rows a page (9.5 MB
	// rather than 8.3 for the chunks of the corpus's text books). The
	// chunks an older grimoire stored have a NULL role and no signature
	// until a writer fills them in (Writer.Classify), listed by
	// chunk_unclassified meanwhile.
	`
ALTER TABLE chunk ADD COLUMN role INTEGER;
CREATE TABLE chunk_signature (
	chunk_id  INTEGER PRIMARY KEY REFERENCES chunk(id) ON DELETE CASCADE,
	signature BLOB NOT NULL
);
CREATE INDEX chunk_unclassified ON chunk(book_id) WHERE role IS NULL;
`,
	// 21: each section's text stored once, in its chunks where they give
	// it back (sectiontext.go), by the writer, book by book.
	sectionsInChunks,
	// 22: the vectors of embedding and embedding_next stored at the
	// precision search scans them at (internal/vec8): the scale as a
	// little-endian float32, then each component as a signed byte, dim+4
	// bytes in all, where they were 4×dim bytes of float32s. No SQL:
	// requantizeVectors converts them.
	``,
	// 23: each chunk's length in tokens (textLength), and the library's
	// count of chunks and of their tokens, which BM25 normalises by,
	// kept by triggers in the transaction that adds or removes chunks.
	// fillLengths measures the chunks stored before.
	`
ALTER TABLE chunk ADD COLUMN length INTEGER NOT NULL DEFAULT 0;
CREATE TABLE text_totals (
	id     INTEGER PRIMARY KEY CHECK (id = 1),
	chunks INTEGER NOT NULL,
	tokens INTEGER NOT NULL
);
INSERT INTO text_totals(id, chunks, tokens) SELECT 1, count(*), 0 FROM chunk;
CREATE TRIGGER text_totals_insert AFTER INSERT ON chunk BEGIN
	UPDATE text_totals SET chunks = chunks + 1, tokens = tokens + new.length;
END;
CREATE TRIGGER text_totals_delete AFTER DELETE ON chunk BEGIN
	UPDATE text_totals SET chunks = chunks - 1, tokens = tokens - old.length;
END;
CREATE TRIGGER text_totals_update AFTER UPDATE OF length ON chunk BEGIN
	UPDATE text_totals SET tokens = tokens + new.length - old.length;
END;
`,
	// 24: a count that every change to the books, their files, the
	// books waiting for OCR, the books that share text and the sub-word
	// statistics moves, so that a search can keep what it read of them
	// until it moves (see DB.Snapshot). Chunks and vectors have their
	// own: the sequences of their ids and vector_generation. And each
	// term's count of chunks in the postings, kept by triggers, so that
	// a search reads a common word's count, not its lists in every book.
	`
CREATE TABLE library_generation (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	n  INTEGER NOT NULL
);
INSERT INTO library_generation(id, n) VALUES (1, 0);
CREATE TABLE term_docs (
	term TEXT PRIMARY KEY,
	docs INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO term_docs(term, docs) SELECT term, sum(n) FROM fts_posting GROUP BY term;
CREATE TRIGGER term_docs_insert AFTER INSERT ON fts_posting BEGIN
	INSERT INTO term_docs(term, docs) VALUES (new.term, new.n)
		ON CONFLICT(term) DO UPDATE SET docs = docs + excluded.docs;
END;
CREATE TRIGGER term_docs_delete AFTER DELETE ON fts_posting BEGIN
	UPDATE term_docs SET docs = docs - old.n WHERE term = old.term;
	DELETE FROM term_docs WHERE term = old.term AND docs = 0;
END;
` + generationTriggers("book", "file", "ocr_book", "shared_text", "feature_stats"),
	// 25: what a Zotero library says of an item beyond a calibre
	// library's fields: the paths of the collections that hold it (a
	// JSON array), its item type, the publication it appeared in and its
	// abstract.
	`
ALTER TABLE book ADD COLUMN collections TEXT NOT NULL DEFAULT '[]';
ALTER TABLE book ADD COLUMN item_type TEXT NOT NULL DEFAULT '';
ALTER TABLE book ADD COLUMN publication TEXT NOT NULL DEFAULT '';
ALTER TABLE book ADD COLUMN abstract TEXT NOT NULL DEFAULT '';
`,
}

// generationTriggers moves library_generation on every insert, update and
// delete of the rows of tables.
func generationTriggers(tables ...string) string {
	var b strings.Builder
	for _, t := range tables {
		for _, op := range []string{"insert", "update", "delete"} {
			fmt.Fprintf(&b, "CREATE TRIGGER %s_generation_%s AFTER %s ON %s BEGIN\n\tUPDATE library_generation SET n = n + 1;\nEND;\n",
				t, op, strings.ToUpper(op), t)
		}
	}
	return b.String()
}

// sectionsInChunks stores each section's text once, in its chunks, where
// they give it back: a chunk's join to the section's text before it
// (overlap: its first bytes that repeat it; gap: the section's text
// between it and the chunk before), and where a section's text is
// (from_chunks: sectionInRow, sectionInChunks, with the row's text empty,
// or sectionNotLaidOut for the sections an older grimoire stored, until a
// writer lays them out, Writer.LayOutSections, listed by section_unlaid
// meanwhile).
const sectionsInChunks = `
ALTER TABLE chunk ADD COLUMN overlap INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunk ADD COLUMN gap TEXT NOT NULL DEFAULT '';
ALTER TABLE section ADD COLUMN from_chunks INTEGER NOT NULL DEFAULT 0;
CREATE INDEX section_unlaid ON section(book_id) WHERE from_chunks = 0;
`

// migrationCode returns the Go that migration n (counted from 1) runs
// after its SQL, in the same transaction; nil for most.
func migrationCode(n int) func(context.Context, execQuerier) error {
	switch n {
	case 22:
		return requantizeVectors
	case 23:
		return fillLengths
	}
	return nil
}

// SchemaVersion is the schema version this build reads and writes.
func SchemaVersion() int { return len(migrations) }

func userVersion(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int, error) {
	var v int
	if err := q.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// migrate brings the schema up to date.
func migrate(ctx context.Context, db *sql.DB) error {
	v, err := userVersion(ctx, db)
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("index schema version %d is newer than this grimoire understands (%d)", v, len(migrations))}).
			WithHint("upgrade grimoire, or point db_path at a new index")
	}
	if v == len(migrations) {
		return nil
	}
	// One transaction for them all: a reader sees the index as it was or
	// as it is now, never half way (a fresh index at version 10 would tell
	// it to run the sync that is creating it).
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate to version %d: %w", len(migrations), err)
	}
	defer tx.Rollback()
	for i := v; i < len(migrations); i++ {
		if err := runMigration(ctx, tx, i+1); err != nil {
			return fmt.Errorf("migrate to version %d: %w", i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
		return fmt.Errorf("migrate to version %d: %w", len(migrations), err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate to version %d: %w", len(migrations), err)
	}
	return nil
}

// runMigration applies migration n (counted from 1): its SQL, then its
// code.
func runMigration(ctx context.Context, q execQuerier, n int) error {
	if m := migrations[n-1]; m != "" {
		if _, err := q.ExecContext(ctx, m); err != nil {
			return err
		}
	}
	if code := migrationCode(n); code != nil {
		return code(ctx, q)
	}
	return nil
}
