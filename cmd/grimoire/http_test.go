package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
)

// The tests here drive `grimoire serve --http` with raw HTTP, the way a web
// page, a LAN neighbour or a careless script would.

const legacyInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// serveHTTP starts the server and returns it with its URL on 127.0.0.1,
// whatever address it bound.
func serveHTTP(t *testing.T, lib string, env []string, args ...string) (*proc, string) {
	t.Helper()
	p := start(t, lib, env, append([]string{"serve", "--http"}, args...)...)
	_, port, err := net.SplitHostPort(waitForAddr(t, p))
	if err != nil {
		t.Fatal(err)
	}
	return p, "http://127.0.0.1:" + port + "/mcp"
}

// post sends one JSON-RPC message with the given headers on top of the
// ones a client sends.
func post(t *testing.T, url, body string, headers ...string) (*http.Response, string) {
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
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// memKB reads a process's resident memory and its peak, in kB; ok is false
// where /proc does not tell.
func memKB(pid int) (rss, hwm int64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = n
		case "VmHWM:":
			hwm = n
		}
	}
	return rss, hwm, hwm > 0
}

func TestHTTPRefusesForeignOrigins(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	_, url := serveHTTP(t, lib, nil, "127.0.0.1:0", "--allow-origin", "HTTPS://App.example:443/")
	port := strings.TrimSuffix(url[strings.LastIndex(url, ":")+1:], "/mcp")
	tests := []struct {
		name, origin string
		want         int
	}{
		{"no origin (a non-browser client)", "", http.StatusOK},
		{"the server's own origin", "http://127.0.0.1:" + port, http.StatusOK},
		{"localhost at the server's port", "http://localhost:" + port, http.StatusOK},
		{"an origin named with --allow-origin", "https://app.example", http.StatusOK},
		{"another site", "http://evil.example", http.StatusForbidden},
		{"another port on loopback", "http://127.0.0.1:1", http.StatusForbidden},
		{"https at the server's port", "https://127.0.0.1:" + port, http.StatusForbidden},
		{"a look-alike host", "http://localhost.evil.example:" + port, http.StatusForbidden},
		{"a sandboxed page", "null", http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var headers []string
			if tc.origin != "" {
				headers = []string{"Origin", tc.origin}
			}
			resp, body := post(t, url, legacyInitialize, headers...)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			session := resp.Header.Get("Mcp-Session-Id")
			switch {
			case tc.want == http.StatusOK && session == "":
				t.Error("no session")
			case tc.want == http.StatusForbidden && (session != "" || !strings.Contains(body, "--allow-origin")):
				t.Errorf("session %q, body %q", session, body)
			}
		})
	}

	t.Run("the origin is checked before the body is read", func(t *testing.T) {
		conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// A gigabyte announced, a few bytes sent: a server that read the
		// body first would wait for the rest.
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n{\"jsonrpc\"", 1<<30)
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("status %d", resp.StatusCode)
		}
	})

	t.Run("preflight", func(t *testing.T) {
		for origin, want := range map[string]int{"https://app.example": http.StatusNoContent, "http://evil.example": http.StatusForbidden} {
			req, _ := http.NewRequest(http.MethodOptions, url, nil)
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-session-id")
			resp, _ := do(t, req)
			if resp.StatusCode != want {
				t.Errorf("%s: status %d, want %d", origin, resp.StatusCode, want)
			}
			if allowed := resp.Header.Get("Access-Control-Allow-Origin"); (want == http.StatusNoContent) != (allowed == origin) {
				t.Errorf("%s: Access-Control-Allow-Origin %q", origin, allowed)
			}
		}
	})
}

// sendBody posts a body of size bytes through a raw connection, as fast as
// the server takes it, and returns the response, which may come before the
// body is all sent, and how much was sent.
func sendBody(t *testing.T, url, contentType string, size int64, chunked bool) (int, int64) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	framing := fmt.Sprintf("Content-Length: %d", size)
	if chunked {
		framing = "Transfer-Encoding: chunked"
	}
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\nAccept: application/json, text/event-stream\r\n%s\r\n\r\n", contentType, framing)
	var sent int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		chunk := []byte(strings.Repeat("a", 1<<20))
		w := bufio.NewWriterSize(conn, 1<<20+64)
		for sent < size {
			if chunked {
				fmt.Fprintf(w, "%x\r\n", len(chunk))
			}
			w.Write(chunk)
			if chunked {
				w.WriteString("\r\n")
			}
			if w.Flush() != nil {
				return
			}
			sent += int64(len(chunk))
		}
	}()
	conn.SetReadDeadline(time.Now().Add(2 * time.Minute))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no response: %v", err)
	}
	resp.Body.Close()
	conn.Close() // stops the writer
	wg.Wait()
	return resp.StatusCode, sent
}

func TestHTTPBodyIsCheckedAndCapped(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	p, url := serveHTTP(t, lib, nil, "127.0.0.1:0")
	const gigabyte = 1 << 30
	tests := []struct {
		name        string
		contentType string
		chunked     bool
		want        int
	}{
		{"text/plain, the body any web page can send", "text/plain", false, http.StatusUnsupportedMediaType},
		{"JSON announced as a gigabyte", "application/json", false, http.StatusRequestEntityTooLarge},
		{"JSON streamed without a length", "application/json", true, http.StatusRequestEntityTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, hwmBefore, haveMem := memKB(p.cmd.Process.Pid)
			status, sent := sendBody(t, url, tc.contentType, gigabyte, tc.chunked)
			if status != tc.want {
				t.Fatalf("status %d, want %d", status, tc.want)
			}
			if sent >= gigabyte {
				t.Errorf("the server read the whole gigabyte")
			}
			if haveMem {
				_, hwm, _ := memKB(p.cmd.Process.Pid)
				t.Logf("sent %d MB; peak memory %d → %d MB", sent>>20, hwmBefore>>10, hwm>>10)
				if hwm-hwmBefore > 64<<10 {
					t.Errorf("peak memory grew by %d MB", (hwm-hwmBefore)>>10)
				}
			}
		})
	}
	// And the server still answers.
	if resp, body := post(t, url, legacyInitialize); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize after the big bodies: %d %s", resp.StatusCode, body)
	}
}

var tokenLine = regexp.MustCompile(`Authorization: Bearer (\S+)"`)

func TestHTTPOffLoopbackNeedsToken(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	status := func(t *testing.T, url, token string) int {
		t.Helper()
		var headers []string
		if token != "" {
			headers = []string{"Authorization", "Bearer " + token}
		}
		resp, body := post(t, url, legacyInitialize, headers...)
		if resp.StatusCode == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("401 without a Bearer challenge: %v %s", resp.Header, body)
		}
		return resp.StatusCode
	}

	t.Run("a token is made and printed once", func(t *testing.T) {
		// Bound to every interface, reached here through loopback: the
		// bind decides, not the client's address.
		p, url := serveHTTP(t, lib, nil, "0.0.0.0:0")
		var token string
		eventually(t, "the token line", 10*time.Second, func() bool {
			m := tokenLine.FindStringSubmatch(p.errb.String())
			if m != nil {
				token = m[1]
			}
			return m != nil
		})
		for _, tc := range []struct {
			token string
			want  int
		}{
			{"", http.StatusUnauthorized},
			{"not-the-token-but-long-enough", http.StatusUnauthorized},
			{token, http.StatusOK},
		} {
			if got := status(t, url, tc.token); got != tc.want {
				t.Errorf("token %q: status %d, want %d", tc.token, got, tc.want)
			}
		}
		c := httpClient(t, url, token, false)
		exerciseServer(t, c)
		if n := strings.Count(p.errb.String(), token); n != 1 {
			t.Errorf("the token appears %d times on stderr", n)
		}
	})

	t.Run("a token from the environment", func(t *testing.T) {
		const token = "correct-horse-battery-staple"
		p, url := serveHTTP(t, lib, []string{"GRIMOIRE_HTTP_TOKEN=" + token}, "0.0.0.0:0")
		if got := status(t, url, ""); got != http.StatusUnauthorized {
			t.Errorf("no token: %d", got)
		}
		if got := status(t, url, token); got != http.StatusOK {
			t.Errorf("token: %d", got)
		}
		if strings.Contains(p.errb.String(), token) {
			t.Error("the token from the environment was printed")
		}
	})

	t.Run("a token from the environment holds on loopback too", func(t *testing.T) {
		const token = "correct-horse-battery-staple"
		_, url := serveHTTP(t, lib, []string{"GRIMOIRE_HTTP_TOKEN=" + token}, "127.0.0.1:0")
		if got := status(t, url, ""); got != http.StatusUnauthorized {
			t.Errorf("no token: %d", got)
		}
	})

	t.Run("--no-auth", func(t *testing.T) {
		p, url := serveHTTP(t, lib, nil, "0.0.0.0:0", "--no-auth")
		if got := status(t, url, ""); got != http.StatusOK {
			t.Errorf("status %d", got)
		}
		if !strings.Contains(p.errb.String(), "anyone who can reach") {
			t.Errorf("no warning: %s", p.errb.String())
		}
	})

	t.Run("loopback needs no token", func(t *testing.T) {
		_, url := serveHTTP(t, lib, nil, "127.0.0.1:0")
		if got := status(t, url, ""); got != http.StatusOK {
			t.Errorf("status %d", got)
		}
	})

	for _, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"a short token", []string{"GRIMOIRE_HTTP_TOKEN=secret"}, []string{"serve", "--http", "0.0.0.0:0"}},
		{"a token and --no-auth", []string{"GRIMOIRE_HTTP_TOKEN=correct-horse-battery-staple"}, []string{"serve", "--http", "0.0.0.0:0", "--no-auth"}},
		{"--no-auth without --http", nil, []string{"serve", "--no-auth"}},
		{"an origin with a path", nil, []string{"serve", "--http", ":0", "--allow-origin", "https://app.example/page"}},
	} {
		t.Run("refused: "+tc.name, func(t *testing.T) {
			p := start(t, lib, tc.env, tc.args...)
			select {
			case <-p.done:
				p.done <- nil
			case <-time.After(20 * time.Second):
				t.Fatal("still running")
			}
			if code := p.cmd.ProcessState.ExitCode(); code != exitInvalid {
				t.Errorf("exit %d: %s", code, p.errb.String())
			}
		})
	}
}

// httpClient connects a real MCP client: the current protocol (no
// sessions), or the legacy one, with a session and an event stream.
func httpClient(t *testing.T, url, token string, legacy bool) *client.Client {
	t.Helper()
	opts := []transport.StreamableHTTPCOption{}
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	var copts []client.ClientOption
	if legacy {
		opts = append(opts, transport.WithContinuousListening())
		copts = append(copts, client.WithProtocolVersion("2025-06-18"))
	}
	tr, err := transport.NewStreamableHTTP(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, copts...)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestHTTPSessionsAreCapped(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	p, url := serveHTTP(t, lib, nil, "127.0.0.1:0")
	const limit = 1000 // the default cap
	rssBefore, _, haveMem := memKB(p.cmd.Process.Pid)

	// Sessions opened and never closed, as a careless script would. The
	// first is opened alone, so that it is the one idle longest.
	initialize := func() string {
		resp, body := post(t, url, legacyInitialize)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("initialize: %d %s", resp.StatusCode, body)
			return ""
		}
		return resp.Header.Get("Mcp-Session-Id")
	}
	oldest := initialize()
	jobs := make(chan struct{}, limit-1)
	for range limit - 1 {
		jobs <- struct{}{}
	}
	close(jobs)
	sessions := make(chan string, limit-1)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				id := initialize()
				if id == "" {
					return
				}
				sessions <- id
			}
		}()
	}
	wg.Wait()
	close(sessions)
	if t.Failed() {
		t.FailNow()
	}

	// A full table makes room by ending the session idle longest, which
	// never sent a request: the new client gets in, the old one gets 404.
	if resp, body := post(t, url, legacyInitialize); resp.StatusCode != http.StatusOK {
		t.Fatalf("session %d: %d %s", limit+1, resp.StatusCode, body)
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", oldest)
	if resp, body := do(t, req); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the session ended to make room: %d %s", resp.StatusCode, body)
	}
	if haveMem {
		rss, _, _ := memKB(p.cmd.Process.Pid)
		t.Logf("%d sessions: resident memory %d → %d MB", limit, rssBefore>>10, rss>>10)
	}

	// Clients of the current protocol need no session: they still work.
	exerciseServer(t, httpClient(t, url, "", false))

	// A session ended with DELETE is gone.
	req, _ = http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", <-sessions)
	if resp, body := do(t, req); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
}

// TestMCPOverHTTPLegacySession runs a client of the session protocol, with
// its event stream open, through the guard.
func TestMCPOverHTTPLegacySession(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	p, url := serveHTTP(t, lib, nil, "127.0.0.1:0")
	exerciseServer(t, httpClient(t, url, "", true))
	p.stopped(t, 5*time.Second)
}
