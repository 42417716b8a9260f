package doc

import (
	"errors"
	"fmt"
)

// Failure is a parser's error: the message a user reads, the kind of
// failure that callers tell apart with errors.Is (a package's ErrDRM,
// ErrDamaged), and the underlying cause where there is one.
type Failure struct {
	Kind  error
	Msg   string
	Cause error
}

func (e *Failure) Error() string { return e.Msg }

func (e *Failure) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Kind, e.Cause}
	}
	return []error{e.Kind}
}

// Failf returns a Failure of kind whose message is the formatted text; a
// %w verb in format also makes its operand the cause.
func Failf(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Failure{Kind: kind, Msg: err.Error(), Cause: errors.Unwrap(err)}
}
