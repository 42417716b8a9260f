package handoff

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
)

// Handler does what a request asks, in the writer's process, and returns
// its result (encoded as JSON for the requester) and its error; both may
// be set. ctx ends when the requester goes away or the writer stops. rep
// tells the requester how far it is.
type Handler func(ctx context.Context, req Request, rep *Reporter) (any, error)

// Server takes the requests of other processes for the writer whose lock
// file names its socket.
type Server struct {
	w    *index.Writer
	ln   net.Listener
	path string
	// dir is the private folder that holds the socket; removed with it.
	dir string
	// owner is the user whose commands may hand work over: this
	// process's.
	owner int
	log   *slog.Logger
}

// maxSocketPath is the longest socket path that every system takes
// (macOS allows 103 bytes, Linux 107).
const maxSocketPath = 100

// Listen opens the socket where w takes requests, in a private folder
// beside the index (or, when no socket can be made there — a path too
// long for one, a file system without them — in a private temporary
// folder), and names it in w's lock file.
//
// The folder is made private before the socket is made in it, so that no
// other user can connect even while the socket is being set up; and each
// connection's user is checked before its request is read.
func Listen(w *index.Writer, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if !canCheckPeers {
		return nil, errors.New("this system cannot tell which user connects to a socket")
	}
	s := &Server{w: w, log: log, owner: os.Geteuid()}
	if err := s.listenBeside(w.Path() + ".requests"); err != nil {
		log.Debug("no requests socket beside the index", "err", err)
		if err := s.listenPrivate(); err != nil {
			return nil, err
		}
	}
	if err := w.AnnounceRequests(s.path); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// socketName is the socket's name in its folder.
const socketName = "socket"

// listenBeside listens in the folder dir beside the index. The caller
// holds the writer lock, so a folder of this user's left there is a
// crashed writer's: it is made anew. One of another user's, or anything
// else at that path, is left alone.
func (s *Server) listenBeside(dir string) error {
	path := filepath.Join(dir, socketName)
	if len(path) > maxSocketPath {
		return fmt.Errorf("%s is too long for a socket", path)
	}
	if err := clearStale(dir); err != nil {
		return err
	}
	return s.listenIn(dir)
}

func (s *Server) listenPrivate() error {
	for range 100 {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("grimoire-%016x", rand.Uint64()))
		err := s.listenIn(dir)
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return fmt.Errorf("make a folder for the requests socket in %s: every name tried is taken", os.TempDir())
}

// listenIn makes the private folder dir and listens in it.
func (s *Server) listenIn(dir string) error {
	if err := mkdirPrivate(dir); err != nil {
		return fmt.Errorf("make a private folder for the requests socket: %w", err)
	}
	s.dir = dir
	path := filepath.Join(dir, socketName)
	ln, err := net.Listen("unix", path)
	if err != nil {
		s.removeDir()
		return fmt.Errorf("listen for requests at %s: %w", path, err)
	}
	// The folder already keeps others out; the socket says so too.
	os.Chmod(path, 0o600)
	s.ln, s.path = ln, path
	return nil
}

// clearStale makes path free for a new private folder: nothing there, or
// a folder of this user's (not a link to one) that a dead writer left.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() || !ownedByMe(fi) {
		return fmt.Errorf("%s is taken by something other than a folder of this user's", path)
	}
	return os.RemoveAll(path)
}

// Serve answers requests with h until ctx is done, then withdraws the
// socket from the lock file, removes it, and returns once every request
// has had its answer.
func (s *Server) Serve(ctx context.Context, h Handler) {
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, func() { s.ln.Close() })
	defer stop()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			if ctx.Err() == nil {
				s.log.Warn("no more requests from other commands are taken", "err", err)
			}
			break
		}
		wg.Go(func() { s.answer(ctx, conn, h) })
	}
	if err := s.w.AnnounceRequests(""); err != nil {
		s.log.Debug("cannot withdraw the requests socket", "err", err)
	}
	s.close()
	wg.Wait()
}

func (s *Server) close() {
	s.ln.Close()
	// Closing a unix listener removes its socket file; this is for
	// systems that leave it.
	os.Remove(s.path)
	s.removeDir()
}

func (s *Server) removeDir() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir = ""
	}
}

// answer reads one request from conn, has h do it, and writes the
// outcome. The request's context ends when the requester hangs up (it
// writes nothing after its request, so any read ending means that) or the
// server stops.
func (s *Server) answer(ctx context.Context, conn net.Conn, h Handler) {
	defer conn.Close()
	rep := &Reporter{conn: conn, enc: json.NewEncoder(conn)}
	if err := s.checkPeer(conn); err != nil {
		s.log.Warn("a connection to the requests socket was refused", "err", err)
		rep.final(nil, err)
		discard(conn)
		return
	}
	conn.SetReadDeadline(time.Now().Add(helloTimeout))
	r := bufio.NewReaderSize(conn, 4096)
	line, err := readLine(r)
	if err != nil {
		return
	}
	// A requester that gave up while this writer could not answer (it
	// was stopped, or busy beyond the requester's patience) has closed
	// the connection: its request is not run late.
	conn.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
	if _, err := r.ReadByte(); !isTimeout(err) {
		return
	}
	conn.SetReadDeadline(time.Time{})
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		rep.final(nil, fault.Errorf(fault.Invalid, "a request the writer cannot read: %v", err))
		return
	}
	if req.Version != Version {
		rep.final(nil, (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("the running writer speaks version %d of the requests between commands, this command %d", Version, req.Version)}).
			WithHint("run the same grimoire for both: restart the writer with this one"))
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		r.ReadByte()
		cancel()
	}()
	rep.state(Queued)
	res, err := h(ctx, req, rep)
	rep.final(res, err)
}

// discard throws away what the requester sent, unread, until it hangs up
// (briefly): a socket closed with data it did not take resets the
// connection, and the requester would lose the answer sent before.
func discard(conn net.Conn) {
	if uc, ok := conn.(*net.UnixConn); ok {
		uc.CloseWrite()
	}
	conn.SetReadDeadline(time.Now().Add(time.Second))
	io.Copy(io.Discard, io.LimitReader(conn, maxRequest))
}

// checkPeer refuses a connection of another user than the owner's.
func (s *Server) checkPeer(conn net.Conn) error {
	uid, err := peerUID(conn)
	if err != nil {
		return (&fault.Error{Code: fault.Conflict, Msg: "the running writer cannot tell which user sent the request", Err: err}).
			WithHint("stop it to run the command")
	}
	if uid != s.owner {
		return (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("the running writer takes requests only from its own user (%d), not from another user (%d)", s.owner, uid)}).
			WithHint("run the command as the user that runs the writer")
	}
	return nil
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var buf bytes.Buffer
	for {
		part, more, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		if buf.Len()+len(part) > maxRequest {
			return nil, errors.New("request too long")
		}
		buf.Write(part)
		if !more {
			return buf.Bytes(), nil
		}
	}
}

// Reporter tells the requester how its request is going. Its methods are
// safe to call from any goroutine; once the requester is gone they do
// nothing.
type Reporter struct {
	mu   sync.Mutex
	conn net.Conn
	enc  *json.Encoder
	last time.Time
	// label is the last progress label sent: a new one is sent at once.
	label string
	done  bool
}

// Working tells the requester that the writer now runs its request.
func (r *Reporter) Working() { r.state(Working) }

// Progress tells the requester how far the work is, at most ten times a
// second for one label.
func (r *Reporter) Progress(p Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p.Label == r.label && p.Done < p.Total && time.Since(r.last) < 100*time.Millisecond {
		return
	}
	r.label, r.last = p.Label, time.Now()
	r.send(Event{Progress: &p})
}

func (r *Reporter) state(st string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.send(Event{State: st})
}

func (r *Reporter) final(res any, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := Event{Final: true, Error: failureOf(err)}
	if res != nil {
		b, merr := json.Marshal(res)
		if merr != nil {
			ev.Error = failureOf(fmt.Errorf("encode the result: %w", merr))
		}
		ev.Result = b
	}
	r.send(ev)
	r.done = true
}

// send writes ev; the caller holds mu. A requester that is gone cannot be
// told anything: its request is cancelled by the read that noticed. One
// that stopped reading (a stopped process) is given up on, rather than let
// the writer wait on it.
func (r *Reporter) send(ev Event) {
	if r.done {
		return
	}
	r.conn.SetWriteDeadline(time.Now().Add(sendTimeout))
	if err := r.enc.Encode(ev); err != nil {
		r.done = true
		r.conn.Close()
	}
}

// sendTimeout bounds a write to a requester: a few hundred bytes that a
// live one takes at once.
const sendTimeout = 5 * time.Second
