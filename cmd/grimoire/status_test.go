//go:build !windows

package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestStatusDuringFirstSync: while the first sync runs, status says so
// rather than "last sync never", which would send the user to start one.
func TestStatusDuringFirstSync(t *testing.T) {
	t.Parallel()
	g := newGatedModels(t)
	lib := progressLibrary(t)
	env := g.env()
	p := start(t, lib, env, "--library", lib, "sync")
	var out string
	eventually(t, "status to see the sync", 30*time.Second, func() bool {
		r := grimoireEnv(t, lib, env, "--library", lib, "status")
		out = r.stdout
		return r.code == 0 && strings.Contains(out, "writer    grimoire sync")
	})
	want := fmt.Sprintf("last sync none finished yet: the first is under way (grimoire sync, pid %d)\n", p.cmd.Process.Pid)
	if !strings.Contains(out, want) {
		t.Errorf("status while the first sync runs:\n%s\nwant a line %q", out, want)
	}
	g.release()
	select {
	case <-p.done:
		p.done <- nil
	case <-time.After(2 * time.Minute):
		t.Fatal("sync did not finish")
	}
	if r := grimoireEnv(t, lib, env, "--library", lib, "status"); !strings.Contains(r.stdout, "(sync, ") {
		t.Errorf("status after the sync:\n%s", r.stdout)
	}
}
