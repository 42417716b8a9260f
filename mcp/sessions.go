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
// never do; the store forgets those left idle, keeps their number under a
// cap, and has mcp-go free what it forgets. It is mcp-go's
// SessionIdManager, so an id the store does not know gets 404, which tells
// the client to initialize again. It also counts the event streams, which
// hold a connection each for as long as they are open.
type sessionStore struct {
	// idle ends a session that sent requests, grace one that did not.
	idle, grace time.Duration
	max         int
	maxStreams  int
	// streamIdle bounds how long an open stream can keep a session busy
	// without sending anything; it is the wait told to a refused client.
	streamIdle time.Duration
	log        *slog.Logger
	// free releases mcp-go's state for a session the store dropped; it is
	// called without the lock held.
	free func(id string)

	mu      sync.Mutex
	live    map[string]*liveSession
	streams int
}

type liveSession struct {
	// busy counts the requests under way, open event streams included.
	busy int
	// stream says the session has its event stream open.
	stream bool
	// used says the session sent a request after initialize (its
	// initialized notification and event streams do not count): until
	// then it ends after the grace period, and it is the first to go
	// when room is needed.
	used bool
	// lastSeen is when the last request ended (or the session opened).
	lastSeen time.Time
}

// streamAdmission is the store's answer to an event stream.
type streamAdmission int

const (
	streamOpened     streamAdmission = iota
	streamNoSession                  // unknown or expired session
	streamHasOne                     // the session's stream is open already
	streamsExhausted                 // every stream slot is taken
)

func newSessionStore(o HTTPOptions, log *slog.Logger) *sessionStore {
	o = o.withDefaults()
	return &sessionStore{
		idle: o.SessionIdle, grace: o.SessionGrace, max: o.MaxSessions,
		maxStreams: o.MaxStreams, streamIdle: o.StreamIdle,
		log: log, live: map[string]*liveSession{}, free: func(string) {},
	}
}

// expired says whether a session is idle past its time at now.
func (st *sessionStore) expired(s *liveSession, now time.Time) bool {
	limit := st.grace
	if s.used {
		limit = st.idle
	}
	return s.busy == 0 && now.Sub(s.lastSeen) >= limit
}

// reserve opens a session for an initialize under way, busy until end or
// drop. When the store is full it first forgets the expired sessions,
// then the least recently used idle one, preferring one that never sent a
// request: a flood of initialize calls then pushes out its own sessions,
// not the clients at work. Only when every session is busy is the new one
// refused, with how long to wait.
func (st *sessionStore) reserve() (id string, retry time.Duration, ok bool) {
	now := time.Now()
	st.mu.Lock()
	var expired, evicted []string
	if len(st.live) >= st.max {
		expired = st.expireLocked(now)
	}
	if len(st.live) >= st.max {
		if victim, found := st.leastRecentlyUsedLocked(); found {
			delete(st.live, victim)
			evicted = append(evicted, victim)
		}
	}
	if len(st.live) >= st.max {
		st.mu.Unlock()
		st.release(expired, "idle HTTP sessions ended")
		// Every session has a request or a stream open; streams are the
		// ones that last, and none lasts idle past streamIdle.
		return "", max(st.streamIdle.Round(time.Second), time.Second), false
	}
	id = rand.Text()
	st.live[id] = &liveSession{busy: 1, lastSeen: now}
	st.mu.Unlock()
	st.release(expired, "idle HTTP sessions ended")
	st.release(evicted, "the least recently used idle HTTP session ended to make room")
	return id, 0, true
}

// leastRecentlyUsedLocked picks the idle session to end for a new one: one
// that never sent a request if any, else the one idle longest. A scan is
// enough: it runs only when the table is full, and the table is small.
func (st *sessionStore) leastRecentlyUsedLocked() (string, bool) {
	var victim string
	var best *liveSession
	for id, s := range st.live {
		if s.busy > 0 {
			continue
		}
		if best == nil || (!s.used && best.used) || (s.used == best.used && s.lastSeen.Before(best.lastSeen)) {
			victim, best = id, s
		}
	}
	return victim, best != nil
}

// begin marks a request of session id under way; false when the store does
// not know the session, or it has just expired. use says the request
// counts as the session being used.
func (st *sessionStore) begin(id string, use bool) bool {
	now := time.Now()
	st.mu.Lock()
	s, ok := st.live[id]
	if ok && st.expired(s, now) {
		delete(st.live, id)
		st.mu.Unlock()
		st.release([]string{id}, "idle HTTP sessions ended")
		return false
	}
	if ok {
		s.busy++
		s.used = s.used || use
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

// beginStream opens the event stream of session id: one per session, and
// no more than maxStreams in all. After streamOpened, endStream must
// follow.
func (st *sessionStore) beginStream(id string) streamAdmission {
	now := time.Now()
	st.mu.Lock()
	s, ok := st.live[id]
	switch {
	case ok && st.expired(s, now):
		delete(st.live, id)
		st.mu.Unlock()
		st.release([]string{id}, "idle HTTP sessions ended")
		return streamNoSession
	case !ok:
		st.mu.Unlock()
		return streamNoSession
	case s.stream:
		st.mu.Unlock()
		return streamHasOne
	case st.streams >= st.maxStreams:
		st.mu.Unlock()
		return streamsExhausted
	}
	s.stream = true
	s.busy++
	st.streams++
	st.mu.Unlock()
	return streamOpened
}

// endStream marks the event stream of session id closed; the session may
// be gone by then, its slot among the streams is freed all the same.
func (st *sessionStore) endStream(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.streams--
	if s, ok := st.live[id]; ok && s.stream {
		s.stream = false
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
		st.release([]string{id}, "an HTTP session ended")
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

// release has mcp-go free the sessions the store forgot, and logs why.
func (st *sessionStore) release(ids []string, why string) {
	for _, id := range ids {
		st.free(id)
	}
	if len(ids) > 0 {
		st.log.Info(why, "count", len(ids))
	}
}

func (st *sessionStore) len() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.live)
}

// run forgets idle sessions until ctx is done, checking a few times per
// grace period so that none outlives it by much.
func (st *sessionStore) run(ctx context.Context) {
	tick := time.NewTicker(min(max(min(st.grace, st.idle)/4, 10*time.Millisecond), time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			st.mu.Lock()
			gone := st.expireLocked(now)
			st.mu.Unlock()
			st.release(gone, "idle HTTP sessions ended")
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
