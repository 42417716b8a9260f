package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/grimoire-search/grimoire/library"
)

// A section's text is stored once, in its chunks, when they give it back
// byte for byte: each chunk records how it joins the section's text
// before it (join), and the section row keeps no text (sectionInChunks).
// Chunks repeat some of their neighbour's text (the overlap), may skip
// the space between two blocks (the gap), and lose the whitespace between
// the sentences they were cut at: a section whose chunks cannot give its
// text back keeps it in section.text. The writer tells which by rebuilding
// the text, never by the chunker's rules.

// Where a section's text is (section.from_chunks).
const (
	// sectionNotLaidOut is a section an older grimoire stored, its text
	// in its row until a writer lays it out (Writer.LayOutSections).
	sectionNotLaidOut = 0
	sectionInChunks   = 1
	sectionInRow      = 2
)

// whereText is the from_chunks of a section laid out as inChunks says.
func whereText(inChunks bool) int {
	if inChunks {
		return sectionInChunks
	}
	return sectionInRow
}

// join is how a chunk's text goes on from its section's text before it:
// the section's text between the chunk before (or the section's start)
// and this one, then the chunk's text less its first overlap bytes, which
// repeat the end of the text so far.
type join struct {
	overlap int
	gap     string
}

// errBadJoin is a section whose chunks, as stored, cannot give its text
// back: a sign of damage.
var errBadJoin = errors.New("the chunks do not join into the section's text")

// sectionBuilder puts a section's text back together, chunk by chunk.
type sectionBuilder struct {
	b strings.Builder
}

// add appends a chunk's text. A join that does not fit the text (stored
// values out of range, or an overlap that repeats other bytes) is an
// error: the text would come back wrong.
func (s *sectionBuilder) add(text string, j join) error {
	s.b.WriteString(j.gap)
	if j.overlap < 0 || j.overlap > len(text) || !strings.HasSuffix(s.b.String(), text[:j.overlap]) {
		return fmt.Errorf("%w: an overlap of %d bytes does not repeat the text before it", errBadJoin, j.overlap)
	}
	s.b.WriteString(text[j.overlap:])
	return nil
}

func (s *sectionBuilder) String() string { return s.b.String() }

// joinChunks is a section's text rebuilt from its chunks' texts and joins,
// in order.
func joinChunks(texts []string, joins []join) (string, error) {
	if len(texts) != len(joins) {
		return "", fmt.Errorf("%d chunks and %d joins", len(texts), len(joins))
	}
	var s sectionBuilder
	for i, t := range texts {
		if err := s.add(t, joins[i]); err != nil {
			return "", err
		}
	}
	return s.String(), nil
}

// sectionJoins works out the joins by which chunks, in order, give back
// text; it reports false when they cannot. Each chunk is taken where it
// is first found past the start of the one before, and the result is
// rebuilt and compared: a chunk whose whole text comes earlier too (a
// text that repeats itself for a chunk's length) may be taken there, and
// then its section keeps its text.
func sectionJoins(text string, chunks []string) ([]join, bool) {
	joins := make([]join, len(chunks))
	end, from := 0, 0 // the end of the text rebuilt so far; where to look
	for i, k := range chunks {
		at := strings.Index(text[from:], k)
		if at < 0 {
			return nil, false
		}
		at += from
		if at > end {
			joins[i].gap = text[end:at]
		} else {
			joins[i].overlap = end - at
		}
		end = at + len(k)
		from = min(at+1, len(text))
	}
	got, err := joinChunks(chunks, joins)
	if err != nil || got != text {
		return nil, false
	}
	return joins, true
}

// sectionText rebuilds, by one query over its chunks, the text of the
// section of book id whose chunks are first to first+count-1.
func sectionText(ctx context.Context, q querier, id int64, first, count int) (string, error) {
	rows, err := q.QueryContext(ctx, `
SELECT text, overlap, gap FROM chunk WHERE book_id = ? AND idx >= ? AND idx < ? ORDER BY idx`, id, first, first+count)
	if err != nil {
		return "", fmt.Errorf("text of book %d from chunk %d: %w", id, first, err)
	}
	defer rows.Close()
	var s sectionBuilder
	n := 0
	for rows.Next() {
		var text string
		var j join
		if err := rows.Scan(&text, &j.overlap, &j.gap); err != nil {
			return "", fmt.Errorf("text of book %d from chunk %d: %w", id, first, err)
		}
		if err := s.add(text, j); err != nil {
			return "", fmt.Errorf("text of book %d from chunk %d: chunk %d: %w", id, first, first+n, err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("text of book %d from chunk %d: %w", id, first, err)
	}
	if n != count {
		return "", fmt.Errorf("text of book %d from chunk %d: %w: %d of its %d chunks are stored", id, first, errBadJoin, n, count)
	}
	return s.String(), nil
}

// storedSection is the part of a section row that gives its text.
type storedSection struct {
	text        string
	fromChunks  bool
	first, size int
}

// read returns the section's text: the row's, or its chunks'.
func (s storedSection) read(ctx context.Context, q querier, id int64) (string, error) {
	if !s.fromChunks {
		return s.text, nil
	}
	return sectionText(ctx, q, id, s.first, s.size)
}

// layOutSections decides, for a book's sections and chunks as they are to
// be stored, which sections their chunks give back: it returns the text
// each section row keeps ("" for those) and whether it comes from its
// chunks, by section, and each chunk's join. A chunk serves one section
// at most.
func layOutSections(sections []library.Section, chunks []library.Chunk) (texts []string, fromChunks []bool, joins []join) {
	byIndex := make(map[int]int, len(chunks))
	for i, k := range chunks {
		byIndex[k.Index] = i
	}
	texts = make([]string, len(sections))
	fromChunks = make([]bool, len(sections))
	joins = make([]join, len(chunks))
	taken := make([]bool, len(chunks))
	for si, s := range sections {
		texts[si] = s.Text
		at, ok := sectionChunks(s, byIndex, taken)
		if !ok {
			continue
		}
		ks := make([]string, len(at))
		for i, p := range at {
			ks[i] = chunks[p].Text
		}
		js, ok := sectionJoins(s.Text, ks)
		if !ok {
			continue
		}
		for i, p := range at {
			joins[p], taken[p] = js[i], true
		}
		texts[si], fromChunks[si] = "", true
	}
	return texts, fromChunks, joins
}

// sectionChunks returns the positions in the book's chunks of section s's
// chunks, in order, and false when one is missing or serves another
// section.
func sectionChunks(s library.Section, byIndex map[int]int, taken []bool) ([]int, bool) {
	if s.ChunkCount < 0 || s.ChunkCount > len(taken) {
		return nil, false
	}
	at := make([]int, s.ChunkCount)
	for i := range at {
		p, ok := byIndex[s.FirstChunk+i]
		if !ok || taken[p] {
			return nil, false
		}
		at[i] = p
	}
	return at, true
}

// LayOutSections stores the texts of the sections an older grimoire
// stored in their chunks, where they give them back, one book a
// transaction, until none is left or ctx ends: a writer stopped part way
// (even by kill -9) leaves whole books laid out, and the next one goes on.
// Until then a section's text is read from its row. It returns how many
// books it laid out.
func (w *Writer) LayOutSections(ctx context.Context) (int, error) {
	return w.bookByBook(ctx, func(t *Tx) (bool, error) {
		var id int64
		err := t.tx.QueryRowContext(ctx, `SELECT book_id FROM section INDEXED BY section_unlaid WHERE from_chunks = 0 LIMIT 1`).Scan(&id)
		if err == sql.ErrNoRows {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("sections not laid out: %w", err)
		}
		return true, t.layOutBook(ctx, id)
	})
}

// layOutBook lays out the sections of book id that are not yet.
func (t *Tx) layOutBook(ctx context.Context, id int64) error {
	secs, chunks, err := storedBookText(ctx, t.tx, id)
	if err != nil {
		return err
	}
	_, inChunks, joins := layOutSections(secs, chunks)
	for i, s := range secs {
		q := `UPDATE section SET from_chunks = ? WHERE book_id = ? AND chapter_idx = ? AND idx = ?`
		if inChunks[i] {
			q = `UPDATE section SET text = '', from_chunks = ? WHERE book_id = ? AND chapter_idx = ? AND idx = ?`
		}
		if _, err := t.tx.ExecContext(ctx, q, whereText(inChunks[i]), id, s.ChapterIndex, s.Index); err != nil {
			return fmt.Errorf("section %d.%d of book %d: %w", s.ChapterIndex, s.Index, id, err)
		}
	}
	for i, k := range chunks {
		if joins[i] == (join{}) {
			continue // the column's default
		}
		if _, err := t.tx.ExecContext(ctx, `UPDATE chunk SET overlap = ?, gap = ? WHERE id = ?`, joins[i].overlap, joins[i].gap, k.ID); err != nil {
			return fmt.Errorf("chunk %d of book %d: %w", k.Index, id, err)
		}
	}
	return nil
}

// storedBookText reads the sections of book id that hold their text, and
// the book's chunks' texts.
func storedBookText(ctx context.Context, tx querier, id int64) ([]library.Section, []library.Chunk, error) {
	var secs []library.Section
	err := readAll(ctx, tx, `SELECT chapter_idx, idx, first_chunk, chunk_count, text FROM section WHERE book_id = ? AND from_chunks = 0`, func(r *sql.Rows) error {
		var s library.Section
		if err := r.Scan(&s.ChapterIndex, &s.Index, &s.FirstChunk, &s.ChunkCount, &s.Text); err != nil {
			return err
		}
		secs = append(secs, s)
		return nil
	}, id)
	if err != nil {
		return nil, nil, fmt.Errorf("sections of book %d: %w", id, err)
	}
	var chunks []library.Chunk
	err = readAll(ctx, tx, `SELECT id, idx, text FROM chunk WHERE book_id = ? ORDER BY idx`, func(r *sql.Rows) error {
		k := library.Chunk{BookID: id}
		if err := r.Scan(&k.ID, &k.Index, &k.Text); err != nil {
			return err
		}
		chunks = append(chunks, k)
		return nil
	}, id)
	if err != nil {
		return nil, nil, fmt.Errorf("chunks of book %d: %w", id, err)
	}
	return secs, chunks, nil
}

// checkSections checks that each section whose text is its chunks' gets
// it back from them, and holds no text of its own.
func (d *DB) checkSections(ctx context.Context) error {
	type section struct {
		book           int64
		chapter, index int
		first, size    int
		holdsText      bool
	}
	var sections []section
	err := readAll(ctx, d.db, `
SELECT book_id, chapter_idx, idx, first_chunk, chunk_count, text != '' FROM section WHERE from_chunks = 1`, func(r *sql.Rows) error {
		var s section
		err := r.Scan(&s.book, &s.chapter, &s.index, &s.first, &s.size, &s.holdsText)
		sections = append(sections, s)
		return err
	})
	if err != nil {
		return fmt.Errorf("check section texts: %w", err)
	}
	bad := 0
	var first error
	for _, s := range sections {
		err := errors.New("it holds a text of its own besides")
		if !s.holdsText {
			_, err = sectionText(ctx, d.db, s.book, s.first, s.size)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if bad++; first == nil {
				first = fmt.Errorf("section %d.%d of book %d: %w", s.chapter, s.index, s.book, err)
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("check section texts: %d sections do not get their text back from their chunks; the first: %w", bad, first)
	}
	return nil
}
