package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestServeExitsWhenStdinCloses closes the stdin of a stdio server, as a
// client that goes away does: the server exits at once, and serve --watch
// lets go of the writer lock as it does, rather than staying on as an
// orphan that keeps every other writer out.
func TestServeExitsWhenStdinCloses(t *testing.T) {
	t.Parallel()
	// Generous for a loaded machine; the exit takes milliseconds.
	const within = 5 * time.Second
	for _, tc := range []struct {
		name  string
		args  []string
		watch bool
	}{
		{"serve", []string{"serve"}, false},
		{"serve --watch", []string{"serve", "--watch"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lib := mcpLibrary(t)
			cmd := exec.Command(binary, tc.args...)
			cmd.Dir, cmd.Env = lib, append(cleanEnv(), watchEnv...)
			var out, errb lockedBuffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			exited := false
			t.Cleanup(func() {
				if !exited {
					cmd.Process.Kill()
					<-done
				}
			})

			fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
			eventually(t, "the server to answer", 20*time.Second, func() bool {
				return strings.Contains(out.String(), `"id":1`)
			})
			if tc.watch {
				eventually(t, "the watch to hold the writer lock", 20*time.Second, func() bool {
					h, running := lockHolder(lib)
					return running && h.PID == cmd.Process.Pid && h.Requests != ""
				})
			}

			stdin.Close()
			closed := time.Now()
			select {
			case err := <-done:
				exited = true
				if err != nil {
					t.Fatalf("exited with %v after stdin closed\nstderr: %s", err, errb.String())
				}
				t.Logf("exited %v after stdin closed", time.Since(closed).Round(time.Millisecond))
			case <-time.After(within):
				h, _ := lockHolder(lib)
				t.Fatalf("still running %v after stdin closed (writer lock: %+v)\nstderr: %s", within, h, errb.String())
			}
			if h, running := lockHolder(lib); running {
				t.Errorf("writer lock still held after exit: %+v", h)
			}
			// The next writer gets the lock at once.
			ok(t, lib, "sync")
		})
	}
}
