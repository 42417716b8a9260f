package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// LockHolder describes the process that holds the writer lock. It is written
// into the lock file so that a second writer can say who is in the way.
type LockHolder struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Host    string    `json:"host,omitempty"`
	Started time.Time `json:"started"`
	// Trouble is what the holder is failing at and retrying (see
	// Writer.ReportTrouble); empty while all is well.
	Trouble      string    `json:"trouble,omitempty"`
	TroubleSince time.Time `json:"trouble_since,omitzero"`
	RetryAt      time.Time `json:"retry_at,omitzero"`
}

// fileLock is an advisory, exclusive lock on a file beside the database. The
// operating system releases it when the process dies, kill -9 included, so a
// crash never leaves the index locked.
type fileLock struct {
	f      *os.File
	holder LockHolder
}

func acquireLock(path, command string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open writer lock %s: %w", path, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, lockedError(path)
		}
		return nil, fmt.Errorf("take writer lock %s: %w", path, err)
	}
	host, _ := os.Hostname()
	l := &fileLock{f: f, holder: LockHolder{PID: os.Getpid(), Command: command, Host: host, Started: time.Now().UTC()}}
	if err := f.Truncate(0); err == nil {
		l.write()
	}
	return l, nil
}

// write stores the holder record in the lock file. It overwrites the
// file in place and then trims it, so that on a full disk it needs no new
// space as long as the record fits the block the file already has.
func (l *fileLock) write() error {
	info, _ := json.Marshal(l.holder)
	info = append(info, '\n')
	if _, err := l.f.WriteAt(info, 0); err != nil {
		return err
	}
	return l.f.Truncate(int64(len(info)))
}

// ReportTrouble tells readers (status) what the writer is failing at and
// when it retries; an empty trouble clears it. It goes to the lock file,
// not the database, because the trouble may be that the database cannot
// be written (a full disk).
func (w *Writer) ReportTrouble(trouble string, retryAt time.Time) error {
	h := &w.lock.holder
	switch {
	case trouble == "":
		h.TroubleSince, h.RetryAt = time.Time{}, time.Time{}
	case h.Trouble == "":
		h.TroubleSince = time.Now().UTC()
	}
	h.Trouble = trouble
	if trouble != "" {
		h.RetryAt = retryAt.UTC()
	}
	if err := w.lock.write(); err != nil {
		return fmt.Errorf("report to %s: %w", w.lock.f.Name(), err)
	}
	return nil
}

func (l *fileLock) release() {
	if l == nil || l.f == nil {
		return
	}
	// Clear the holder first: a stale name in the file would mislead status.
	l.f.Truncate(0)
	unlockFile(l.f)
	l.f.Close()
	l.f = nil
}

// ReadLockHolder returns who holds (or last held) the writer lock of the
// index at dbPath, and whether the lock is held right now. It never takes the
// lock, so it cannot get in a writer's way.
func ReadLockHolder(dbPath string) (LockHolder, bool) {
	var h LockHolder
	b, err := os.ReadFile(dbPath + ".lock")
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return h, false
	}
	if json.Unmarshal(b, &h) != nil || h.PID == 0 {
		return h, false
	}
	return h, processAlive(h.PID)
}

func lockedError(lockPath string) error {
	dbPath := strings.TrimSuffix(lockPath, ".lock")
	h, _ := ReadLockHolder(dbPath)
	who := "another grimoire process"
	if h.PID != 0 {
		who = fmt.Sprintf("%s (pid %d", h.Command, h.PID)
		if h.Host != "" {
			who += " on " + h.Host
		}
		who += fmt.Sprintf(", since %s)", h.Started.Local().Format("2006-01-02 15:04:05"))
	}
	return (&Error{Code: Conflict, Msg: fmt.Sprintf("index %s is being written by %s", dbPath, who)}).
		WithHint("only one writer runs at a time: wait for it or stop it; read-only commands (query, status, list, serve) work meanwhile")
}

var errLocked = errors.New("locked")
