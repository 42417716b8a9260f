package watcher

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock that moves only when told to. Its timers fire
// (deliver on their channel) when the clock is advanced past them.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) timer {
	t := &fakeTimer{c: c, ch: make(chan time.Time, 1)}
	c.mu.Lock()
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	t.Reset(d)
	return t
}

// Advance moves the clock forward by d, firing every timer that falls due.
func (c *fakeClock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// Set moves the clock to t (never backwards), firing due timers in order.
func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
	due := slices.DeleteFunc(slices.Clone(c.timers), func(ft *fakeTimer) bool {
		return !ft.active || ft.at.After(c.now)
	})
	slices.SortFunc(due, func(a, b *fakeTimer) int { return a.at.Compare(b.at) })
	for _, ft := range due {
		ft.fire(c.now)
	}
}

type fakeTimer struct {
	c      *fakeClock
	ch     chan time.Time
	at     time.Time
	active bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

// fire is called with the clock's lock held.
func (t *fakeTimer) fire(now time.Time) {
	t.active = false
	select {
	case t.ch <- now:
	default:
	}
}

func (t *fakeTimer) Reset(d time.Duration) {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drain()
	t.at, t.active = t.c.now.Add(d), true
	if d <= 0 {
		t.fire(t.c.now)
	}
}

func (t *fakeTimer) Stop() {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.active = false
	t.drain()
}

// drain drops an undelivered tick, as Go 1.23 timers do on Stop and Reset.
func (t *fakeTimer) drain() {
	select {
	case <-t.ch:
	default:
	}
}

func TestFakeClockFiresTimersInOrder(t *testing.T) {
	c := newFakeClock()
	a, b := c.NewTimer(2*time.Second), c.NewTimer(time.Second)
	c.Advance(999 * time.Millisecond)
	select {
	case <-a.C():
		t.Fatal("timer a fired early")
	case <-b.C():
		t.Fatal("timer b fired early")
	default:
	}
	c.Advance(time.Millisecond)
	select {
	case <-b.C():
	default:
		t.Fatal("timer b did not fire at its deadline")
	}
	a.Stop()
	c.Advance(time.Hour)
	select {
	case <-a.C():
		t.Fatal("stopped timer fired")
	default:
	}
	a.Reset(0)
	select {
	case <-a.C():
	default:
		t.Fatal("timer reset to zero did not fire at once")
	}
}

func TestRealClockTimer(t *testing.T) {
	var c clock = realClock{}
	tm := c.NewTimer(time.Hour)
	tm.Reset(time.Millisecond)
	select {
	case <-tm.C():
	case <-time.After(5 * time.Second):
		t.Fatal("real timer did not fire")
	}
	tm.Stop()
}
