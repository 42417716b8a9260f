// Package fault is grimoire's error vocabulary: an error a person can act
// on (what failed, why, what to do, at a terminal or through the MCP
// tools) and the Code that decides a command's exit status and whether a
// tool reports a user's mistake or a failure of its own. It knows no
// storage: the index marks its own corruption errors where they leave it.
package fault

import (
	"errors"
	"fmt"
	"strings"
)

// Code classifies an error for the CLI (exit status) and the MCP server
// (tool error versus internal error).
type Code int

const (
	// Internal is a failure of grimoire or its environment.
	Internal Code = iota
	// NotFound means the named book, chapter, section or chunk does not exist.
	NotFound
	// Invalid means the request itself is wrong and retrying will not help.
	Invalid
	// Conflict means another process holds what this one needs (the writer
	// lock), or the index is in a state that forbids the operation (a model
	// mismatch).
	Conflict
	// Damaged means the index file is corrupt: SQLite found pages it cannot
	// read. `grimoire rebuild` recovers.
	Damaged
)

// Error is an error a person can act on: what failed, why, and what to do.
type Error struct {
	Code Code
	// Msg says what failed, naming the file or book.
	Msg string
	// Hint says what the user should do next, at a terminal: it may name
	// grimoire's commands. May be empty.
	Hint string
	// ToolHint, when set, replaces Hint for a model that reaches grimoire
	// through its MCP tools: it names the tools, not the commands.
	ToolHint string
	// Err is the underlying cause; may be nil.
	Err error
}

func (e *Error) Error() string {
	s := e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.Hint != "" {
		s += " — " + e.Hint
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the code, a formatted message and no hint.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// WithHint returns e with its hint set.
func (e *Error) WithHint(hint string) *Error { e.Hint = hint; return e }

// WithHints returns e with its hint for people at a terminal and its hint
// for a model using the MCP tools set.
func (e *Error) WithHints(hint, toolHint string) *Error {
	e.Hint, e.ToolHint = hint, toolHint
	return e
}

// ToolMessage renders err for a model using the MCP tools: as Error does,
// with the ToolHint of the first *Error in its chain in place of its Hint
// where it has one.
func ToolMessage(err error) string {
	s := err.Error()
	var e *Error
	if !errors.As(err, &e) || e.ToolHint == "" {
		return s
	}
	if e.Hint == "" {
		return s + " — " + e.ToolHint
	}
	// Wrapping adds only prefixes, so the hint ends the message.
	if cut, ok := strings.CutSuffix(s, " — "+e.Hint); ok {
		return cut + " — " + e.ToolHint
	}
	return s
}

// CodeOf returns the Code of the first *Error in err's chain, else that
// of the first Coded error, else Internal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var c Coded
	if errors.As(err, &c) {
		return c.FaultCode()
	}
	return Internal
}

// Coded is an error that carries a Code without being an *Error: the
// index marks SQLite's corruption errors so, leaving their text as it is.
type Coded interface {
	error
	FaultCode() Code
}

// ErrNotFound is matched by errors.Is for every NotFound error.
var ErrNotFound = errors.New("not found")

// Is lets errors.Is(err, ErrNotFound) match NotFound errors.
func (e *Error) Is(target error) bool { return target == ErrNotFound && e.Code == NotFound }
