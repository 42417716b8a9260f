package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

const legacyInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// httpFixture serves the fixture's library over HTTP with the given
// options, through a real listener.
func httpFixture(t *testing.T, o HTTPOptions) (*Server, string) {
	t.Helper()
	f := newFixture(t)
	srv := New(f.library, Options{HTTP: o})
	h, err := srv.Handler(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return srv, ts.URL + "/mcp"
}

// send posts body, with header pairs on top of a client's usual ones.
func send(t *testing.T, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	// Bounded, so that a server that stops answering fails the test.
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// openSession initializes a session of the 2025-06-18 protocol.
func openSession(t *testing.T, url string) string {
	t.Helper()
	resp, body := send(t, url, legacyInit)
	id := resp.Header.Get(server.HeaderKeySessionID)
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, body := send(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, server.HeaderKeySessionID, id); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	return id
}

func listTools(t *testing.T, url, id string) int {
	t.Helper()
	resp, _ := send(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, server.HeaderKeySessionID, id, "Mcp-Protocol-Version", "2025-06-18")
	return resp.StatusCode
}

// registered tells whether mcp-go still holds the session.
func registered(srv *Server, id string) bool {
	return !errors.Is(srv.mcp.SendNotificationToSpecificClient(id, "notifications/message", nil), server.ErrSessionNotFound)
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// openStream opens a session's event stream and returns the connection.
func openStream(t *testing.T, url, id string) net.Conn {
	t.Helper()
	resp, conn, err := getStream(t, url, id)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("event stream: %v %v", resp, err)
	}
	return conn
}

// getStream asks for a session's event stream on a connection of its own,
// which stays open until the test ends, and returns the response read
// within a few seconds.
func getStream(t *testing.T, url, id string) (*http.Response, net.Conn, error) {
	t.Helper()
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n", host, id)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	return resp, conn, err
}

func TestHTTPIdleSessionsExpire(t *testing.T) {
	const idle = 200 * time.Millisecond
	srv, url := httpFixture(t, HTTPOptions{SessionIdle: idle})

	idleID := openSession(t, url)
	streaming := openSession(t, url)
	openStream(t, url, streaming)
	if !registered(srv, idleID) || listTools(t, url, idleID) != http.StatusOK {
		t.Fatal("a fresh session does not work")
	}

	// The sweeper ends the idle session, and mcp-go lets go of it.
	waitFor(t, "mcp-go to drop the idle session", func() bool { return !registered(srv, idleID) })
	if got := listTools(t, url, idleID); got != http.StatusNotFound {
		t.Errorf("expired session: status %d, want 404", got)
	}
	// A session with an open event stream is not idle.
	time.Sleep(2 * idle)
	if got := listTools(t, url, streaming); got != http.StatusOK {
		t.Errorf("session with an open stream: status %d", got)
	}
}

func TestHTTPSessionsAreCappedExactly(t *testing.T) {
	const max = 3
	srv, url := httpFixture(t, HTTPOptions{MaxSessions: max, SessionIdle: time.Minute})

	// Many initialize at once: each one in flight holds its session, so
	// some are refused, and the cap holds however they interleave.
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	var opened []string
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, _ := send(t, url, legacyInit)
			mu.Lock()
			defer mu.Unlock()
			codes[resp.StatusCode]++
			switch {
			case resp.StatusCode == http.StatusOK:
				opened = append(opened, resp.Header.Get(server.HeaderKeySessionID))
			case resp.Header.Get("Retry-After") == "":
				t.Errorf("status %d without Retry-After", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	if codes[http.StatusOK] < max || codes[http.StatusOK]+codes[http.StatusServiceUnavailable] != 20 {
		t.Fatalf("statuses %v", codes)
	}
	live := 0
	for _, id := range opened {
		if registered(srv, id) {
			live++
		}
	}
	if live > max {
		t.Errorf("%d sessions live, cap %d", live, max)
	}
}

func TestHTTPFullSessionTable(t *testing.T) {
	t.Run("the least recently used idle session makes room", func(t *testing.T) {
		_, url := httpFixture(t, HTTPOptions{MaxSessions: 3, SessionIdle: time.Hour, SessionGrace: time.Hour})
		used := openSession(t, url)
		listTools(t, url, used)
		unused := []string{openSession(t, url), openSession(t, url)}
		// A full table: sessions that never sent a request go first, oldest
		// first; then the one idle longest.
		for range 3 {
			unused = append(unused, openSession(t, url))
		}
		for i, id := range unused[:3] {
			if got := listTools(t, url, id); got != http.StatusNotFound {
				t.Errorf("unused session %d: status %d, want 404", i, got)
			}
		}
		if got := listTools(t, url, used); got != http.StatusOK {
			t.Errorf("the session at work: status %d", got)
		}
	})
	t.Run("refused only when every session is at work", func(t *testing.T) {
		_, url := httpFixture(t, HTTPOptions{MaxSessions: 2})
		for range 2 {
			openStream(t, url, openSession(t, url))
		}
		resp, body := send(t, url, legacyInit)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "too many open sessions") {
			t.Errorf("initialize: %d Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	})
}

func TestHTTPUnusedSessionsEndSooner(t *testing.T) {
	srv, url := httpFixture(t, HTTPOptions{SessionIdle: time.Hour, SessionGrace: 100 * time.Millisecond})
	unused := openSession(t, url)
	used := openSession(t, url)
	if got := listTools(t, url, used); got != http.StatusOK {
		t.Fatalf("tools/list: %d", got)
	}
	waitFor(t, "the session that only initialized to end", func() bool { return !registered(srv, unused) })
	if got := listTools(t, url, unused); got != http.StatusNotFound {
		t.Errorf("ended session: status %d, want 404", got)
	}
	if got := listTools(t, url, used); got != http.StatusOK {
		t.Errorf("session at work: status %d", got)
	}
}

func TestHTTPEventStreamsAreCapped(t *testing.T) {
	const maxStreams = 3
	_, url := httpFixture(t, HTTPOptions{MaxConns: 2 * maxStreams})
	first := openSession(t, url)
	openStream(t, url, first)
	resp, _, err := getStream(t, url, first)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), "already has an open event stream") {
		t.Errorf("a second stream of a session: %d %s", resp.StatusCode, body)
	}
	for range maxStreams - 1 {
		openStream(t, url, openSession(t, url))
	}
	resp, _, err = getStream(t, url, openSession(t, url))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "too many open event streams") {
		t.Errorf("a stream past the cap: %d Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}

func TestHTTPIdleStreamEnds(t *testing.T) {
	_, url := httpFixture(t, HTTPOptions{StreamIdle: 100 * time.Millisecond})
	id := openSession(t, url)
	resp, _, err := getStream(t, url, id)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("event stream: %v %v", resp, err)
	}
	// The stream ends, well within getStream's read deadline.
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatalf("the idle stream was not ended: %v", err)
	}
	// The session lives on, and may open another.
	if got := listTools(t, url, id); got != http.StatusOK {
		t.Errorf("tools/list after the stream ended: %d", got)
	}
	openStream(t, url, id)
}

// TestHTTPFloodLeavesRoom has a local process hold event streams and open
// sessions by the hundred; a client at work keeps its session, and a new
// one still initializes, lists tools and searches.
func TestHTTPFloodLeavesRoom(t *testing.T) {
	const maxConns, maxSessions = 16, 20
	addr := serveReal(t, HTTPOptions{MaxConns: maxConns, MaxSessions: maxSessions})
	url := "http://" + addr + "/mcp"
	working := openSession(t, url)
	if got := listTools(t, url, working); got != http.StatusOK {
		t.Fatalf("tools/list: %d", got)
	}

	// Sessions opened and left, then a stream on each of the last.
	var flood []string
	for range 5 * maxSessions {
		resp, _ := send(t, url, legacyInit)
		if id := resp.Header.Get(server.HeaderKeySessionID); id != "" {
			flood = append(flood, id)
		}
	}
	http.DefaultClient.CloseIdleConnections()
	streams := 0
	for _, id := range flood[len(flood)-maxConns:] {
		if resp, _, err := getStream(t, url, id); err == nil && resp.StatusCode == http.StatusOK {
			streams++
		}
	}
	if streams > maxConns/2 {
		t.Errorf("%d event streams of %d connections", streams, maxConns)
	}

	if got := listTools(t, url, working); got != http.StatusOK {
		t.Errorf("the session at work: tools/list %d", got)
	}
	id := openSession(t, url)
	if got := listTools(t, url, id); got != http.StatusOK {
		t.Errorf("a new session: tools/list %d", got)
	}
	resp, body := send(t, url, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"fog horns"}}}`,
		server.HeaderKeySessionID, id, "Mcp-Protocol-Version", "2025-06-18")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "thirty seconds") {
		t.Errorf("a new session: search %d %.300s", resp.StatusCode, body)
	}
}

// serveReal runs ServeHTTP on a loopback port and returns its base address.
func serveReal(t *testing.T, o HTTPOptions) string {
	t.Helper()
	f := newFixture(t)
	srv := New(f.library, Options{HTTP: o})
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- srv.ServeHTTP(ctx, "127.0.0.1:0", func(a net.Addr) { addr <- a.String() })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	})
	select {
	case a := <-addr:
		return a
	case err := <-done:
		t.Fatalf("ServeHTTP: %v", err)
	}
	return ""
}

// closedWithin says whether the server closes conn within d, reading and
// discarding whatever it sends.
func closedWithin(conn net.Conn, d time.Duration) bool {
	conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

func TestHTTPSlowClientsAreCut(t *testing.T) {
	o := HTTPOptions{ReadHeaderTimeout: 100 * time.Millisecond, ReadTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond}
	addr := serveReal(t, o)
	dial := func(t *testing.T) net.Conn {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	// Well above every timeout, far below "forever".
	const bound = 5 * time.Second

	t.Run("headers trickled", func(t *testing.T) {
		conn := dial(t)
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr)
		if !closedWithin(conn, bound) {
			t.Error("still open")
		}
	})
	t.Run("body trickled", func(t *testing.T) {
		conn := dial(t)
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", addr)
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
					if _, err := conn.Write([]byte(" ")); err != nil {
						return
					}
				}
			}
		}()
		if !closedWithin(conn, bound) {
			t.Error("still open")
		}
	})
	t.Run("idle keep-alive", func(t *testing.T) {
		conn := dial(t)
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(legacyInit), legacyInit)
		if !closedWithin(conn, bound) {
			t.Error("still open")
		}
	})
	t.Run("an event stream outlives them all", func(t *testing.T) {
		id := openSession(t, "http://"+addr+"/mcp")
		conn := openStream(t, "http://"+addr+"/mcp", id)
		if closedWithin(conn, 5*o.ReadTimeout) {
			t.Error("the event stream was cut")
		}
	})
}

func TestHTTPGuard(t *testing.T) {
	_, url := httpFixture(t, HTTPOptions{MaxBodyBytes: 1024})
	id := openSession(t, url)
	tests := []struct {
		name    string
		method  string
		body    string
		headers []string
		want    int
	}{
		{"a method MCP does not use", http.MethodPut, legacyInit, nil, http.StatusMethodNotAllowed},
		{"a form post", http.MethodPost, legacyInit, []string{"Content-Type", "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"no content type", http.MethodPost, legacyInit, []string{"Content-Type", ""}, http.StatusUnsupportedMediaType},
		{"JSON with a charset", http.MethodPost, legacyInit, []string{"Content-Type", "application/json; charset=utf-8"}, http.StatusOK},
		{"accepts only HTML", http.MethodPost, legacyInit, []string{"Accept", "text/html"}, http.StatusNotAcceptable},
		{"accepts anything", http.MethodPost, legacyInit, []string{"Accept", "*/*"}, http.StatusOK},
		{"a body over the cap", http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 2000) + `"}}`, []string{server.HeaderKeySessionID, id}, http.StatusRequestEntityTooLarge},
		{"a request without a session", http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, nil, http.StatusBadRequest},
		{"an unknown session", http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, []string{server.HeaderKeySessionID, "forged"}, http.StatusNotFound},
		{"a known session", http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, []string{server.HeaderKeySessionID, id}, http.StatusOK},
		{"a stream without a session", http.MethodGet, "", []string{"Accept", "text/event-stream"}, http.StatusBadRequest},
		{"a stream of an unknown session", http.MethodGet, "", []string{"Accept", "text/event-stream", server.HeaderKeySessionID, "forged"}, http.StatusNotFound},
		{"a stream not accepted", http.MethodGet, "", []string{"Accept", "application/json", server.HeaderKeySessionID, id}, http.StatusNotAcceptable},
		{"DELETE of an unknown session", http.MethodDelete, "", []string{server.HeaderKeySessionID, "forged"}, http.StatusNotFound},
		{"the current protocol needs no session", http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}}}}`, []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list"}, http.StatusOK},
		{"DELETE of a known session", http.MethodDelete, "", []string{server.HeaderKeySessionID, id}, http.StatusOK},
		{"the deleted session", http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, []string{server.HeaderKeySessionID, id}, http.StatusNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, url, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for i := 0; i+1 < len(tc.headers); i += 2 {
				req.Header.Set(tc.headers[i], tc.headers[i+1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.want, b)
			}
		})
	}
}

func TestOriginRules(t *testing.T) {
	tests := []struct {
		origin, local string
		want          bool
	}{
		{"http://127.0.0.1:8765", "127.0.0.1:8765", true},
		{"http://localhost:8765", "127.0.0.1:8765", true},
		{"http://LOCALHOST:8765/", "127.0.0.1:8765", true},
		{"http://[::1]:8765", "[::1]:8765", true},
		{"http://localhost:8765", "[::1]:8765", true},
		{"http://127.0.0.1:8766", "127.0.0.1:8765", false},
		{"http://127.0.0.1", "127.0.0.1:8765", false},
		{"http://127.0.0.1", "127.0.0.1:80", true},
		{"https://127.0.0.1:8765", "127.0.0.1:8765", false},
		{"http://evil.example:8765", "127.0.0.1:8765", false},
		// Served on the LAN: the page at the server's LAN address is the
		// server's own; "localhost" is then the visitor's machine.
		{"http://192.168.1.5:8765", "192.168.1.5:8765", true},
		{"http://localhost:8765", "192.168.1.5:8765", false},
		{"http://127.0.0.1:8765", "192.168.1.5:8765", false},
		{"http://192.168.1.6:8765", "192.168.1.5:8765", false},
		{"http://192.168.1.5:8765", "[::ffff:192.168.1.5]:8765", true},
		{"null", "127.0.0.1:8765", false},
	}
	for _, tc := range tests {
		origin, err := parseOrigin(tc.origin)
		got := err == nil && ownOrigin(origin, tc.local)
		if got != tc.want {
			t.Errorf("origin %s on %s: %v, want %v", tc.origin, tc.local, got, tc.want)
		}
	}
	for raw, want := range map[string]string{
		"HTTPS://App.Example:443/": "https://app.example",
		"http://app.example:80":    "http://app.example",
		"http://app.example:8080":  "http://app.example:8080",
		"http://[::1]:3000":        "http://[::1]:3000",
	} {
		if got, err := parseOrigin(raw); got != want || err != nil {
			t.Errorf("parseOrigin(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, bad := range []string{"", "*", "null", "app.example", "ftp://app.example", "https://app.example/page", "https://user@app.example", "https://app.example?x=1", "https://app.example:99999", "https://"} {
		if got, err := parseOrigin(bad); err == nil {
			t.Errorf("parseOrigin(%q) = %q, want an error", bad, got)
		}
	}
}

func TestServeHTTPWantsTokenOffLoopback(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		o    HTTPOptions
		fail bool
	}{
		{HTTPOptions{}, true},
		{HTTPOptions{Token: "correct-horse-battery-staple"}, false},
		{HTTPOptions{NoAuth: true}, false},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		err := New(f.library, Options{HTTP: tc.o}).ServeHTTP(ctx, "0.0.0.0:0", func(net.Addr) { cancel() })
		cancel()
		if (err != nil) != tc.fail {
			t.Errorf("%+v: error %v", tc.o, err)
		}
	}
}

func FuzzParseOrigin(f *testing.F) {
	for _, s := range []string{"http://localhost:8765", "HTTPS://App.Example:443/", "null", "http://[::1]:80", "http://[fe80::1%25eth0]:1", "http://a:b@c", "//x"} {
		f.Add(s, "127.0.0.1:8765")
	}
	f.Fuzz(func(t *testing.T, raw, local string) {
		origin, err := parseOrigin(raw)
		if err != nil {
			return
		}
		again, err := parseOrigin(origin)
		if err != nil || again != origin {
			t.Fatalf("%q → %q → %q, %v", raw, origin, again, err)
		}
		ownOrigin(origin, local)
	})
}

// FuzzGuard sends arbitrary bodies and headers through the guard to mcp-go.
func FuzzGuard(f *testing.F) {
	for _, s := range []string{legacyInit, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `[]`, `{"params":[]}`, `{"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":1}}}`, "\x00"} {
		f.Add(s, "", "application/json", "2025-06-18")
	}
	st := newSessionStore(HTTPOptions{SessionIdle: time.Minute, MaxSessions: 10}, discard())
	g := &guard{next: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}), log: discard(), maxBody: 1 << 10, sessions: st}
	f.Fuzz(func(t *testing.T, body, session, contentType, version string) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set(server.HeaderKeySessionID, session)
		req.Header.Set("Mcp-Protocol-Version", version)
		w := httptest.NewRecorder()
		g.ServeHTTP(w, req)
		if len(body) > 1<<10 && w.Code == http.StatusOK {
			t.Fatalf("a body of %d bytes got through", len(body))
		}
		if st.len() > 10 {
			t.Fatalf("%d sessions", st.len())
		}
	})
}
