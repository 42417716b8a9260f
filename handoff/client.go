package handoff

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
)

// helloTimeout bounds how long the writer may take to acknowledge a
// request: it answers from a goroutine of its own at once, whatever it is
// busy with, so a writer silent this long is stuck.
const helloTimeout = 10 * time.Second

// Ask hands req to the writer h (as index.ReadLockHolder reads it) and
// waits for the outcome, calling on with each state and progress event.
// It returns the writer's result and its error, either or both.
//
// It fails with ErrNotTaking, before anything was asked, when h takes no
// requests. A writer that stops before it answers (a crash, kill -9, a
// stop) or does not acknowledge the request is an error that says so, never
// a wait without end. When ctx ends, the writer is told by the connection
// closing, and stops the work where a command would on Ctrl-C.
func Ask(ctx context.Context, h index.LockHolder, req Request, on func(Event)) (json.RawMessage, error) {
	if h.Requests == "" {
		return nil, ErrNotTaking
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", h.Requests)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %v", ErrNotTaking, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	b, _ := json.Marshal(req)
	conn.SetDeadline(time.Now().Add(helloTimeout))
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return nil, gone(ctx, h)
	}
	if on != nil {
		on(Event{State: Sent})
	}
	dec := json.NewDecoder(bufio.NewReader(conn))
	first := true
	for {
		var ev Event
		if err := dec.Decode(&ev); err != nil {
			if first && isTimeout(err) {
				return nil, (&fault.Error{Code: fault.Conflict, Msg: fmt.Sprintf("%s does not answer requests", who(h))}).
					WithHint(fmt.Sprintf("it may be stuck: stop it (kill %d) and run the command again", h.PID))
			}
			return nil, gone(ctx, h)
		}
		if first {
			first = false
			// Acknowledged: from now on the work may take as long as it
			// takes, and the requester waits for it.
			conn.SetDeadline(time.Time{})
		}
		if ev.Final {
			return ev.Result, ev.Error.Err()
		}
		if on != nil {
			on(ev)
		}
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// gone is the error of a writer that stopped before it answered (its
// connection closed or was reset), or ctx's when the requester itself gave
// up.
func gone(ctx context.Context, h index.LockHolder) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return Unfinished(h.Command, h.PID)
}

// Unfinished is the error of a request that the writer, command with pid,
// stopped before it finished.
func Unfinished(command string, pid int) error {
	return (&fault.Error{Code: fault.Internal, Msg: fmt.Sprintf("%s (pid %d) stopped before it finished the request", command, pid)}).
		WithHint("what it did is kept; run the command again")
}

// who names the writer for messages.
func who(h index.LockHolder) string {
	return fmt.Sprintf("%s (pid %d)", h.Command, h.PID)
}

// strictJSON decodes b into v, refusing unknown fields.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
