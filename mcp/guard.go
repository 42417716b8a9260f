package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// guard checks every request before mcp-go sees it, cheapest and most
// telling first: who is asking (origin, token), how (method, media
// types), then how much (the body, read only up to its cap) and within
// which session. mcp-go reads a body whole before any check of its own.
type guard struct {
	next    http.Handler
	log     *slog.Logger
	maxBody int64
	// streamIdle ends an event stream that sent nothing for so long.
	streamIdle time.Duration
	sessions   *sessionStore
	// origins are the allowed foreign origins, normalized; cors says
	// mcp-go answers their preflight requests.
	origins map[string]bool
	cors    bool
	// tokenSum is the SHA-256 of the bearer token, when one is required:
	// comparing digests takes the same time whatever the token's length.
	tokenSum *[sha256.Size]byte
}

func (g *guard) setToken(token string) {
	sum := sha256.Sum256([]byte(token))
	g.tokenSum = &sum
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin, r) {
		g.refuse(w, r, http.StatusForbidden, "origin "+origin+" may not use this server",
			"web pages from other sites cannot read the library; to allow this one, start grimoire serve with --allow-origin "+origin)
		return
	}
	if r.Method == http.MethodOptions && g.cors && r.Header.Get("Access-Control-Request-Method") != "" {
		g.next.ServeHTTP(w, r) // a preflight from an allowed origin
		return
	}
	if !g.authorized(r) {
		challenge := `Bearer realm="grimoire"`
		if r.Header.Get("Authorization") != "" {
			challenge += `, error="invalid_token"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		g.refuse(w, r, http.StatusUnauthorized, "missing or wrong bearer token",
			`send "Authorization: Bearer <token>" with the token grimoire serve printed at start, or the one in GRIMOIRE_HTTP_TOKEN`)
		return
	}
	switch r.Method {
	case http.MethodPost:
		g.post(w, r)
	case http.MethodGet:
		g.get(w, r)
	case http.MethodDelete:
		g.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		g.refuse(w, r, http.StatusMethodNotAllowed, r.Method+" is not part of MCP's streamable HTTP", "use POST, GET or DELETE")
	}
}

func (g *guard) post(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		g.refuse(w, r, http.StatusUnsupportedMediaType, "the request body must be application/json", "send JSON-RPC messages with Content-Type: application/json")
		return
	}
	if !accepts(r.Header.Get("Accept"), "application/json", "text/event-stream") {
		g.refuse(w, r, http.StatusNotAcceptable, "the client accepts neither application/json nor text/event-stream", "send Accept: application/json, text/event-stream")
		return
	}
	if r.ContentLength > g.maxBody {
		g.tooLarge(w, r)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			g.tooLarge(w, r)
		case errors.Is(err, os.ErrDeadlineExceeded):
			g.refuse(w, r, http.StatusRequestTimeout, "the request body came too slowly", "")
		default:
			g.refuse(w, r, http.StatusBadRequest, "reading the request body: "+err.Error(), "")
		}
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))

	// Decide as mcp-go will: protocol versions from 2026-07-28 have no
	// sessions; before, initialize opens one and every other request
	// names it. A body that is not JSON is mcp-go's to answer.
	var msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &msg) != nil || modernRequest(r.Header, body) {
		g.next.ServeHTTP(w, r)
		return
	}
	id := r.Header.Get(server.HeaderKeySessionID)
	switch {
	case msg.Method == string(mcpgo.MethodInitialize):
		g.initialize(w, r)
	case id != "":
		if !g.sessions.begin(id, msg.Method != string(mcpgo.MethodNotificationInitialized)) {
			g.unknownSession(w, r)
			return
		}
		defer g.sessions.end(id)
		g.next.ServeHTTP(w, r)
	case msg.Method == "":
		// A client's reply to the server (a ping's, say): mcp-go checks it.
		g.next.ServeHTTP(w, r)
	default:
		g.noSession(w, r)
	}
}

// initialize opens a session when there is room for one, or an idle one
// to end. mcp-go names the
// session through the sessionResolver, which hands it the id reserved here.
func (g *guard) initialize(w http.ResponseWriter, r *http.Request) {
	id, retry, ok := g.sessions.reserve()
	if !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(retry.Seconds())))
		g.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("too many open sessions (%d), all at work", g.sessions.max),
			fmt.Sprintf("close clients that are done (they end their session with DELETE) or try again in %d s", int(retry.Seconds())))
		return
	}
	defer func() {
		if w.Header().Get(server.HeaderKeySessionID) != id {
			// The client never learnt the id: nobody can use the session.
			g.sessions.drop(id)
			return
		}
		g.sessions.end(id)
	}()
	g.next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), reservedSession{}, id)))
}

// get opens the event stream of a session, one per session and up to the
// store's cap in all, so that streams never hold every connection. The
// session is busy, and so never idle, while its stream is open; a stream
// that sends nothing for streamIdle is ended, which MCP allows at any
// time: a client that wants one opens another.
func (g *guard) get(w http.ResponseWriter, r *http.Request) {
	if mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) {
		g.next.ServeHTTP(w, r) // mcp-go says the stream is gone in this version
		return
	}
	if !accepts(r.Header.Get("Accept"), "text/event-stream") {
		g.refuse(w, r, http.StatusNotAcceptable, "an event stream needs Accept: text/event-stream", "")
		return
	}
	id := r.Header.Get(server.HeaderKeySessionID)
	if id == "" {
		g.noSession(w, r)
		return
	}
	switch g.sessions.beginStream(id) {
	case streamNoSession:
		g.unknownSession(w, r)
		return
	case streamHasOne:
		// A refused stream should not keep its connection either.
		w.Header().Set("Connection", "close")
		g.refuse(w, r, http.StatusConflict, "this session already has an open event stream",
			"a session gets one; close the other before opening a new one")
		return
	case streamsExhausted:
		w.Header().Set("Connection", "close")
		w.Header().Set("Retry-After", strconv.Itoa(int(max(g.streamIdle.Round(time.Second), time.Second).Seconds())))
		g.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("too many open event streams (%d)", g.sessions.maxStreams),
			"requests still work without one; try again later")
		return
	}
	defer g.sessions.endStream(id)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	sw := &streamWriter{ResponseWriter: w, sent: make(chan struct{}, 1)}
	go g.endIdleStream(ctx, cancel, sw.sent)
	g.next.ServeHTTP(sw, r.WithContext(ctx))
}

// endIdleStream cancels a stream when nothing comes on sent for streamIdle;
// mcp-go ends the stream when its request's context is done.
func (g *guard) endIdleStream(ctx context.Context, cancel context.CancelFunc, sent <-chan struct{}) {
	timer := time.NewTimer(g.streamIdle)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sent:
			timer.Reset(g.streamIdle)
		case <-timer.C:
			g.log.Debug("ended an idle event stream", "after", g.streamIdle)
			cancel()
			return
		}
	}
}

// streamWriter tells, on sent, each time an event stream writes.
type streamWriter struct {
	http.ResponseWriter
	sent chan struct{}
}

func (w *streamWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	select {
	case w.sent <- struct{}{}:
	default: // a signal is already pending
	}
	return n, err
}

// Flush makes the stream's events go out at once; mcp-go streams only
// through a writer that can.
func (w *streamWriter) Flush() {
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (g *guard) delete(w http.ResponseWriter, r *http.Request) {
	if mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) {
		g.next.ServeHTTP(w, r)
		return
	}
	g.inSession(w, r)
}

func (g *guard) inSession(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(server.HeaderKeySessionID)
	if id == "" {
		g.noSession(w, r)
		return
	}
	if !g.sessions.begin(id, true) {
		g.unknownSession(w, r)
		return
	}
	defer g.sessions.end(id)
	g.next.ServeHTTP(w, r)
}

func (g *guard) noSession(w http.ResponseWriter, r *http.Request) {
	g.refuse(w, r, http.StatusBadRequest, "no "+server.HeaderKeySessionID+" header", "send initialize first, then its session id with every request")
}

func (g *guard) unknownSession(w http.ResponseWriter, r *http.Request) {
	// 404 is how MCP tells a client to start a new session.
	g.refuse(w, r, http.StatusNotFound, "unknown or expired session", "send initialize to start a new one")
}

func (g *guard) tooLarge(w http.ResponseWriter, r *http.Request) {
	size := fmt.Sprintf("%d bytes", g.maxBody)
	if g.maxBody%(1<<20) == 0 {
		size = fmt.Sprintf("%d MiB", g.maxBody>>20)
	}
	g.refuse(w, r, http.StatusRequestEntityTooLarge, "the request body is over "+size, "MCP messages are small; send less at once")
}

func (g *guard) refuse(w http.ResponseWriter, r *http.Request, status int, msg, hint string) {
	g.log.Info("refused an HTTP request", "status", status, "method", r.Method, "remote", r.RemoteAddr, "reason", msg)
	if hint != "" {
		msg += " — " + hint
	}
	http.Error(w, "grimoire: "+msg, status)
}

func (g *guard) authorized(r *http.Request) bool {
	if g.tokenSum == nil {
		return true
	}
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(sum[:], g.tokenSum[:]) == 1
}

// originAllowed admits the origins listed with --allow-origin and the
// server's own: http on the port the request came in on, at the address it
// came in on, or, when it came over loopback, at any loopback name. A page
// on another host, or at another port of this one, is someone else's.
func (g *guard) originAllowed(raw string, r *http.Request) bool {
	origin, err := parseOrigin(raw)
	if err != nil {
		return false
	}
	if g.origins[origin] {
		return true
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	return ownOrigin(origin, local.String())
}

func ownOrigin(origin, local string) bool {
	localAddr, err := netip.ParseAddrPort(local)
	if err != nil {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" {
		return false
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	if port != strconv.Itoa(int(localAddr.Port())) {
		return false
	}
	host := u.Hostname()
	localIP := localAddr.Addr().Unmap().WithZone("")
	if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap().WithZone("") == localIP {
		return true
	}
	return localIP.IsLoopback() && IsLoopback(host)
}

// parseOrigin returns an origin as browsers send it: lower-case
// scheme://host, with the port unless it is the scheme's default.
func parseOrigin(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", errors.New("not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", errors.New("the scheme must be http or https")
	case u.Host == "" || u.Hostname() == "":
		return "", errors.New("no host")
	case strings.Contains(u.Hostname(), "%"):
		return "", errors.New("an origin has no IPv6 zone")
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || (u.Path != "" && u.Path != "/"):
		return "", errors.New("an origin has no path, query or user")
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if _, err := strconv.ParseUint(port, 10, 16); port != "" && err != nil {
		return "", errors.New("bad port")
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		return scheme + "://" + host, nil
	}
	return scheme + "://" + host + ":" + port, nil
}

// accepts reports whether an Accept header admits at least one of types;
// a client that sends none takes anything.
func accepts(header string, types ...string) bool {
	if strings.TrimSpace(header) == "" {
		return true
	}
	for part := range strings.SplitSeq(header, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		for _, t := range types {
			major, _, _ := strings.Cut(t, "/")
			if mt == "*/*" || mt == t || mt == major+"/*" {
				return true
			}
		}
	}
	return false
}

// modernRequest tells, as mcp-go does, whether a request speaks a protocol
// version without sessions (2026-07-28 or later), by its header or by the
// version in its _meta.
func modernRequest(h http.Header, body []byte) bool {
	if mcpgo.IsModernProtocol(h.Get(mcpgo.HeaderProtocolVersion)) {
		return true
	}
	var wrapper struct {
		Params struct {
			Meta *mcpgo.Meta `json:"_meta"`
		} `json:"params"`
	}
	return json.Unmarshal(body, &wrapper) == nil && mcpgo.IsModernProtocol(wrapper.Params.Meta.ProtocolVersion())
}
