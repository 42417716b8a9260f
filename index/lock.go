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
}

// fileLock is an advisory, exclusive lock on a file beside the database. The
// operating system releases it when the process dies, kill -9 included, so a
// crash never leaves the index locked.
type fileLock struct {
	f *os.File
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
	info, _ := json.Marshal(LockHolder{PID: os.Getpid(), Command: command, Host: host, Started: time.Now().UTC()})
	if err := f.Truncate(0); err == nil {
		f.WriteAt(append(info, '\n'), 0)
	}
	return &fileLock{f: f}, nil
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
