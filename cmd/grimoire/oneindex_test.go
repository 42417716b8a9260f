package main

import (
	"context"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// closedURL is an address where nothing listens: init finds no Ollama.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "http://" + ln.Addr().String()
}

// indexFiles lists the index files (*.db) under dir.
func indexFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".db") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

var serverIndex = regexp.MustCompile(`The server and the hook read the index (.+)\.\n`)

// mcpConfigIndex runs mcp-config and returns the index it says its server
// reads.
func mcpConfigIndex(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out := ok(t, dir, append(args, "mcp-config")...)
	m := serverIndex.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("mcp-config %v names no index:\n%s", args, out)
	}
	return m[1]
}

// TestOneIndexHoweverNamed follows the Quick start (--library), then the
// Ollama section (init, --config): both name one library, and find one
// index.
func TestOneIndexHoweverNamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lib := filepath.Join(dir, "Books")
	writeFile(t, filepath.Join(lib, "tides.md"), "# Tides\n\nSpring tides follow the full moon.\n")
	want := filepath.Join(lib, ".grimoire", "grimoire.db")

	var s syncOut
	okJSON(t, &s, dir, "--library", "Books", "sync")
	wantCounters(t, "--library", s, map[string]int{"new": 1, "ingested": 1})

	out := ok(t, dir, "init", "Books", "--ollama-url", closedURL(t))
	if !strings.Contains(out, "The library's index is "+want+", built already") {
		t.Errorf("init does not say the library is indexed in %s:\n%s", want, out)
	}
	config := filepath.Join(lib, "grimoire.toml")
	okJSON(t, &s, dir, "--config", config, "sync")
	wantCounters(t, "--config after --library", s, map[string]int{"new": 0, "ingested": 0})
	// From inside the library, the grimoire.toml there is read.
	okJSON(t, &s, lib, "sync")
	wantCounters(t, "the current folder", s, map[string]int{"new": 0, "ingested": 0})
	if got := indexFiles(t, dir); len(got) != 1 || got[0] != want {
		t.Errorf("index files %v, want only %s", got, want)
	}

	for _, args := range [][]string{{"--library", "Books"}, {"--library", lib}, {"--config", config}} {
		if got := mcpConfigIndex(t, dir, args...); got != want {
			t.Errorf("mcp-config %v: the server reads %s, want %s", args, got, want)
		}
	}
	// A --library setup would not read the library's grimoire.toml: said.
	if r := grimoire(t, dir, "--library", "Books", "mcp-config"); !strings.Contains(r.stderr, "does not read "+config) {
		t.Errorf("mcp-config --library says nothing of %s: %s", config, r.stderr)
	}
	if r := grimoire(t, dir, "--config", config, "mcp-config"); strings.Contains(r.stderr, "does not read") {
		t.Errorf("mcp-config --config: %s", r.stderr)
	}
}

// TestOlderIndexBesideConfig: an older grimoire kept a config file's index
// beside the file. It stays in use, by every name of the library, until a
// second index appears; then the one written last is used, and each
// process says so once.
func TestOlderIndexBesideConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lib := filepath.Join(dir, "Books")
	writeFile(t, filepath.Join(lib, "tides.md"), "# Tides\n\nSpring tides follow the full moon.\n")
	config := filepath.Join(lib, "grimoire.toml")
	older := filepath.Join(lib, "grimoire.db")
	current := filepath.Join(lib, ".grimoire", "grimoire.db")
	// The older layout, made as it was: library here, index beside.
	writeFile(t, config, "library = [\".\"]\n")
	okEnv(t, dir, []string{"GRIMOIRE_DB_PATH=" + older}, nil, "--config", config, "sync")

	for _, args := range [][]string{{"--config", config}, {"--library", "Books"}} {
		r := grimoire(t, dir, append(args, "status", "--json")...)
		if r.code != 0 || !strings.Contains(r.stdout, `"db_path": "`+older+`"`) || r.stderr != "" {
			t.Errorf("status %v with only the older index: exit %d\n%s\n%s", args, r.code, r.stdout, r.stderr)
		}
		if got := mcpConfigIndex(t, dir, args...); got != older {
			t.Errorf("mcp-config %v: %s, want %s", args, got, older)
		}
	}
	var s syncOut
	okJSON(t, &s, dir, "--config", config, "sync")
	wantCounters(t, "sync into the older index", s, map[string]int{"new": 0})
	if _, err := os.Stat(current); err == nil {
		t.Fatalf("a second index was made at %s", current)
	}

	// A second index, as an older --library made it.
	okEnv(t, dir, []string{"GRIMOIRE_DB_PATH=" + current}, nil, "--library", "Books", "sync")
	for _, tc := range []struct {
		name          string
		newer, unused string
	}{
		{"the new one written last", current, older},
		{"the older one written last", older, current},
	} {
		t.Run(tc.name, func(t *testing.T) {
			touch(t, tc.unused, time.Now().Add(-time.Hour))
			touch(t, tc.newer, time.Now())
			warning := "this library has two indexes: using " + tc.newer + " (written last), not " + tc.unused
			for _, args := range [][]string{{"--config", config}, {"--library", "Books"}} {
				r := grimoire(t, dir, append(args, "status", "--json")...)
				if r.code != 0 || !strings.Contains(r.stdout, `"db_path": "`+tc.newer+`"`) {
					t.Errorf("status %v: exit %d\n%s", args, r.code, r.stdout)
				}
				if n := strings.Count(r.stderr, "two indexes"); n != 1 || !strings.Contains(r.stderr, warning) {
					t.Errorf("status %v: %d warnings, want 1 saying %q:\n%s", args, n, warning, r.stderr)
				}
			}
		})
	}

	// A server says it once, at its start, not at every call.
	var stderr lockedBuffer
	c, err := client.NewStdioMCPClientWithOptions(binary, cleanEnv(), []string{"--library", lib, "serve"}, transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, command, args...)
		cmd.Env, cmd.Dir, cmd.Stderr = env, dir, &stderr
		return cmd, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if res := callTool(t, c, "search", map[string]any{"query": "spring tides"}); res.IsError {
			t.Fatalf("search: %+v", res.Content)
		}
	}
	if n := strings.Count(stderr.String(), "two indexes"); n != 1 {
		t.Errorf("the server warned %d times, want once:\n%s", n, stderr.String())
	}
}

// touch sets the modification time of an index and its write-ahead log.
func touch(t *testing.T, db string, when time.Time) {
	t.Helper()
	for _, p := range []string{db, db + "-wal"} {
		if err := os.Chtimes(p, when, when); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}
