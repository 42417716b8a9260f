//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// TestReadOnlyIndexFolder reads an index whose folder cannot be written:
// the writer has closed (no -wal or -shm is left), and readers cannot
// create the shared-memory file SQLite wants.
func TestReadOnlyIndexFolder(t *testing.T) {
	t.Parallel()
	lib := shelfLibrary(t, 2)
	ok(t, lib, "sync")
	dir := filepath.Join(lib, ".grimoire")
	for _, f := range []string{"grimoire.db-wal", "grimoire.db-shm"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Fatalf("%s left behind by the writer", f)
		}
	}
	root := os.Geteuid() == 0

	t.Run("no write permission", func(t *testing.T) {
		// As root, permissions do not bite: run the readers as nobody.
		var cred *syscall.Credential
		if root {
			cred = &syscall.Credential{Uid: 65534, Gid: 65534}
			openUp(t, lib)
		}
		chmod(t, filepath.Join(dir, "grimoire.db"), 0o444)
		chmod(t, dir, 0o555)
		readEverything(t, lib, cred)
	})

	t.Run("read-only mount", func(t *testing.T) {
		if !root {
			t.Skip("mounting needs root")
		}
		if err := exec.Command("mount", "--bind", dir, dir).Run(); err != nil {
			t.Skipf("cannot bind-mount: %v", err)
		}
		defer exec.Command("umount", dir).Run()
		if out, err := exec.Command("mount", "-o", "remount,ro,bind", dir).CombinedOutput(); err != nil {
			t.Fatalf("remount read-only: %v %s", err, out)
		}
		readEverything(t, lib, nil)
		// A writer is refused with a reason, not left half-open.
		r := grimoire(t, lib, "sync")
		if r.code == 0 || !strings.Contains(r.stderr, "read-only") {
			t.Errorf("sync on a read-only mount: exit %d: %s", r.code, r.stderr)
		}
	})
}

// readEverything runs the reading commands and an MCP session against the
// library, as the user cred when set.
func readEverything(t *testing.T, lib string, cred *syscall.Credential) {
	t.Helper()
	for _, args := range [][]string{{"status", "--json"}, {"list", "--json"}, {"query", "owl lantern", "--json"}} {
		r := grimoireAs(t, lib, cred, args...)
		if r.code != 0 {
			t.Errorf("%v on a read-only index: exit %d: %s", args, r.code, r.stderr)
		}
	}
	c, err := client.NewStdioMCPClientWithOptions(binary, cleanEnv(), []string{"serve"}, transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, command, args...)
		cmd.Env, cmd.Dir = env, lib
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		return cmd, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{}); err != nil {
		t.Fatalf("serve on a read-only index: %v", err)
	}
	res := callTool(t, c, "search", map[string]any{"query": "owl lantern"})
	if res.IsError {
		t.Errorf("search over MCP on a read-only index: %+v", res.Content)
	}
}

// grimoireAs runs the binary as the user cred (nil: this process's user).
func grimoireAs(t *testing.T, dir string, cred *syscall.Credential, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = dir, cleanEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	return collect(t, cmd)
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(path, 0o755) })
}

// openUp lets other users reach the library and the binary: the test's
// temporary folders are private to this user.
func openUp(t *testing.T, lib string) {
	t.Helper()
	for _, p := range []string{filepath.Dir(binary), filepath.Dir(lib), lib} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	filepath.Walk(lib, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chmod(p, 0o755)
		} else if err == nil {
			os.Chmod(p, 0o644)
		}
		return nil
	})
}
