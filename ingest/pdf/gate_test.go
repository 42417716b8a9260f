package pdf

import (
	"errors"
	"testing"
	"time"
)

// waitAsync runs g.wait in the background and returns its result channel.
func waitAsync(g *gate, page int, stop chan struct{}) chan error {
	ch := make(chan error, 1)
	go func() { ch <- g.wait(page, stop) }()
	return ch
}

func blocked(t *testing.T, ch chan error, what string) {
	t.Helper()
	select {
	case err := <-ch:
		t.Fatalf("%s: returned %v, want it to wait", what, err)
	case <-time.After(20 * time.Millisecond):
	}
}

func done(t *testing.T, ch chan error, what string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: still waiting", what)
		return nil
	}
}

func TestGate(t *testing.T) {
	t.Run("pages clear in order", func(t *testing.T) {
		g, stop := newGate(), make(chan struct{})
		open, page1 := waitAsync(g, -1, stop), waitAsync(g, 1, stop)
		blocked(t, open, "open")
		g.opened()
		if err := done(t, open, "open"); err != nil {
			t.Fatal(err)
		}
		g.cleared(1)
		blocked(t, page1, "page 2 with 1 page cleared")
		g.cleared(2)
		if err := done(t, page1, "page 2"); err != nil || !g.audited() {
			t.Fatalf("err %v, audited %v", err, g.audited())
		}
	})
	t.Run("a refusal reaches every waiter", func(t *testing.T) {
		g, stop := newGate(), make(chan struct{})
		a, b := waitAsync(g, -1, stop), waitAsync(g, 5, stop)
		refusal := errors.New("bomb")
		g.fail(refusal)
		g.finish() // leaves the refusal in place
		for _, ch := range []chan error{a, b} {
			if err := done(t, ch, "waiter"); err != refusal {
				t.Errorf("err = %v", err)
			}
		}
		select {
		case <-g.refused():
		default:
			t.Error("refused not closed")
		}
		if g.reason() != refusal {
			t.Errorf("reason = %v", g.reason())
		}
	})
	t.Run("nothing to audit opens everything", func(t *testing.T) {
		g, stop := newGate(), make(chan struct{})
		ch := waitAsync(g, 100, stop)
		g.finish()
		if err := done(t, ch, "page 101"); err != nil || g.audited() {
			t.Fatalf("err %v, audited %v", err, g.audited())
		}
	})
	t.Run("the caller stops waiting", func(t *testing.T) {
		g, stop := newGate(), make(chan struct{})
		ch := waitAsync(g, 0, stop)
		close(stop)
		if err := done(t, ch, "stopped"); err != errStopped {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no gate", func(t *testing.T) {
		var g *gate
		if err := g.wait(3, nil); err != nil || !g.audited() || g.refused() != nil {
			t.Fatal("a nil gate must never hold back")
		}
	})
}
