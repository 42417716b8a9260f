package index

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"unicode/utf8"
)

// The full-text index's own postings (postings.go) need the terms FTS5
// makes of a chunk, term by term and column by column. FTS5 tells them
// only for a whole table, so grimoire cuts the text itself, with the
// tokenizer's own table of token characters (tokenchars.go, made by
// asking SQLite), and turns each token into its term with the stemmer,
// which runs FTS5's tokenizer on the token alone: folding and stemming
// depend on the token only.

// isTokenChar reports whether FTS5's tokenizer keeps r inside a token.
func isTokenChar(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	i := sort.Search(len(tokenChars), func(i int) bool { return tokenChars[i][1] >= r })
	return i < len(tokenChars) && tokenChars[i][0] <= r
}

// eachToken calls fn with each token of text, in order, as FTS5's
// tokenizer cuts it (before folding and stemming).
func eachToken(text string, fn func(tok string)) {
	start := -1
	for i := 0; i < len(text); {
		c := text[i]
		var in bool
		n := 1
		if c < utf8.RuneSelf {
			in = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
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

// ProbeTokenChars asks FTS5's tokenizer, in db (a database of its own),
// which code points up to last it keeps inside a token, and returns them
// as ranges. For gentokens and the test that checks its table.
func ProbeTokenChars(ctx context.Context, db *sql.DB, last rune) ([][2]rune, error) {
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE probe USING fts5(w, tokenize = '`+ftsTokenizer+`')`); err != nil {
		return nil, fmt.Errorf("probe tokenizer: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO probe(rowid, w) VALUES (?, ?)`)
	if err != nil {
		return nil, err
	}
	for r := rune(0); r <= last; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // not a character: never in valid UTF-8
		}
		// One token when r joins the letters around it, two when it
		// parts them.
		if _, err := ins.ExecContext(ctx, r, "x"+string(r)+"y"); err != nil {
			return nil, fmt.Errorf("probe tokenizer: %w", err)
		}
	}
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
		if n, _ := ftsVarint(sz); n != 1 {
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
