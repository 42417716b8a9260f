package modelserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fastOptions are Options whose waits are a few milliseconds at most.
func fastOptions(url string) Options {
	return Options{
		URL: url, Server: "test server",
		Transport: Transport{Timeout: 2 * time.Second, Backoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond},
		Hints:     Hints{Unreachable: "start it", ModelNotFound: "pull it", Unauthorized: "set the key", NotFound: "check the url"},
	}
}

// closedURL returns the URL of a port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func mustClient(t *testing.T, o Options) *Client {
	t.Helper()
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDoRetries(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int // answered in turn; then 200
		body     string
		retries  int
		wantErr  bool
		kind     error
		calls    int
		contains []string
	}{
		{name: "429 then 500 then success", statuses: []int{429, 500}, body: `{"error":"busy"}`, calls: 3},
		{name: "503 502 504", statuses: []int{503, 502, 504}, body: `{"error":"busy"}`, calls: 4},
		{name: "gives up", statuses: []int{500, 500, 500}, body: `{"error":"boom"}`, retries: 2, wantErr: true, calls: 3,
			contains: []string{"500", "boom", "gave up after 3 attempts"}},
		{name: "no retries", statuses: []int{500}, body: `{"error":"boom"}`, retries: -1, wantErr: true, calls: 1},
		{name: "400 is permanent", statuses: []int{400}, body: `{"error":"invalid input type"}`, wantErr: true, calls: 1,
			contains: []string{"400 Bad Request", "invalid input type"}},
		{name: "404 endpoint", statuses: []int{404}, body: "404 page not found", wantErr: true, calls: 1,
			contains: []string{"404 page not found", "check the url"}},
		{name: "404 model", statuses: []int{404}, body: `{"error":"model \"x\" not found, try pulling it first"}`,
			wantErr: true, kind: ErrModelNotFound, calls: 1, contains: []string{"pull it"}},
		{name: "401", statuses: []int{401}, body: `{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}`,
			wantErr: true, kind: ErrUnauthorized, calls: 1, contains: []string{"Incorrect API key", "set the key"}},
		{name: "500 too long is permanent", statuses: []int{500}, body: `{"error":"the input length exceeds the context length"}`,
			wantErr: true, kind: ErrTooLong, calls: 1},
		{name: "500 out of memory is permanent", statuses: []int{500},
			body: `{"error":"model requires more system memory (5.5 GiB) than is available (2.1 GiB)"}`, wantErr: true, calls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(calls.Add(1))
				if n <= len(tc.statuses) {
					if tc.statuses[n-1] == 429 {
						w.Header().Set("Retry-After", "1")
					}
					w.WriteHeader(tc.statuses[n-1])
					w.Write([]byte(tc.body))
					return
				}
				w.Write([]byte(`{"ok":true}`))
			}))
			defer srv.Close()
			o := fastOptions(srv.URL)
			o.Retries = tc.retries
			c := mustClient(t, o)
			var out struct{ OK bool }
			err := c.Do(t.Context(), http.MethodPost, "/x", map[string]int{"a": 1}, JSON(&out))
			if got := int(calls.Load()); got != tc.calls {
				t.Errorf("calls = %d, want %d", got, tc.calls)
			}
			if !tc.wantErr {
				if err != nil || !out.OK {
					t.Fatalf("err = %v, out = %+v", err, out)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("err = %v, want kind %v", err, tc.kind)
			}
			for _, s := range append(tc.contains, srv.URL+"/x") {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestUnreachableFailsFast(t *testing.T) {
	u := closedURL(t)
	o := fastOptions(u)
	o.Backoff, o.MaxBackoff = time.Second, time.Second // would show if it retried
	c := mustClient(t, o)
	start := time.Now()
	err := c.Do(t.Context(), http.MethodGet, "/api/tags", nil, nil)
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("took %s", d)
	}
	for _, s := range []string{u, "not reachable", "start it", "connection refused"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

func TestRefusedAfterContactIsRetried(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{}`)) }))
	c := mustClient(t, fastOptions(srv.URL))
	if err := c.Do(t.Context(), http.MethodGet, "/", nil, nil); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	err := c.Do(t.Context(), http.MethodGet, "/", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Attempts != DefaultRetries+1 {
		t.Fatalf("err = %v, want %d attempts", err, DefaultRetries+1)
	}
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "start it") {
		t.Errorf("err = %v, want ErrUnreachable with the hint", err)
	}
}

func TestTimeoutIsTransient(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			<-r.Context().Done()
			return
		}
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	o := fastOptions(srv.URL)
	o.Timeout = 50 * time.Millisecond
	c := mustClient(t, o)
	if err := c.Do(t.Context(), http.MethodGet, "/", nil, nil); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 {
		t.Errorf("calls = %d, want 2", calls.Load())
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		backoff time.Duration
	}{
		{"during request", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, time.Millisecond},
		{"during backoff", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			o := fastOptions(srv.URL)
			o.Backoff, o.MaxBackoff = tc.backoff, tc.backoff
			c := mustClient(t, o)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := c.Do(ctx, http.MethodGet, "/", nil, nil)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want the context's", err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}

func TestHeaderSent(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Authorization")
	}))
	defer srv.Close()
	o := fastOptions(srv.URL)
	o.Header = http.Header{"Authorization": {"Bearer k"}}
	if err := mustClient(t, o).Do(t.Context(), http.MethodGet, "/", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got != "Bearer k" {
		t.Errorf("Authorization = %q", got)
	}
}

func TestMalformedResponseIsPermanent(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Write([]byte(`{"embeddings": [[1,2`))
	}))
	defer srv.Close()
	var out any
	err := mustClient(t, fastOptions(srv.URL)).Do(t.Context(), http.MethodGet, "/", nil, JSON(&out))
	if err == nil || !strings.Contains(err.Error(), "malformed response") || calls.Load() != 1 {
		t.Fatalf("err = %v after %d calls", err, calls.Load())
	}
}

func TestBackoff(t *testing.T) {
	c := mustClient(t, Options{URL: "http://x", Transport: Transport{Backoff: 100 * time.Millisecond, MaxBackoff: time.Second}})
	for attempt, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 6: time.Second} {
		for range 20 {
			d := c.backoff(attempt, 0)
			if d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %s, want in [%s, %s]", attempt, d, want/2, want)
			}
		}
	}
	if d := c.backoff(1, time.Hour); d != time.Second {
		t.Errorf("Retry-After not capped: %s", d)
	}
	if d := c.backoff(1, 300*time.Millisecond); d != 300*time.Millisecond {
		t.Errorf("Retry-After not honoured: %s", d)
	}
}

func TestNormalizeURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://localhost:11434", "http://localhost:11434"},
		{"http://localhost:11434/", "http://localhost:11434"},
		{"localhost:11434", "http://localhost:11434"},
		{" http://h:8080/v1/ ", "http://h:8080/v1"},
		{"https://example.org/v1", "https://example.org/v1"},
		{"", ""},
		{"ftp://h", ""},
		{"http://", ""},
		{"http://h/?q=1", ""},
	}
	for _, tc := range tests {
		got, err := NormalizeURL(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("NormalizeURL(%q) = %q, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
