// Package handoff carries a command to the process that holds the index's
// writer lock. That writer listens on a local socket, which its lock file
// names; a command that finds the lock taken sends its request there and
// waits, while the writer does the work, for the result.
//
// A socket rather than a table in the index: the requester never writes
// the index (one writer per index stays true), and the connection itself
// tells each side when the other is gone, kill -9 included, so nothing is
// left behind to expire.
package handoff

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/grimoire-search/grimoire/fault"
)

// Version is the protocol's version, sent with each request. A writer
// refuses a request of another version, and an operation it does not know.
const Version = 1

// Request is what a command asks of the writer: the operation and its
// arguments, as the two sides agree on them.
type Request struct {
	Version int             `json:"v"`
	Op      string          `json:"op"`
	Args    json.RawMessage `json:"args,omitempty"`
}

// NewRequest returns the request for op with args, encoded.
func NewRequest(op string, args any) (Request, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return Request{}, fmt.Errorf("encode the request %s: %w", op, err)
	}
	return Request{Version: Version, Op: op, Args: b}, nil
}

// Decode decodes the request's arguments into v, refusing fields it does
// not know: a requester that means more than this writer understands is
// told so rather than half obeyed.
func (r Request) Decode(v any) error {
	if len(r.Args) == 0 {
		return nil
	}
	if err := strictJSON(r.Args, v); err != nil {
		return (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("the running writer cannot read the request %s: %v", r.Op, err)}).
			WithHint("it is another version of grimoire: restart it with this one")
	}
	return nil
}

// States a request goes through, as the requester hears them.
const (
	// Sent: the request is on its way; Ask says so itself, before the
	// writer has answered.
	Sent = "sent"
	// Queued: the writer has the request and will run it between its
	// batches.
	Queued = "queued"
	// Working: the writer runs it.
	Working = "working"
)

// Event is what the writer tells the requester: a state, progress, and at
// last the outcome.
type Event struct {
	State    string    `json:"state,omitempty"`
	Progress *Progress `json:"progress,omitempty"`

	// Final marks the last event, which carries the result and the error,
	// either or both (a sync cut short reports its counters and why).
	Final  bool            `json:"final,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Failure        `json:"error,omitempty"`
}

// Progress is how far the work is, as a command's progress line shows it:
// the step, its measure (done of total; total 0: none), the count as
// words ("book 3/12") and what is under way; OwnPace when the work gives
// its own estimate of the time left, Left (0: none yet).
type Progress struct {
	Label   string        `json:"label"`
	Done    int64         `json:"done"`
	Total   int64         `json:"total"`
	Count   string        `json:"count,omitempty"`
	Now     string        `json:"now,omitempty"`
	OwnPace bool          `json:"own_pace,omitempty"`
	Left    time.Duration `json:"left_ns,omitempty"`
}

// Failure is an error as it travels: the code that sets the exit status,
// and the text the command prints.
type Failure struct {
	Code fault.Code `json:"code"`
	Text string     `json:"text"`
}

func failureOf(err error) *Failure {
	if err == nil {
		return nil
	}
	return &Failure{Code: fault.CodeOf(err), Text: err.Error()}
}

// Err is the error the requester returns: it prints as the writer's error
// did and has its code.
func (f *Failure) Err() error {
	if f == nil {
		return nil
	}
	return &fault.Error{Code: f.Code, Msg: f.Text}
}

// ErrNotTaking is matched by errors.Is when the lock's holder takes no
// requests: it announces no socket (an older grimoire, a rebuild), or
// nothing listens there any more.
var ErrNotTaking = errors.New("the writer takes no requests")

// maxRequest bounds a request line; real ones are a few hundred bytes.
const maxRequest = 1 << 20
