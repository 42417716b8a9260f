package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/fault"
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
	// Requests is the local socket where the holder takes requests from
	// other grimoire commands (see package handoff); empty when it takes
	// none.
	Requests string `json:"requests,omitempty"`
}

// lockContent is what the lock file holds: the holder while a writer runs,
// the seal it left once it closed cleanly.
type lockContent struct {
	LockHolder
	Sealed *seal `json:"sealed,omitempty"`
}

// seal describes the database file, and its WAL if one was left, as a
// writer left them on a clean close. A writer that finds them unchanged
// knows that nothing else wrote to them since, and skips the full check.
type seal struct {
	Size     int64  `json:"size"`
	ModNS    int64  `json:"mtime_ns"`
	ID       string `json:"id,omitempty"`
	WALSize  int64  `json:"wal_size,omitempty"`
	WALModNS int64  `json:"wal_mtime_ns,omitempty"`
}

// sealOf describes the database file at path and its WAL as they are now.
func sealOf(path string) (seal, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return seal{}, false
	}
	s := seal{Size: fi.Size(), ModNS: fi.ModTime().UnixNano(), ID: statID(fi)}
	if wi, err := os.Stat(path + "-wal"); err == nil && wi.Size() > 0 {
		s.WALSize, s.WALModNS = wi.Size(), wi.ModTime().UnixNano()
	}
	return s, true
}

// fileLock is an advisory, exclusive lock on a file beside the database. The
// operating system releases it when the process dies, kill -9 included, so a
// crash never leaves the index locked.
type fileLock struct {
	f *os.File
	// id identifies the lock file, so that a writer can tell whether
	// another writer locked this very file or one that was since deleted.
	id string
	// prev is the seal the last writer left; nil after a crash, or when
	// the lock file was new.
	prev *seal
	// holder is this process, as the file names it; mu guards it and the
	// writes that follow a change to it (trouble from the watch loop, the
	// requests socket from its caller).
	mu     sync.Mutex
	holder LockHolder
}

func acquireLock(path, command string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, indexFileMode)
	if err != nil {
		return nil, fmt.Errorf("open writer lock %s: %w", path, err)
	}
	// It names the commands that run and what troubles them.
	keepFilePrivate(path)
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, lockedError(strings.TrimSuffix(path, ".lock"), readLockFile(path).LockHolder)
		}
		return nil, fmt.Errorf("take writer lock %s: %w", path, err)
	}
	host, _ := os.Hostname()
	l := &fileLock{f: f, id: fileID(f), prev: readLockFile(path).Sealed,
		holder: LockHolder{PID: os.Getpid(), Command: command, Host: host, Started: time.Now().UTC()}}
	l.write(lockContent{LockHolder: l.holder})
	return l, nil
}

// ReportTrouble tells readers (status) what the writer is failing at and
// when it retries; an empty trouble clears it. It goes to the lock file,
// not the database, because the trouble may be that the database cannot
// be written (a full disk).
func (w *Writer) ReportTrouble(trouble string, retryAt time.Time) error {
	w.lock.mu.Lock()
	defer w.lock.mu.Unlock()
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
	if err := w.lock.write(lockContent{LockHolder: *h}); err != nil {
		return fmt.Errorf("report to %s: %w", w.lock.f.Name(), err)
	}
	return nil
}

// AnnounceRequests names in the lock file the socket where this writer
// takes requests from other processes; "" withdraws it. A writer that
// another one's lock covers (a rebuild's) has no lock file of its own and
// cannot announce one.
func (w *Writer) AnnounceRequests(addr string) error {
	if w.lock == nil || w.lock.f == nil {
		return errors.New("this writer has no lock file of its own")
	}
	w.lock.mu.Lock()
	defer w.lock.mu.Unlock()
	w.lock.holder.Requests = addr
	if err := w.lock.write(lockContent{LockHolder: w.lock.holder}); err != nil {
		return fmt.Errorf("announce requests in %s: %w", w.lock.f.Name(), err)
	}
	return nil
}

// sealMatches reports whether the database at path, and its WAL, are as
// the seal in the lock file says the last writer left them.
func (l *fileLock) sealMatches(path string) bool {
	if l == nil || l.prev == nil {
		return false
	}
	now, ok := sealOf(path)
	return ok && now == *l.prev
}

// write replaces the lock file's content. It overwrites in place and then
// trims, so that on a full disk it needs no new space as long as the
// content fits the block the file already has.
func (l *fileLock) write(c lockContent) error {
	b, _ := json.Marshal(c)
	b = append(b, '\n')
	if _, err := l.f.WriteAt(b, 0); err != nil {
		return err
	}
	return l.f.Truncate(int64(len(b)))
}

// release unlocks, leaving the seal s in the file (nil: none). The holder
// is cleared first: a stale name in the file would mislead status.
func (l *fileLock) release(s *seal) {
	if l == nil || l.f == nil {
		return
	}
	if s != nil {
		l.write(lockContent{Sealed: s})
	} else {
		l.f.Truncate(0)
	}
	unlockFile(l.f)
	l.f.Close()
	l.f = nil
}

func readLockFile(path string) lockContent {
	var c lockContent
	b, err := os.ReadFile(path)
	if err == nil {
		json.Unmarshal(b, &c)
	}
	return c
}

// ReadLockHolder returns who holds (or last held) the writer lock of the
// index at dbPath, and whether the lock is held right now. It never takes the
// lock, so it cannot get in a writer's way. DB.Writer also finds a writer
// whose lock file was deleted.
func ReadLockHolder(dbPath string) (LockHolder, bool) {
	h := readLockFile(dbPath + ".lock").LockHolder
	if h.PID == 0 {
		return h, false
	}
	return h, processAlive(h.PID)
}

func lockedError(dbPath string, h LockHolder) error {
	who := "another grimoire process"
	if h.PID != 0 {
		who = fmt.Sprintf("%s (pid %d", h.Command, h.PID)
		if h.Host != "" {
			who += " on " + h.Host
		}
		who += fmt.Sprintf(", since %s)", h.Started.Local().Format("2006-01-02 15:04:05"))
	}
	return (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("index %s is being written by %s", dbPath, who)}).
		WithHint("only one writer runs at a time: wait for it or stop it; read-only commands (query, status, list, serve) work meanwhile")
}

var errLocked = errors.New("locked")
