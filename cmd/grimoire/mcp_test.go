package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
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

func mcpLibrary(t *testing.T) string {
	t.Helper()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "tides.md"), "---\ntitle: Tides\nauthor: M. Sailor\n---\n# Moon\n\nSpring tides follow the full and the new moon.\n\n## Neap\n\nNeap tides come at the quarter moons.\n")
	writeFile(t, filepath.Join(lib, "knots.txt"), "KNOTS\n\nCHAPTER I.\n\nThe bowline makes a fixed loop that does not slip.\n\nCHAPTER II.\n\nThe clove hitch binds a line to a post.\n")
	ok(t, lib, "sync")
	return lib
}

func callTool(t *testing.T, c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// exerciseServer calls every tool through a real client.
func exerciseServer(t *testing.T, c *client.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 6 {
		t.Fatalf("%d tools", len(tools.Tools))
	}
	for _, tl := range tools.Tools {
		if tl.Annotations.ReadOnlyHint == nil || !*tl.Annotations.ReadOnlyHint {
			t.Errorf("%s is not read-only", tl.Name)
		}
	}
	res := callTool(t, c, "search", map[string]any{"query": "which knot makes a loop that does not slip"})
	if res.IsError {
		t.Fatalf("search: %+v", res.Content)
	}
	var sr struct {
		Results []struct {
			Book, Chapter, Citation string
			ChunkIndex              int `json:"chunk_index"`
		}
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &sr)
	if len(sr.Results) == 0 || sr.Results[0].Book != "knots" || !strings.Contains(sr.Results[0].Chapter, "CHAPTER I") {
		t.Fatalf("search results: %s", b)
	}
	for _, call := range []struct {
		name string
		args map[string]any
	}{
		{"list_books", map[string]any{}},
		{"get_book_outline", map[string]any{"book": "tides"}},
		{"get_section", map[string]any{"book": "tides", "chapter_index": 1, "section_index": 0}},
		{"read_chunk_neighbors", map[string]any{"book": "knots", "chunk_index": sr.Results[0].ChunkIndex}},
		{"library_status", map[string]any{}},
	} {
		if res := callTool(t, c, call.name, call.args); res.IsError || res.StructuredContent == nil {
			t.Errorf("%s: %+v", call.name, res.Content)
		}
	}
	if res := callTool(t, c, "get_book_outline", map[string]any{"book": "nope"}); !res.IsError {
		t.Error("unknown book is not a tool error")
	}
	// A unique prefix of a slug names the book; the outline gives the
	// whole slug back.
	res = callTool(t, c, "get_book_outline", map[string]any{"book": "tid"})
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || !strings.Contains(string(b), `"book":"tides"`) {
		t.Errorf("get_book_outline of a prefix: %s %+v", b, res.Content)
	}
	res = callTool(t, c, "get_book_outline", map[string]any{"book": "tieds"})
	if text := mcpgo.GetTextFromContent(res.Content[0]); !res.IsError || !strings.Contains(text, `no book "tieds": did you mean "tides"?`) {
		t.Errorf("get_book_outline of a typo: %s", text)
	}
}

func TestMCPOverStdio(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	c, err := client.NewStdioMCPClientWithOptions(binary, cleanEnv(), []string{"serve"}, transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, command, args...)
		cmd.Env, cmd.Dir = env, lib
		return cmd, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	exerciseServer(t, c)

	// A sync that writes while the session is open: the session keeps
	// answering and sees the new book without a restart.
	writeFile(t, filepath.Join(lib, "stars.md"), "# Stars\n\nSailors steered by Polaris, the pole star.\n")
	done := make(chan result, 1)
	go func() { done <- grimoire(t, lib, "sync") }()
	for {
		if res := callTool(t, c, "search", map[string]any{"query": "bowline loop"}); res.IsError {
			t.Fatalf("search failed during a sync: %+v", res.Content)
		}
		select {
		case r := <-done:
			if r.code != 0 {
				t.Fatalf("sync: %s", r.stderr)
			}
			res := callTool(t, c, "search", map[string]any{"query": "Polaris pole star"})
			b, _ := json.Marshal(res.StructuredContent)
			if !strings.Contains(string(b), `"book":"stars"`) {
				t.Fatalf("new book not visible: %s", b)
			}
			return
		default:
		}
	}
}

func TestMCPOverHTTP(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	p := start(t, lib, nil, "serve", "--http", "127.0.0.1:0")
	addr := waitForAddr(t, p)
	c, err := client.NewStreamableHttpClient("http://" + addr + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	exerciseServer(t, c)
	p.stopped(t, 5*time.Second)
}

func TestServeWatchStaysReadOnlyWhenLocked(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	w := start(t, lib, watchEnv, "watch")
	eventually(t, "the watcher to hold the lock", 20*time.Second, func() bool {
		var st struct{ Writer struct{ Running bool } }
		r := grimoire(t, lib, "status", "--json")
		return r.code == 0 && jsonUnmarshal(r.stdout, &st) == nil && st.Writer.Running
	})
	p := start(t, lib, nil, "serve", "--watch", "--http", "127.0.0.1:0")
	addr := waitForAddr(t, p)
	c, err := client.NewStreamableHttpClient("http://" + addr + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Start(context.Background())
	exerciseServer(t, c)
	var st struct{ Writer struct{ Command string } }
	okJSON(t, &st, lib, "status")
	if st.Writer.Command != "grimoire watch" {
		t.Errorf("writer is %q; serve --watch took over", st.Writer.Command)
	}
	w.stop(t, 5*time.Second)
	p.stop(t, 5*time.Second)
}

var listening = regexp.MustCompile(`http://([0-9.:\[\]]+)/mcp`)

func waitForAddr(t *testing.T, p *proc) string {
	t.Helper()
	var addr string
	eventually(t, "the server to listen", 20*time.Second, func() bool {
		if m := listening.FindStringSubmatch(p.errb.String()); m != nil {
			addr = m[1]
			return true
		}
		return false
	})
	return addr
}

func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GRIMOIRE_") {
			env = append(env, kv)
		}
	}
	return env
}

// TestMCPRawLegacyHandshake speaks the 2025-06-18 protocol by hand, the way
// Claude Desktop has, and checks that stdout carries nothing but JSON-RPC.
func TestMCPRawLegacyHandshake(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	cmd := exec.Command(binary, "serve")
	cmd.Dir, cmd.Env = lib, cleanEnv()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"neap tides"}}}`)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	seen := map[float64]map[string]any{}
	deadline := time.After(20 * time.Second)
	lines := make(chan string)
	go func() {
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for len(seen) < 2 {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("stdout closed")
			}
			var msg map[string]any
			if err := json.Unmarshal([]byte(line), &msg); err != nil {
				t.Fatalf("non-JSON on stdout: %q", line)
			}
			if id, ok := msg["id"].(float64); ok {
				seen[id] = msg
			}
		case <-deadline:
			t.Fatalf("timed out; got %v", seen)
		}
	}
	if v := seen[1]["result"].(map[string]any)["protocolVersion"]; v != "2025-06-18" {
		t.Errorf("protocol version %v", v)
	}
	res := seen[2]["result"].(map[string]any)
	if res["structuredContent"] == nil || res["isError"] == true {
		t.Errorf("tools/call result: %v", res)
	}
	stdin.Close()
}
