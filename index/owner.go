package index

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/grimoire-search/grimoire/fault"
)

// The lock file alone cannot keep a second writer out once it is deleted:
// the next writer creates a new file and locks that. So each writer also
// records itself in the index, inside a write transaction (which SQLite
// serialises across processes). A newcomer refuses when the record names a
// live writer that locked some other lock file; and every write
// transaction checks that the record is still its own, so that a writer
// that was taken over stops instead of interleaving its writes with the
// newcomer's.

// writerRecord is the meta entry a writer keeps while it runs.
type writerRecord struct {
	LockHolder
	// Token is random per Writer: the record is "ours" only if it matches.
	Token string `json:"token"`
	// Lock identifies the lock file the writer locked.
	Lock string `json:"lock,omitempty"`
}

const writerKey = "writer"

// ErrWriterReplaced is matched by errors.Is when a write is refused because
// another writer took the index over from this one.
var ErrWriterReplaced = errors.New("another writer took over the index")

func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// claim records this writer in the index, or refuses when another live
// writer is recorded there.
func (w *Writer) claim(ctx context.Context, command string) error {
	host, _ := os.Hostname()
	mine := writerRecord{LockHolder: LockHolder{PID: os.Getpid(), Command: command, Host: host, Started: time.Now().UTC()}, Token: w.token, Lock: w.lockID}
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record the writer: %w", err)
	}
	defer tx.Rollback()
	rec, ok, err := readWriterRecord(ctx, tx)
	if err != nil {
		return err
	}
	if ok && rec.Token != w.token && otherWriterRuns(rec, w.lockID) {
		return lockedError(w.path, rec.LockHolder)
	}
	b, _ := json.Marshal(mine)
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, writerKey, string(b)); err != nil {
		return fmt.Errorf("record the writer: %w", err)
	}
	return tx.Commit()
}

// otherWriterRuns reports whether the recorded writer still runs beside a
// writer holding the lock file lockID. When it locked that same file, the
// lock being free proves it gone. Otherwise its lock file was deleted or
// replaced, and only its process can tell; a process on another host
// cannot be asked, and is taken over (it stops at its next write).
func otherWriterRuns(rec writerRecord, lockID string) bool {
	if rec.Lock == lockID {
		return false
	}
	host, _ := os.Hostname()
	return rec.Host == host && processAlive(rec.PID)
}

func readWriterRecord(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (writerRecord, bool, error) {
	var rec writerRecord
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, writerKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, fmt.Errorf("read the writer record: %w", err)
	}
	if json.Unmarshal([]byte(v), &rec) != nil {
		return rec, false, nil
	}
	return rec, true, nil
}

// stillOurs fails with ErrWriterReplaced when the writer record in the
// index is no longer this writer's.
func (w *Writer) stillOurs(ctx context.Context, tx *sql.Tx) error {
	rec, ok, err := readWriterRecord(ctx, tx)
	if err != nil {
		return err
	}
	if ok && rec.Token == w.token {
		return nil
	}
	who := "another writer"
	if ok {
		who = fmt.Sprintf("%s (pid %d)", rec.Command, rec.PID)
	}
	return (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("index %s was taken over by %s", w.path, who), Err: ErrWriterReplaced}).
		WithHint("this process stops writing: only one writer runs at a time (was the lock file deleted?)")
}

// disown removes this writer's record, if it is still its own.
func (w *Writer) disown(ctx context.Context) {
	w.db.ExecContext(ctx, `DELETE FROM meta WHERE key = ? AND json_extract(value, '$.token') = ?`, writerKey, w.token)
}

// Writer returns the process writing the index now, if any. It reads the
// lock file, and also finds a writer whose lock file was deleted or
// replaced, through the record the writer keeps in the index.
func (d *DB) Writer(ctx context.Context) (LockHolder, bool) {
	if h, running := ReadLockHolder(d.path); running {
		return h, true
	}
	rec, ok, err := readWriterRecord(ctx, d.db)
	if err != nil || !ok {
		return LockHolder{}, false
	}
	lockID := ""
	if f, err := os.Open(d.path + ".lock"); err == nil {
		lockID = fileID(f)
		f.Close()
	}
	if !otherWriterRuns(rec, lockID) {
		return LockHolder{}, false
	}
	return rec.LockHolder, true
}
