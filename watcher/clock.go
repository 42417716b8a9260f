package watcher

import "time"

// clock is the watcher's source of time. Production uses the wall clock;
// tests substitute a fake one they advance by hand, so the timing logic is
// exercised without sleeping.
type clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a running timer that fires once, d from now.
	NewTimer(d time.Duration) timer
}

// timer is the part of *time.Timer the watcher uses, with Go 1.23
// semantics: after Stop or Reset returns, no stale tick is received.
type timer interface {
	// C delivers the time once the timer fires.
	C() <-chan time.Time
	// Reset makes the timer fire d from now (at once when d <= 0).
	Reset(d time.Duration)
	// Stop prevents the timer from firing; it is safe on a stopped timer.
	Stop()
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTimer(d time.Duration) timer { return realTimer{time.NewTimer(d)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time { return r.t.C }

func (r realTimer) Reset(d time.Duration) { r.t.Reset(d) }

func (r realTimer) Stop() { r.t.Stop() }
