package modelserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/grimoire-search/grimoire/fault"
)

// Kinds of failure a caller acts on; match them with errors.Is. Those that
// only the user can fix, by starting the server, pulling the model or
// setting the key, are fault.Invalid, like any other mistake in the
// configuration. An *Error unwraps to its kind, so fault.CodeOf finds the
// code, which chooses the CLI's exit status and MCP's tool errors.
var (
	// ErrUnreachable: nothing answers at the server's URL. It is not retried
	// when it happens before the server has ever answered.
	ErrUnreachable error = fault.Errorf(fault.Invalid, "model server not reachable")
	// ErrModelNotFound: the server does not have the model.
	ErrModelNotFound error = fault.Errorf(fault.Invalid, "model not found")
	// ErrTooLong: an input is longer than the model's context. The server
	// refused it rather than cutting it. It has no code: it concerns one
	// text, which the caller splits or skips.
	ErrTooLong = errors.New("input longer than the model's context")
	// ErrUnauthorized: the server wants an API key, or another one.
	ErrUnauthorized error = fault.Errorf(fault.Invalid, "not authorized")
	// ErrNoModel: no model is configured, and the server does not say
	// which one to use (it lists none, or several).
	ErrNoModel error = fault.Errorf(fault.Invalid, "no model set")
)

// Error is a request that failed, with what the server said and what to do.
type Error struct {
	// Server is the kind of server ("ollama"), Base its base URL.
	Server, Base string
	// Method and URL are the request's.
	Method, URL string
	// Status is the HTTP status, or 0 when there was no response.
	Status int
	// Message is the server's own error message, or what went wrong.
	Message string
	// Hint says what to do next; may be empty.
	Hint string
	// Kind is what errors.Is matches: one of the Err* kinds above, a
	// provider's own kind, or nil.
	Kind error
	// Limit is the model's context in tokens when the server named it in a
	// too-long error; else 0.
	Limit int
	// Attempts is how many times the request was sent.
	Attempts int
	// Err is the underlying cause, if any.
	Err error

	transient bool
	dial      bool // failed to connect
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Kind == ErrUnreachable {
		fmt.Fprintf(&b, "%s at %s is not reachable", e.Server, e.Base)
		if cause := e.Err; cause != nil {
			// The request URL is in the message already.
			var ue *url.Error
			if errors.As(cause, &ue) {
				cause = ue.Err
			}
			fmt.Fprintf(&b, " (%v)", cause)
		}
	} else {
		b.WriteString(e.short())
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (gave up after %d attempts)", e.Attempts)
	}
	if e.Hint != "" {
		b.WriteString(" — ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// short is the error without attempts and hint, for retry logs.
func (e *Error) short() string {
	var b strings.Builder
	if e.Method == "" {
		fmt.Fprintf(&b, "%s at %s", e.Server, e.Base)
	} else {
		fmt.Fprintf(&b, "%s: %s %s", e.Server, e.Method, e.URL)
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, ": %d %s", e.Status, http.StatusText(e.Status))
	}
	switch {
	case e.Message != "":
		b.WriteString(": ")
		b.WriteString(e.Message)
	case e.Err != nil:
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the error's Kind and its underlying cause, those that are
// set: errors.Is matches the Kind, and fault.CodeOf finds its code.
func (e *Error) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.Kind, e.Err} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// NewError returns an *Error of a kind, for failures a provider finds itself
// (a model missing from a list, a response of the wrong shape).
func NewError(c *Client, kind error, msg, hint string) *Error {
	return &Error{Server: c.o.Server, Base: c.base, URL: c.base, Message: msg, Hint: hint, Kind: kind}
}

// maxMessage bounds the server message kept in an error: an HTML error page
// from a proxy is not worth printing in full.
const maxMessage = 300

// ParseErrorBody extracts the message (and the error code, if any) from an
// error response. Servers differ: Ollama sends {"error": "..."}, OpenAI and
// llama.cpp {"error": {"message": "...", "code": ...}}, vLLM {"message": ...},
// TEI {"error": "...", "error_type": ...}, FastAPI {"detail": ...}; anything
// else is kept as trimmed text.
func ParseErrorBody(b []byte) (msg, code string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Code    json.RawMessage `json:"code"`
		Type    json.RawMessage `json:"error_type"`
	}
	if json.Unmarshal(b, &v) == nil {
		if s, ok := jsonString(v.Error); ok {
			return clip(s), jsonScalar(v.Type)
		}
		var inner struct {
			Message json.RawMessage `json:"message"`
			Code    json.RawMessage `json:"code"`
			Type    json.RawMessage `json:"type"`
		}
		if len(v.Error) > 0 && json.Unmarshal(v.Error, &inner) == nil {
			if s, ok := jsonString(inner.Message); ok {
				c := jsonScalar(inner.Code)
				if c == "" {
					c = jsonScalar(inner.Type)
				}
				return clip(s), c
			}
		}
		if s, ok := jsonString(v.Message); ok {
			return clip(s), jsonScalar(v.Code)
		}
		if s, ok := jsonString(v.Detail); ok {
			return clip(s), ""
		}
		if len(v.Detail) > 0 && string(v.Detail) != "null" {
			return clip(string(v.Detail)), ""
		}
	}
	return clip(strings.Join(strings.Fields(string(b)), " ")), ""
}

func jsonString(r json.RawMessage) (string, bool) {
	var s string
	if len(r) == 0 || json.Unmarshal(r, &s) != nil {
		return "", false
	}
	return s, true
}

// jsonScalar renders a string or number code; anything else is "".
func jsonScalar(r json.RawMessage) string {
	if s, ok := jsonString(r); ok {
		return s
	}
	var f float64
	if len(r) > 0 && json.Unmarshal(r, &f) == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return ""
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// tooLong matches the ways servers say an input does not fit: Ollama ("the
// input length exceeds the context length", "input length exceeds maximum
// context length"), OpenAI and vLLM ("maximum context length is 512
// tokens"), TEI ("must have less than 512 tokens"), llama.cpp ("input is too
// large to process", "the request exceeds the available context size"), LM
// Studio ("loaded with context length of only 4096 tokens").
var tooLong = regexp.MustCompile(`(?i)exceeds? (?:the )?(?:maximum |model'?s? |available )?(?:context|sequence|input) (?:length|size|window)` +
	`|maximum (?:context|sequence|input) length is \d+` +
	`|must have less than \d+ tokens` +
	`|too large to process` +
	`|input (?:is )?too long` +
	`|context (?:length|size|window) of only \d+` +
	`|context.length.exceeded`)

// tooLongLimits pull the model's limit out of such messages.
var tooLongLimits = []*regexp.Regexp{
	regexp.MustCompile(`(?i)maximum (?:context|sequence|input) length is (\d+)`),
	regexp.MustCompile(`(?i)less than (\d+) tokens`),
	regexp.MustCompile(`(?i)current batch size:? (\d+)`),
	regexp.MustCompile(`(?i)context (?:length|size|window) (?:of |is )(?:only )?(\d+)`),
}

// IsTooLong reports whether a server's message says an input is longer than
// the model accepts.
func IsTooLong(msg, code string) bool {
	return code == "context_length_exceeded" || tooLong.MatchString(msg)
}

// TooLongLimit returns the token limit a too-long message names, or 0.
func TooLongLimit(msg string) int {
	for _, re := range tooLongLimits {
		if m := re.FindStringSubmatch(msg); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

var modelMissing = regexp.MustCompile("(?i)model\\b.{0,200}\\b(?:not found|does not exist|not exist)")

// IsModelNotFound reports whether an error response says the model does not
// exist: Ollama's `model "x" not found, try pulling it first`, vLLM's "The
// model `x` does not exist", OpenAI's code model_not_found.
func IsModelNotFound(status int, msg, code string) bool {
	if code == "model_not_found" {
		return true
	}
	return (status == http.StatusNotFound || status == http.StatusBadRequest) && modelMissing.MatchString(msg)
}
