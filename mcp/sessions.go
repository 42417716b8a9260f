package mcp

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// sessionStore keeps the sessions that initialize opens. mcp-go holds on to
// each one (about 12 KB) until the client sends DELETE, which many clients
// never do; the store forgets those left idle, refuses new ones past a
// cap, and has mcp-go free what it forgets. It is mcp-go's
// SessionIdManager, so an id the store does not know gets 404, which tells
// the client to initialize again.
type sessionStore struct {
	idle time.Duration
	max  int
	log  *slog.Logger
	// free releases mcp-go's state for a session the store dropped; it is
	// called without the lock held.
	free func(id string)

	mu   sync.Mutex
	live map[string]*liveSession
}

type liveSession struct {
	// busy counts the requests under way, open event streams included.
	busy int
	// lastSeen is when the last request ended (or the session opened).
	lastSeen time.Time
}

func newSessionStore(idle time.Duration, max int, log *slog.Logger) *sessionStore {
	return &sessionStore{idle: idle, max: max, log: log, live: map[string]*liveSession{}, free: func(string) {}}
}

// expired says whether a session is idle past its time at now.
func (st *sessionStore) expired(s *liveSession, now time.Time) bool {
	return s.busy == 0 && now.Sub(s.lastSeen) >= st.idle
}

// reserve opens a session for an initialize under way, busy until end or
// drop. When the store is full it first forgets the expired sessions; if
// still full it says how long until the next idle one expires.
func (st *sessionStore) reserve() (id string, retry time.Duration, ok bool) {
	now := time.Now()
	st.mu.Lock()
	var gone []string
	if len(st.live) >= st.max {
		gone = st.expireLocked(now)
	}
	if len(st.live) >= st.max {
		retry = st.idle
		for _, s := range st.live {
			if s.busy == 0 {
				retry = min(retry, s.lastSeen.Add(st.idle).Sub(now))
			}
		}
		st.mu.Unlock()
		st.release(gone)
		return "", max(retry.Round(time.Second), time.Second), false
	}
	id = rand.Text()
	st.live[id] = &liveSession{busy: 1, lastSeen: now}
	st.mu.Unlock()
	st.release(gone)
	return id, 0, true
}

// begin marks a request of session id under way; false when the store does
// not know the session, or it has just expired.
func (st *sessionStore) begin(id string) bool {
	now := time.Now()
	st.mu.Lock()
	s, ok := st.live[id]
	if ok && st.expired(s, now) {
		delete(st.live, id)
		st.mu.Unlock()
		st.release([]string{id})
		return false
	}
	if ok {
		s.busy++
	}
	st.mu.Unlock()
	return ok
}

// end marks a request of session id done; the session may be gone by then.
func (st *sessionStore) end(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if s, ok := st.live[id]; ok {
		s.busy--
		s.lastSeen = time.Now()
	}
}

// drop forgets session id at once.
func (st *sessionStore) drop(id string) {
	st.mu.Lock()
	_, ok := st.live[id]
	delete(st.live, id)
	st.mu.Unlock()
	if ok {
		st.release([]string{id})
	}
}

func (st *sessionStore) expireLocked(now time.Time) []string {
	var gone []string
	for id, s := range st.live {
		if st.expired(s, now) {
			delete(st.live, id)
			gone = append(gone, id)
		}
	}
	return gone
}

func (st *sessionStore) release(ids []string) {
	for _, id := range ids {
		st.free(id)
	}
	if len(ids) > 0 {
		st.log.Info("idle HTTP sessions ended", "count", len(ids))
	}
}

func (st *sessionStore) len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.live)
}

// run forgets idle sessions until ctx is done, checking a few times per
// idle period so that none outlives it by much.
func (st *sessionStore) run(ctx context.Context) {
	tick := time.NewTicker(min(max(st.idle/4, 10*time.Millisecond), time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			st.mu.Lock()
			gone := st.expireLocked(now)
			st.mu.Unlock()
			st.release(gone)
		}
	}
}

var errUnknownSession = errors.New("unknown or expired session")

// Generate opens a session that no initialize reserved; the guard reserves
// one for every initialize, so this is only a fallback.
func (st *sessionStore) Generate() string {
	id := rand.Text()
	st.mu.Lock()
	st.live[id] = &liveSession{lastSeen: time.Now()}
	st.mu.Unlock()
	return id
}

// Validate accepts the sessions the store knows.
func (st *sessionStore) Validate(id string) (isTerminated bool, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.live[id]; !ok {
		return false, errUnknownSession
	}
	return false, nil
}

// Terminate forgets a session its client ended with DELETE; mcp-go frees
// its own state itself.
func (st *sessionStore) Terminate(id string) (isNotAllowed bool, err error) {
	st.mu.Lock()
	delete(st.live, id)
	st.mu.Unlock()
	return false, nil
}

// reservedSession is the context key of the session id reserved for an
// initialize request.
type reservedSession struct{}

// sessionResolver gives mcp-go the store, and for an initialize the id the
// guard reserved, so the cap holds however many clients initialize at once.
type sessionResolver struct{ st *sessionStore }

func (r sessionResolver) ResolveSessionIdManager(req *http.Request) server.SessionIdManager {
	if req != nil {
		if id, ok := req.Context().Value(reservedSession{}).(string); ok {
			return reservedID{r.st, id}
		}
	}
	return r.st
}

type reservedID struct {
	*sessionStore
	id string
}

func (r reservedID) Generate() string { return r.id }
