// Package fulltext is the arithmetic of grimoire's full-text search, with
// no storage: how a text is cut into tokens and each token folded and
// stemmed into the term the index holds (EachToken, Term, Stems, Length),
// as FTS5's porter unicode61 tokenizer does it to the bit, and how a term
// scores in a chunk (BM25). The index's postings are written with it and
// searches read them with it; its tests hold it to FTS5 itself.
package fulltext

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// The index's own postings need the terms FTS5 makes of a chunk, term by
// term and column by column. FTS5 tells them only for a whole table, so
// grimoire cuts the text itself, with the tokenizer's own table of token
// characters, and folds and stems each token as the tokenizer does (Term,
// porter.go), with its table of foldings: both tables are in
// tokenchars.go, made by asking SQLite.

// isTokenChar reports whether FTS5's tokenizer keeps r inside a token.
func isTokenChar(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIITokenChar(byte(r))
	}
	i := sort.Search(len(tokenChars), func(i int) bool { return tokenChars[i][1] >= r })
	return i < len(tokenChars) && tokenChars[i][0] <= r
}

func isASCIITokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// EachToken calls fn with each token of text, in order, as FTS5's
// tokenizer cuts it (before folding and stemming).
func EachToken(text string, fn func(tok string)) {
	start := -1
	for i := 0; i < len(text); {
		c := text[i]
		var in bool
		n := 1
		if c < utf8.RuneSelf {
			in = isASCIITokenChar(c)
		} else {
			var r rune
			r, n = utf8.DecodeRuneInString(text[i:])
			in = isTokenChar(r)
		}
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			fn(text[start:i])
			start = -1
		}
		i += n
	}
	if start >= 0 {
		fn(text[start:])
	}
}

// Length is a chunk's length in tokens, its heading's, context's and
// text's together, as BM25 normalises by it.
func Length(heading, context, text string) int {
	n := 0
	for _, col := range [3]string{heading, context, text} {
		EachToken(col, func(string) { n++ })
	}
	return n
}

// ProbeTokenChars asks FTS5's tokenizer, in db (a database of its own),
// which code points up to last it keeps inside a token, and returns them
// as ranges. For gentokens and the test that checks its table.
//
// A code point between two letters makes one token when it joins them,
// two when it parts them. Code points are asked a block at a time, each
// between its own two letters, the pairs apart: a block all of one kind
// counts one or two tokens a code point, and only the blocks that mix
// them are asked again a code point at a time. Unicode's classes come in
// long runs, so most blocks are of one kind.
func ProbeTokenChars(ctx context.Context, db *sql.DB, last rune) ([][2]rune, error) {
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE probe USING fts5(w, tokenize = '`+Tokenizer+`')`); err != nil {
		return nil, fmt.Errorf("probe tokenizer: %w", err)
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO probe(rowid, w) VALUES (?, ?)`)
	if err != nil {
		return nil, err
	}
	defer ins.Close()
	size, err := tx.PrepareContext(ctx, `SELECT sz FROM probe_docsize WHERE id = ?`)
	if err != nil {
		return nil, err
	}
	defer size.Close()
	id := int64(0)
	tokens := func(codes []rune) (int, error) {
		id++
		if _, err := ins.ExecContext(ctx, id, pairs(codes)); err != nil {
			return 0, err
		}
		var sz []byte
		if err := size.QueryRowContext(ctx, id).Scan(&sz); err != nil {
			return 0, err
		}
		n, _ := Varint(sz)
		return int(n), nil
	}
	var out [][2]rune
	keep := func(r rune) {
		if k := len(out); k > 0 && (out[k-1][1] == r-1 || out[k-1][1] == 0xD7FF && r == 0xE000) {
			out[k-1][1] = r
		} else {
			out = append(out, [2]rune{r, r})
		}
	}
	codes := make([]rune, 0, probeBlock)
	for lo := rune(0); lo <= last; lo += probeBlock {
		codes = codes[:0]
		for c := lo; c < lo+probeBlock && c <= last; c++ {
			if c < 0xD800 || c > 0xDFFF {
				codes = append(codes, c)
			}
		}
		if len(codes) == 0 {
			continue
		}
		n, err := tokens(codes)
		if err != nil {
			return nil, fmt.Errorf("probe tokenizer: %w", err)
		}
		switch n {
		case len(codes):
			for _, c := range codes {
				keep(c)
			}
		case 2 * len(codes):
		default:
			for _, c := range codes {
				n, err := tokens([]rune{c})
				if err != nil {
					return nil, fmt.Errorf("probe tokenizer: %w", err)
				}
				if n == 1 {
					keep(c)
				}
			}
		}
	}
	return out, nil
}

// ProbeFolding asks FTS5's tokenizer (without stemming) what it makes of
// each token character alone between two letters, and returns the ones it
// changes, with what they become (0: dropped). For gentokens and the test
// that checks its table.
func ProbeFolding(ctx context.Context, db *sql.DB) ([][2]rune, error) {
	tx, docs, err := probe(ctx, db, folding, func(yield func(rune) bool) {
		for _, r := range tokenChars {
			for c := r[0]; c <= r[1]; c++ {
				if !yield(c) {
					return
				}
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("probe folding: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE temp.probe_terms USING fts5vocab(main, probe, 'instance')`); err != nil {
		return nil, fmt.Errorf("probe folding: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT doc, "offset", term FROM probe_terms`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]rune
	for rows.Next() {
		var doc, offset int64
		var term string
		if err := rows.Scan(&doc, &offset, &term); err != nil {
			return nil, err
		}
		if doc < 1 || doc > int64(len(docs)) || offset < 0 || offset >= int64(len(docs[doc-1])) {
			return nil, fmt.Errorf("probe folding: token %d of document %d, which holds %d", offset, doc, len(docs[max(0, min(doc, int64(len(docs)))-1)]))
		}
		c := docs[doc-1][offset]
		if len(term) < 2 || term[0] != 'x' || term[len(term)-1] != 'y' {
			return nil, fmt.Errorf("probe folding: %U became %q", c, term)
		}
		mid := []rune(term[1 : len(term)-1])
		switch {
		case len(mid) == 0:
			out = append(out, [2]rune{c, 0})
		case len(mid) == 1 && mid[0] != c:
			out = append(out, [2]rune{c, mid[0]})
		case len(mid) > 1:
			return nil, fmt.Errorf("probe folding: %U became %q", c, string(mid))
		}
	}
	slices.SortFunc(out, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	return out, rows.Err()
}

// probe puts codes in a table of FTS5 documents made with tokenizer, each
// code point between two letters of its own, the pairs apart, a block of
// them a document; it returns the transaction the table lives in, and
// each document's code points, in order (rowid n holds docs[n-1]).
func probe(ctx context.Context, db *sql.DB, tokenizer string, codes func(yield func(rune) bool)) (*sql.Tx, [][]rune, error) {
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	if _, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE probe USING fts5(w, tokenize = '`+tokenizer+`')`); err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO probe(rowid, w) VALUES (?, ?)`)
	if err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	defer ins.Close()
	var docs [][]rune
	var block []rune
	flush := func() error {
		if len(block) == 0 {
			return nil
		}
		docs = append(docs, block)
		_, err := ins.ExecContext(ctx, len(docs), pairs(block))
		block = nil
		return err
	}
	for c := range codes {
		if c >= 0xD800 && c <= 0xDFFF {
			continue
		}
		if block = append(block, c); len(block) == probeBlock {
			if err = flush(); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = flush()
	}
	if err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	return tx, docs, nil
}

// probeBlock is how many code points a probe's document holds.
const probeBlock = 64

// pairs is the code points each between two letters, x and y, the pairs
// apart.
func pairs(codes []rune) string {
	var b strings.Builder
	for i, c := range codes {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('x')
		b.WriteRune(c)
		b.WriteByte('y')
	}
	return b.String()
}

// Varint decodes one of SQLite's variable-length integers (big-endian,
// seven bits a byte, the ninth byte whole), which FTS5's records are made
// of, and returns the rest of b. A truncated one ends the record.
func Varint(b []byte) (uint64, []byte) {
	var v uint64
	for i := 0; i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), b[i+1:]
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, b[i+1:]
		}
	}
	return v, nil
}
