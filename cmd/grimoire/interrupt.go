package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopGrace is how long a process may take to wind down after SIGINT or
// SIGTERM before it exits regardless: two seconds in all, with room for
// the exit itself.
const stopGrace = 1500 * time.Millisecond

// exitInterrupted is the exit status of a process stopped by a signal.
const exitInterrupted = 130

// onInterrupt returns a context that is cancelled by the first SIGINT or
// SIGTERM. If the process has not exited stopGrace later, or a second
// signal comes, it exits with status 130 at once: a goroutine may be stuck
// in a read the kernel does not interrupt (a FIFO, a hung network mount),
// and the index, SQLite in WAL mode, is safe at any point. What such an
// exit skips: the run's record (status shows the run before), and clearing
// the lock file's holder (the holder's pid is then dead, which status
// tells). stop releases the signals.
func onInterrupt(stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		cancel()
		timer := time.NewTimer(stopGrace)
		defer timer.Stop()
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "grimoire: interrupted again; stopping now")
		case <-timer.C:
			fmt.Fprintf(stderr, "grimoire: still busy %v after the interrupt (a read that cannot be cancelled?); stopping now\n", stopGrace)
		case <-done:
			return
		}
		exit(exitInterrupted)
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
