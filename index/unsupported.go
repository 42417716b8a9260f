package index

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/grimoire-search/grimoire/library"
)

// RecordUnsupported makes the unsupported files the index remembers what a
// pass found: found maps the paths it saw that are no book to their
// extension, and lookedAt tells whether the pass looked where a path lies,
// so that a remembered path it did not find there is gone. Paths it did not
// look at keep their rows.
func (t *Tx) RecordUnsupported(ctx context.Context, found map[string]string, lookedAt func(path string) bool) error {
	rows, err := t.tx.QueryContext(ctx, `SELECT path, ext FROM unsupported_file`)
	if err != nil {
		return fmt.Errorf("record unsupported files: %w", err)
	}
	known := make(map[string]string)
	var drop []string
	for rows.Next() {
		var p, ext string
		if err := rows.Scan(&p, &ext); err != nil {
			rows.Close()
			return fmt.Errorf("record unsupported files: %w", err)
		}
		known[p] = ext
		if _, ok := found[p]; !ok && lookedAt(p) {
			drop = append(drop, p)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("record unsupported files: %w", err)
	}
	for _, p := range drop {
		if _, err := t.tx.ExecContext(ctx, `DELETE FROM unsupported_file WHERE path = ?`, p); err != nil {
			return fmt.Errorf("forget unsupported file %s: %w", p, err)
		}
	}
	for p, ext := range found {
		if old, ok := known[p]; ok && old == ext {
			continue
		}
		if _, err := t.tx.ExecContext(ctx, `
INSERT INTO unsupported_file(path, ext) VALUES (?, ?)
ON CONFLICT(path) DO UPDATE SET ext = excluded.ext`, p, ext); err != nil {
			return fmt.Errorf("record unsupported file %s: %w", p, err)
		}
	}
	return nil
}

// Unsupported counts the unsupported files by extension, most first, names
// without an extension after the others of their count.
func (d *DB) Unsupported(ctx context.Context) ([]library.Unsupported, error) {
	rows, err := d.db.QueryContext(ctx, `
SELECT ext, count(*) FROM unsupported_file GROUP BY ext ORDER BY count(*) DESC, ext = '', ext`)
	if err != nil {
		return nil, fmt.Errorf("count unsupported files: %w", err)
	}
	defer rows.Close()
	var out []library.Unsupported
	for rows.Next() {
		var u library.Unsupported
		if err := rows.Scan(&u.Extension, &u.Files); err != nil {
			return nil, fmt.Errorf("count unsupported files: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// OwnFile reports whether path is one of the files the index keeps beside
// its database: the database itself, its WAL and shared memory, the lock
// file, the requests socket, a rebuild's copies. They all start with the
// database's name.
func (d *DB) OwnFile(path string) bool {
	db := filepath.Clean(d.path)
	path = filepath.Clean(path)
	return path == db || strings.HasPrefix(path, db+"-") || strings.HasPrefix(path, db+".")
}
