package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/grimoire-search/grimoire/fault"
	"modernc.org/sqlite"
)

// SQLite's primary result codes that say something about the file itself.
const (
	sqliteReadOnly = 8
	sqliteCantOpen = 14
	sqliteCorrupt  = 11
	sqliteNotADB   = 26
)

// sqliteCode returns the primary result code of the SQLite error in err's
// chain, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// isDamage reports whether err is SQLite saying the file is corrupt or is
// no database at all.
func isDamage(err error) bool {
	c := sqliteCode(err)
	return c == sqliteCorrupt || c == sqliteNotADB
}

// RebuildHint is what to do about a damaged index.
const RebuildHint = "run `grimoire rebuild`: it keeps the damaged file beside the index, builds the index again from the library, and reuses the contexts and vectors it can still read"

func damagedError(path string, err error) *fault.Error {
	return (&fault.Error{Code: fault.Damaged, Msg: "index " + path + " is damaged", Err: err}).WithHints(RebuildHint, "tell the user to run `grimoire rebuild`: it builds the index again and keeps what it can")
}

// ExplainDamage returns err as a fault.Damaged error naming the index at path
// when SQLite reported corruption anywhere in its chain, so that every
// command and tool that meets a damaged page says the same thing. Other
// errors are returned unchanged.
func ExplainDamage(err error, path string) error {
	if err == nil || !isDamage(err) {
		return err
	}
	var e *fault.Error
	if errors.As(err, &e) && e.Code == fault.Damaged {
		return err
	}
	return damagedError(path, err)
}

// ping runs the first query on a connection, which is where SQLite reads
// the file's header and schema, and so where a file that cannot be opened
// or is no database shows; the error says which.
func ping(ctx context.Context, db *sql.DB, path string) error {
	var n int
	err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&n)
	if err == nil {
		return nil
	}
	if isDamage(err) {
		return damagedError(path, err)
	}
	return fmt.Errorf("open index %s: %w", path, err)
}

// quickCheck runs SQLite's quick_check, which reads every page of every
// table and index and checks their structure (not that indexes match
// their tables). At 100,000 chunks it takes 3 to 6 s, so writers run it
// only on a file they did not close themselves (see seal).
func quickCheck(ctx context.Context, db *sql.DB, path string) error {
	failed := func(err error) error {
		if isDamage(err) {
			return damagedError(path, fmt.Errorf("quick_check: %w", err))
		}
		return fmt.Errorf("check index %s: %w", path, err)
	}
	rows, err := db.QueryContext(ctx, `PRAGMA quick_check(20)`)
	if err != nil {
		return failed(err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return failed(err)
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		return failed(err)
	}
	if len(problems) > 0 {
		if len(problems) > 3 {
			problems = append(problems[:3], "…")
		}
		return damagedError(path, errors.New("quick_check: "+strings.Join(problems, "; ")))
	}
	return nil
}
