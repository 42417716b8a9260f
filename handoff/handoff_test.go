package handoff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
)

func openWriter(t *testing.T, dir string) *index.Writer {
	t.Helper()
	w, err := index.OpenWriter(context.Background(), filepath.Join(dir, "g.db"), "grimoire test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// serving runs s with h until the test ends.
func serving(t *testing.T, s *Server, h Handler) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		s.Serve(ctx, h)
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// TestListenFindsAPlace: the socket goes into a private folder beside the
// index when it can, else into a private temporary one; the lock file
// names it, and it goes with its folder when the server stops.
func TestListenFindsAPlace(t *testing.T) {
	tests := []struct {
		name string
		dir  func(t *testing.T) string
		// beside: the socket is in the folder the index's path +
		// ".requests".
		beside bool
	}{
		{name: "beside the index", beside: true, dir: func(t *testing.T) string { return t.TempDir() }},
		{name: "a path too long for a socket", dir: func(t *testing.T) string {
			d := filepath.Join(t.TempDir(), strings.Repeat("a", 60), strings.Repeat("b", 60))
			os.MkdirAll(d, 0o755)
			return d
		}},
		{name: "a folder a crashed writer left", beside: true, dir: func(t *testing.T) string {
			d := t.TempDir()
			os.Mkdir(filepath.Join(d, "g.db.requests"), 0o755)
			ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(d, "g.db.requests", "socket"), Net: "unix"})
			if err != nil {
				t.Fatal(err)
			}
			ln.SetUnlinkOnClose(false)
			ln.Close()
			return d
		}},
		{name: "a file in the way", dir: func(t *testing.T) string {
			d := t.TempDir()
			os.WriteFile(filepath.Join(d, "g.db.requests"), []byte("mine"), 0o644)
			return d
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			w := openWriter(t, dir)
			s, err := Listen(w, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				s.Serve(ctx, func(context.Context, Request, *Reporter) (any, error) { return "pong", nil })
				close(done)
			}()
			h, running := index.ReadLockHolder(w.Path())
			if !running || h.Requests != s.path {
				t.Fatalf("lock holder %+v names %q, the socket is %q", h, h.Requests, s.path)
			}
			if beside := s.path == filepath.Join(w.Path()+".requests", "socket"); beside != tc.beside {
				t.Errorf("socket at %s", s.path)
			}
			if fi, err := os.Stat(s.path); runtime.GOOS != "windows" && (err != nil || fi.Mode().Perm() != 0o600) {
				t.Errorf("socket mode %v, %v", fi.Mode(), err)
			}
			if fi, err := os.Stat(filepath.Dir(s.path)); runtime.GOOS != "windows" && (err != nil || fi.Mode().Perm() != 0o700) {
				t.Errorf("socket folder mode %v, %v", fi.Mode(), err)
			}
			res, err := Ask(ctx, h, Request{Version: Version, Op: "ping"}, nil)
			if err != nil || string(res) != `"pong"` {
				t.Errorf("ask: %s, %v", res, err)
			}
			cancel()
			<-done
			if _, err := os.Stat(filepath.Dir(s.path)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the socket's folder outlived the server: %v", err)
			}
			if h, _ := index.ReadLockHolder(w.Path()); h.Requests != "" {
				t.Errorf("the lock file still names %q", h.Requests)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "g.db.requests")); tc.name == "a file in the way" && string(b) != "mine" {
				t.Errorf("the file in the way was touched: %q, %v", b, err)
			}
		})
	}
}

// TestAsk: what the requester gets back, for each way a request ends.
func TestAsk(t *testing.T) {
	tests := []struct {
		name    string
		req     Request
		handler Handler
		// cancel: the requester gives up once the writer works.
		cancel   bool
		result   string
		code     fault.Code
		text     string
		progress int
	}{
		{
			name: "a result, with progress on the way",
			req:  Request{Version: Version, Op: "count"},
			handler: func(ctx context.Context, req Request, rep *Reporter) (any, error) {
				rep.Working()
				rep.Progress(Progress{Label: "counting", Done: 1, Total: 2})
				rep.Progress(Progress{Label: "counting", Done: 2, Total: 2})
				return map[string]int{"n": 2}, nil
			},
			result: `{"n":2}`, progress: 2,
		},
		{
			name: "an error keeps its code and text",
			req:  Request{Version: Version, Op: "delete"},
			handler: func(context.Context, Request, *Reporter) (any, error) {
				return nil, (&fault.Error{Code: fault.NotFound, Msg: `no book "x"`}).WithHint("see list")
			},
			code: fault.NotFound, text: `no book "x" — see list`,
		},
		{
			name: "a result and an error",
			req:  Request{Version: Version, Op: "sync"},
			handler: func(context.Context, Request, *Reporter) (any, error) {
				return 3, errors.New("model server down")
			},
			result: "3", code: fault.Internal, text: "model server down",
		},
		{
			name: "another version is refused",
			req:  Request{Version: Version + 1, Op: "delete"},
			handler: func(context.Context, Request, *Reporter) (any, error) {
				t.Error("the handler ran a request of another version")
				return nil, nil
			},
			code: fault.Conflict, text: "version",
		},
		{
			name:   "a requester that gives up cancels the work",
			req:    Request{Version: Version, Op: "reindex"},
			cancel: true,
			handler: func(ctx context.Context, req Request, rep *Reporter) (any, error) {
				rep.Working()
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(10 * time.Second):
					t.Error("the work went on after the requester gave up")
					return nil, nil
				}
			},
			code: fault.Internal, text: context.Canceled.Error(),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := openWriter(t, t.TempDir())
			s, err := Listen(w, nil)
			if err != nil {
				t.Fatal(err)
			}
			serving(t, s, tc.handler)
			h, _ := index.ReadLockHolder(w.Path())
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			progress := 0
			res, err := Ask(ctx, h, tc.req, func(ev Event) {
				if ev.Progress != nil {
					progress++
				}
				if ev.State == Working && tc.cancel {
					cancel()
				}
			})
			if tc.cancel {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("a requester that gave up got %v", err)
				}
				return
			}
			if string(res) != tc.result {
				t.Errorf("result %s, want %s", res, tc.result)
			}
			if tc.text == "" && err != nil || tc.text != "" && (err == nil || fault.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.text)) {
				t.Errorf("error %v (code %v), want code %v with %q", err, fault.CodeOf(err), tc.code, tc.text)
			}
			if progress != tc.progress {
				t.Errorf("%d progress events, want %d", progress, tc.progress)
			}
		})
	}
}

// TestAskWithoutAWriter: a lock holder that takes no requests, or whose
// socket is gone, is ErrNotTaking, so that the command reports the lock.
func TestAskWithoutAWriter(t *testing.T) {
	for _, h := range []index.LockHolder{
		{PID: 1, Command: "grimoire rebuild"},
		{PID: 1, Command: "grimoire watch", Requests: filepath.Join(t.TempDir(), "gone.sock")},
	} {
		if _, err := Ask(context.Background(), h, Request{Version: Version}, nil); !errors.Is(err, ErrNotTaking) {
			t.Errorf("%+v: %v", h, err)
		}
	}
}

// TestDecodeRefusesWhatItDoesNotKnow: arguments the writer does not know
// are refused, not half obeyed.
func TestDecodeRefusesWhatItDoesNotKnow(t *testing.T) {
	var args struct {
		Slug string `json:"slug"`
	}
	req := Request{Version: Version, Op: "delete", Args: json.RawMessage(`{"slug":"x","purge":true}`)}
	if err := req.Decode(&args); fault.CodeOf(err) != fault.Conflict {
		t.Errorf("unknown field: %v", err)
	}
	req.Args = json.RawMessage(`{"slug":"x"}`)
	if err := req.Decode(&args); err != nil || args.Slug != "x" {
		t.Errorf("known fields: %+v, %v", args, err)
	}
}

// TestPeerCheck: a connection of a user other than the writer's is
// refused before its request is read, with an error that says why; the
// writer's own user is served.
func TestPeerCheck(t *testing.T) {
	tests := []struct {
		name string
		// owner is the user the server takes requests from, relative to
		// this test's.
		owner int
		ran   bool
		text  string
	}{
		{name: "the same user", owner: 0, ran: true},
		{name: "another user", owner: 1, text: "not from another user"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := openWriter(t, t.TempDir())
			var logged strings.Builder
			s, err := Listen(w, slog.New(slog.NewTextHandler(&logged, nil)))
			if err != nil {
				t.Fatal(err)
			}
			s.owner += tc.owner
			ran := false
			serving(t, s, func(context.Context, Request, *Reporter) (any, error) {
				ran = true
				return "done", nil
			})
			h, _ := index.ReadLockHolder(w.Path())
			_, err = Ask(context.Background(), h, Request{Version: Version, Op: "delete"}, nil)
			if ran != tc.ran {
				t.Errorf("ran %v, want %v", ran, tc.ran)
			}
			if tc.text == "" && err != nil || tc.text != "" && (fault.CodeOf(err) != fault.Conflict || !strings.Contains(fmt.Sprint(err), tc.text)) {
				t.Errorf("error %v, want %q", err, tc.text)
			}
			if refused := strings.Contains(logged.String(), "refused"); refused != (tc.text != "") {
				t.Errorf("log: %s", logged.String())
			}
		})
	}
}
