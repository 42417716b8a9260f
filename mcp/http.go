package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/net/netutil"
)

// HTTPOptions guard the streamable HTTP transport. Zero values take the
// defaults below.
type HTTPOptions struct {
	// Token, when set, must come with every request as
	// "Authorization: Bearer <Token>".
	Token string
	// NoAuth lets a server on a non-loopback address run without a token.
	NoAuth bool
	// AllowOrigins are the browser origins (scheme://host[:port]) allowed
	// besides the server's own; every other Origin is refused.
	AllowOrigins []string
	// MaxBodyBytes caps a request body; default 4 MiB.
	MaxBodyBytes int64
	// SessionIdle ends a session when it has had no request and no open
	// event stream for this long; default 30 minutes.
	SessionIdle time.Duration
	// SessionGrace ends sooner, after this long idle, a session that has
	// sent nothing since initialize but its initialized notification;
	// default 1 minute (never more than SessionIdle).
	SessionGrace time.Duration
	// MaxSessions caps the live sessions; default 1,000 (about 12 KB each).
	// When they are all taken, initialize ends the least recently used
	// idle session, one that never sent a request first; it is refused
	// only when every session has a request or a stream open.
	MaxSessions int
	// MaxStreams caps the open event streams (GET) of all sessions, one
	// per session; default, and at most, half of MaxConns, so that
	// requests always find a connection.
	MaxStreams int
	// StreamIdle ends an event stream that has sent nothing for this long;
	// default 5 minutes. The client opens another when it wants one.
	StreamIdle time.Duration
	// ReadHeaderTimeout bounds reading a request's headers (default 10s),
	// ReadTimeout its headers and body (default 30s), and IdleTimeout the
	// wait for the next request on a kept-alive connection (default 2m).
	// None of them cuts an open event stream or a long tool call.
	ReadHeaderTimeout, ReadTimeout, IdleTimeout time.Duration
	// MaxConns caps the open connections; default 256.
	MaxConns int
}

const (
	minTokenLen    = 16
	maxHeaderBytes = 64 << 10
)

func (o HTTPOptions) withDefaults() HTTPOptions {
	set := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = 1000
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 256
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = o.MaxConns / 2
	}
	o.MaxStreams = min(o.MaxStreams, o.MaxConns/2)
	set(&o.SessionIdle, 30*time.Minute)
	set(&o.SessionGrace, time.Minute)
	o.SessionGrace = min(o.SessionGrace, o.SessionIdle)
	set(&o.StreamIdle, 5*time.Minute)
	set(&o.ReadHeaderTimeout, 10*time.Second)
	set(&o.ReadTimeout, 30*time.Second)
	set(&o.IdleTimeout, 2*time.Minute)
	return o
}

// Validate checks what a user can get wrong: the token and the origins.
func (o HTTPOptions) Validate() error {
	if o.Token != "" && o.NoAuth {
		return (&fault.Error{Code: fault.Invalid, Msg: "a bearer token was given and also --no-auth"}).
			WithHint("unset GRIMOIRE_HTTP_TOKEN or drop --no-auth")
	}
	if o.Token != "" && (len(o.Token) < minTokenLen || strings.ContainsAny(o.Token, " \t\r\n")) {
		return (&fault.Error{Code: fault.Invalid, Msg: fmt.Sprintf("the bearer token must be at least %d characters without spaces", minTokenLen)}).
			WithHint("make one with `openssl rand -hex 32`, or leave GRIMOIRE_HTTP_TOKEN unset for grimoire to make one")
	}
	for _, o := range o.AllowOrigins {
		if _, err := parseOrigin(o); err != nil {
			return (&fault.Error{Code: fault.Invalid, Msg: fmt.Sprintf("--allow-origin %q: %v", o, err)}).
				WithHint("give an origin as a browser sends it, like https://app.example or http://localhost:6274")
		}
	}
	return nil
}

// IsLoopback reports whether host (a name or an address, without a port)
// is this machine only: "localhost" or a loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// httpTransport is mcp-go's streamable HTTP server behind our guard.
type httpTransport struct {
	inner    *server.StreamableHTTPServer
	sessions *sessionStore
	handler  http.Handler
}

func (s *Server) newHTTPTransport(ctx context.Context, o HTTPOptions) (*httpTransport, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	t := &httpTransport{sessions: newSessionStore(o, s.log)}
	opts := []server.StreamableHTTPOption{
		server.WithStreamableHTTPLogger(s.log),
		server.WithSessionIdManagerResolver(sessionResolver{t.sessions}),
	}
	g := &guard{log: s.log, maxBody: o.MaxBodyBytes, streamIdle: o.StreamIdle, sessions: t.sessions, origins: map[string]bool{}}
	if o.Token != "" {
		g.setToken(o.Token)
	}
	if len(o.AllowOrigins) > 0 {
		var list []string
		for _, raw := range o.AllowOrigins {
			origin, _ := parseOrigin(raw)
			g.origins[origin] = true
			list = append(list, origin)
		}
		g.cors = true
		opts = append(opts, server.WithStreamableHTTPCORS(
			server.WithCORSAllowedOrigins(list...),
			server.WithCORSAllowedHeaders("Content-Type", "Authorization", server.HeaderKeySessionID, server.HeaderKeyProtocolVersion, "Last-Event-ID"),
			server.WithCORSExposedHeaders(server.HeaderKeySessionID, "WWW-Authenticate"),
		))
	}
	t.inner = server.NewStreamableHTTPServer(s.mcp, opts...)
	t.sessions.free = t.freeSession
	g.next = t.inner
	t.handler = g
	go t.sessions.run(ctx)
	return t, nil
}

// freeSession has mcp-go drop what it keeps for a session we forgot: it
// frees that state only when a client sends DELETE, so we send it one.
func (t *httpTransport) freeSession(id string) {
	t.inner.Handle(discardResponse{}, &server.HTTPRequest{
		Method:  http.MethodDelete,
		Header:  http.Header{server.HeaderKeySessionID: {id}},
		Context: context.Background(),
	})
}

// discardResponse is a response nobody reads.
type discardResponse struct{}

func (discardResponse) Header() http.Header         { return http.Header{} }
func (discardResponse) WriteHeader(int)             {}
func (discardResponse) Write(p []byte) (int, error) { return len(p), nil }
func (discardResponse) Flush()                      {}
func (discardResponse) CanStream() bool             { return false }

// Handler returns the guarded streamable HTTP handler, to be mounted at
// /mcp; idle sessions are swept until ctx is done.
func (s *Server) Handler(ctx context.Context) (http.Handler, error) {
	t, err := s.newHTTPTransport(ctx, s.opts.HTTP)
	if err != nil {
		return nil, err
	}
	return t.handler, nil
}

// ServeHTTP serves streamable HTTP at addr under /mcp until ctx is done.
// ready, when set, is called with the address actually bound. A server on
// an address other than loopback needs a token, unless NoAuth says not to.
func (s *Server) ServeHTTP(ctx context.Context, addr string, ready func(net.Addr)) error {
	o := s.opts.HTTP.withDefaults()
	if err := o.Validate(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !IsLoopback(host) && o.Token == "" && !o.NoAuth {
		ln.Close()
		return (&fault.Error{Code: fault.Invalid, Msg: fmt.Sprintf("%s is reachable from other machines and no bearer token is set", addr)}).
			WithHint("set GRIMOIRE_HTTP_TOKEN, or pass --no-auth to let anyone who can reach it read the library")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t, err := s.newHTTPTransport(ctx, o)
	if err != nil {
		ln.Close()
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", t.handler)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		// ReadTimeout covers headers and body: net/http lifts the deadline
		// once the body is read, so event streams and long tool calls
		// stay open. There is no WriteTimeout for the same reason.
		ReadTimeout:    o.ReadTimeout,
		IdleTimeout:    o.IdleTimeout,
		MaxHeaderBytes: maxHeaderBytes,
		ErrorLog:       slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(netutil.LimitListener(ln, o.MaxConns)) }()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		// Open event streams only end when their sessions do.
		t.inner.CloseSessions(shutdown)
		if err := srv.Shutdown(shutdown); err != nil {
			srv.Close()
		}
		return nil
	}
}
