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
func ProbeTokenChars(ctx context.Context, db *sql.DB, last rune) ([][2]rune, error) {
	// One token when a code point joins the letters around it, two when
	// it parts them.
	tx, err := probe(ctx, db, Tokenizer, func(yield func(rune) bool) {
		for r := rune(0); r <= last && yield(r); r++ {
		}
	})
	if err != nil {
		return nil, fmt.Errorf("probe tokenizer: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, sz FROM probe_docsize ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]rune
	for rows.Next() {
		var id int64
		var sz []byte
		if err := rows.Scan(&id, &sz); err != nil {
			return nil, err
		}
		if n, _ := Varint(sz); n != 1 {
			continue
		}
		r := rune(id)
		if k := len(out); k > 0 && (out[k-1][1] == r-1 || out[k-1][1] == 0xD7FF && r == 0xE000) {
			out[k-1][1] = r
		} else {
			out = append(out, [2]rune{r, r})
		}
	}
	return out, rows.Err()
}

// ProbeFolding asks FTS5's tokenizer (without stemming) what it makes of
// each token character alone between two letters, and returns the ones it
// changes, with what they become (0: dropped). For gentokens and the test
// that checks its table.
func ProbeFolding(ctx context.Context, db *sql.DB) ([][2]rune, error) {
	tx, err := probe(ctx, db, folding, func(yield func(rune) bool) {
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
	rows, err := tx.QueryContext(ctx, `SELECT doc, term FROM probe_terms`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][2]rune
	for rows.Next() {
		var doc int64
		var term string
		if err := rows.Scan(&doc, &term); err != nil {
			return nil, err
		}
		c := rune(doc)
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

// probe stores each code point that codes yields, between two letters
// ("x" and "y"), as a row of its own (rowid: the code point) in a new FTS5
// table "probe" of db tokenized by tokenizer, and returns the transaction
// that holds them, to read them in; its rollback takes the table away. Surrogates are left out: they are never
// in valid UTF-8.
func probe(ctx context.Context, db *sql.DB, tokenizer string, codes func(yield func(rune) bool)) (*sql.Tx, error) {
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `CREATE VIRTUAL TABLE probe USING fts5(w, tokenize = '`+tokenizer+`')`); err != nil {
		tx.Rollback()
		return nil, err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO probe(rowid, w) VALUES (?, ?)`)
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	defer ins.Close()
	for c := range codes {
		if c >= 0xD800 && c <= 0xDFFF {
			continue
		}
		if _, err = ins.ExecContext(ctx, c, "x"+string(c)+"y"); err != nil {
			break
		}
	}
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	return tx, nil
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
