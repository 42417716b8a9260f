// Package modelserver speaks HTTP and JSON to the model servers grimoire can
// use (Ollama and OpenAI-compatible servers): one request with a timeout per
// attempt, retries with backoff on transient failures, and errors that name
// the URL and say what to do. The embedding and chat providers are built on it.
package modelserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults for Options fields left at zero.
const (
	DefaultTimeout     = 2 * time.Minute
	DefaultDialTimeout = 3 * time.Second
	DefaultRetries     = 4
	DefaultBackoff     = 500 * time.Millisecond
	DefaultMaxBackoff  = 8 * time.Second

	// maxBody bounds what is read of a response: a batch of 64 vectors of
	// 4,096 dimensions is about 6 MB of JSON.
	maxBody = 128 << 20
	// maxErrBody bounds what is read of an error response.
	maxErrBody = 64 << 10
)

// Transport is how requests are sent and retried: what a provider's
// configuration may tune. Zero values take the defaults above.
type Transport struct {
	// Timeout bounds one attempt of a request, from connecting to the end of
	// the response body.
	Timeout time.Duration
	// Retries is the number of further attempts after a transient failure
	// (429, 5xx, a timeout, a dropped connection); 0 means DefaultRetries,
	// a negative number none.
	Retries int
	// Backoff is the delay before the first retry; it doubles with each
	// retry up to MaxBackoff, and is jittered so that clients that failed
	// together do not retry together.
	Backoff    time.Duration
	MaxBackoff time.Duration
	// HTTPClient, when set, is used instead of a client built from
	// Options.DialTimeout.
	HTTPClient *http.Client
}

// WithTimeout returns t with Timeout d if t leaves it unset: a provider's
// own default, for the requests it knows to be slow.
func (t Transport) WithTimeout(d time.Duration) Transport {
	if t.Timeout <= 0 {
		t.Timeout = d
	}
	return t
}

// Options configure a Client. Zero values take the defaults above.
type Options struct {
	// URL is the server's base URL; request paths are appended to it. A
	// bare "host:port" gets "http://".
	URL string
	// Server names the kind of server in errors: "ollama", "openai-compatible server".
	Server string
	Transport
	// DialTimeout bounds connecting, so that a server that is not there is
	// reported within seconds rather than after Timeout. It applies only to
	// the client built here, not to HTTPClient.
	DialTimeout time.Duration
	// Header is added to every request (for example Authorization).
	Header http.Header
	// Hints say what the user should do, and are appended to errors.
	Hints Hints
	// Logger is told about retries; nil discards.
	Logger *slog.Logger
}

// Hints are the fixes named in errors, written for the person at the
// terminal: "start it with 'ollama serve', or check [embedding] url".
type Hints struct {
	// Unreachable is given when the server cannot be connected to.
	Unreachable string
	// ModelNotFound is given when the server says the model does not exist.
	ModelNotFound string
	// Unauthorized is given on 401 and 403.
	Unauthorized string
	// NotFound is given on a 404 that is not about the model: usually a
	// wrong URL, or a server too old for the endpoint.
	NotFound string
}

// Client calls one model server. It is safe for concurrent use.
type Client struct {
	base string
	hc   *http.Client
	o    Options
	log  *slog.Logger
	// contacted is set once the server has answered anything: from then on
	// a refused connection means it is restarting (transient), whereas
	// before it means there is no server (reported at once).
	contacted atomic.Bool
}

// New returns a client for o.URL. It does not contact the server.
func New(o Options) (*Client, error) {
	base, err := NormalizeURL(o.URL)
	if err != nil {
		return nil, err
	}
	if o.Server == "" {
		o.Server = "model server"
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.Retries == 0 {
		o.Retries = DefaultRetries
	} else if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.MaxBackoff < o.Backoff {
		o.MaxBackoff = o.Backoff
	}
	hc := o.HTTPClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		d := &net.Dialer{Timeout: o.DialTimeout, KeepAlive: 30 * time.Second}
		tr.DialContext = d.DialContext
		// Contexts are written by several workers at once against one
		// host; the default of 2 idle connections would redial for each.
		tr.MaxIdleConnsPerHost = 16
		hc = &http.Client{Transport: tr}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Client{base: base, hc: hc, o: o, log: log}, nil
}

// NormalizeURL checks a base URL and returns it without a trailing slash.
// "localhost:11434" (as OLLAMA_HOST is often written) becomes
// "http://localhost:11434".
func NormalizeURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", errors.New("no server url configured")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("server url %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("server url %q: scheme must be http or https", raw)
	}
	if u.Host == "" {
		return "", fmt.Errorf("server url %q: no host", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("server url %q: must not have a query or fragment", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// BaseURL returns the server's base URL, as used in errors.
func (c *Client) BaseURL() string { return c.base }

// Decoder parses a successful response body. Its error is permanent: the
// body was read in full, so asking again would return the same.
type Decoder func(body []byte, contentType string) error

// JSON returns a Decoder that unmarshals the body into out.
func JSON(out any) Decoder {
	return func(body []byte, _ string) error {
		if err := json.Unmarshal(body, out); err != nil {
			return fmt.Errorf("malformed response: %w", err)
		}
		return nil
	}
}

// Do sends a request with in (if not nil) as its JSON body and hands the body
// of a 2xx response to decode (if not nil). Transient failures are retried;
// every other failure is returned at once as an *Error. Cancelling ctx stops
// the request and any wait between attempts, and returns ctx's error.
func (c *Client) Do(ctx context.Context, method, path string, in any, decode Decoder) error {
	var body []byte
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = b
	}
	u := c.base + path
	for attempt := 1; ; attempt++ {
		e, retryAfter := c.once(ctx, method, u, body, decode)
		if e == nil {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s %s: %w", method, u, err)
		}
		e.Attempts = attempt
		if !e.transient || attempt > c.o.Retries {
			if e.transient && e.dial {
				// A server that answered before and now drops every
				// connection has gone away; say so and how to bring it back.
				e.Kind, e.Hint = ErrUnreachable, c.o.Hints.Unreachable
			}
			return e
		}
		wait := c.backoff(attempt, retryAfter)
		c.log.Warn("model server request failed; retrying",
			"url", u, "attempt", attempt, "wait", wait, "err", e.short())
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s %s: %w", method, u, ctx.Err())
		case <-t.C:
		}
	}
}

// backoff returns the wait before retry number attempt (from 1): Backoff
// doubled per attempt, capped, with "equal jitter" (half fixed, half random)
// so that the wait still grows. A server's Retry-After is honoured up to
// MaxBackoff.
func (c *Client) backoff(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, c.o.MaxBackoff)
	}
	d := c.o.Backoff
	for i := 1; i < attempt && d < c.o.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, c.o.MaxBackoff)
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(d-half)+1))
}

// once makes one attempt. It returns nil on success, or the classified
// failure and the server's Retry-After.
func (c *Client) once(ctx context.Context, method, u string, body []byte, decode Decoder) (*Error, time.Duration) {
	actx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(actx, method, u, rd)
	if err != nil {
		return c.newError(method, u, 0, err.Error(), err, nil, false), 0
	}
	for k, vs := range c.o.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.transportError(ctx, method, u, err), 0
	}
	defer resp.Body.Close()
	c.contacted.Store(true)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrBody))
		msg, code := ParseErrorBody(b)
		return c.statusError(method, u, resp.StatusCode, msg, code), retryAfter(resp.Header.Get("Retry-After"))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		// The connection broke or the attempt timed out mid-body.
		return c.transportError(ctx, method, u, err), 0
	}
	if len(b) > maxBody {
		return c.newError(method, u, resp.StatusCode, fmt.Sprintf("response larger than %d MiB", maxBody>>20), nil, nil, false), 0
	}
	if decode != nil {
		if err := decode(b, resp.Header.Get("Content-Type")); err != nil {
			return c.newError(method, u, resp.StatusCode, err.Error(), err, nil, false), 0
		}
	}
	return nil, 0
}

func (c *Client) newError(method, u string, status int, msg string, cause, kind error, transient bool) *Error {
	return &Error{
		Server: c.o.Server, Base: c.base, Method: method, URL: u,
		Status: status, Message: msg, Err: cause, Kind: kind, transient: transient,
	}
}

// transportError classifies a failure to get a response. Before the server
// has ever answered, a failure to connect means nothing is listening there:
// it is reported at once, since retrying for seconds would only delay the fix.
func (c *Client) transportError(ctx context.Context, method, u string, err error) *Error {
	e := c.newError(method, u, 0, "", err, nil, true)
	if ctx.Err() != nil {
		e.transient = false
		return e
	}
	var op *net.OpError
	dial := errors.As(err, &op) && op.Op == "dial"
	var dns *net.DNSError
	if errors.As(err, &dns) {
		dial = true
	}
	e.dial = dial
	switch {
	case dial && !c.contacted.Load():
		e.Kind, e.Hint, e.transient = ErrUnreachable, c.o.Hints.Unreachable, false
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		e.Message = fmt.Sprintf("no answer within %s", c.o.Timeout)
	default:
		var ue *url.Error
		if errors.As(err, &ue) && !dial && !isNetError(ue.Err) && !errors.Is(ue.Err, io.EOF) && !errors.Is(ue.Err, io.ErrUnexpectedEOF) {
			// A bad URL, an unsupported scheme, a TLS failure: asking
			// again gives the same answer.
			e.transient = false
		}
	}
	return e
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func isNetError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}

// statusError classifies an error response by its status and the server's
// message. The message wins over the status: Ollama and llama.cpp answer an
// over-long input with a 500, which must not be retried.
func (c *Client) statusError(method, u string, status int, msg, code string) *Error {
	e := c.newError(method, u, status, msg, nil, nil, false)
	switch {
	case IsTooLong(msg, code):
		e.Kind = ErrTooLong
		e.Limit = TooLongLimit(msg)
	case IsModelNotFound(status, msg, code):
		e.Kind, e.Hint = ErrModelNotFound, c.o.Hints.ModelNotFound
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind, e.Hint = ErrUnauthorized, c.o.Hints.Unauthorized
	case status == http.StatusNotFound:
		e.Hint = c.o.Hints.NotFound
	case status == http.StatusRequestTimeout || status == http.StatusTooEarly || status == http.StatusTooManyRequests:
		e.transient = true
	case status >= 500:
		// A model that cannot load for lack of memory fails the same way
		// every time.
		e.transient = !strings.Contains(strings.ToLower(msg), "memory")
	}
	return e
}

// retryAfter parses a Retry-After header: seconds or an HTTP date.
func retryAfter(h string) time.Duration {
	if h == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(h)); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// Hints returns the hints c's errors give.
func (c *Client) Hints() Hints { return c.o.Hints }

// WithHints returns a client like c (sharing its connections and what it
// knows of the server) whose errors give hints h; for hints that depend on
// what the server said first, such as the models it has.
func (c *Client) WithHints(h Hints) *Client {
	o := c.o
	o.Hints = h
	n := &Client{base: c.base, hc: c.hc, o: o, log: c.log}
	n.contacted.Store(c.contacted.Load())
	return n
}
