package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/grimoire-search/grimoire/ingest"
)

// reportedVersion is what `bin --version` names.
func reportedVersion(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	v, found := strings.CutPrefix(strings.TrimSpace(string(out)), "grimoire version ")
	if !found {
		t.Fatalf("--version printed %q", out)
	}
	return v
}

// TestMCPServerInfoIsTheBuild checks that the server names itself to a
// client as --version names the build, for a release build (stamped as
// release/build.sh stamps it) and a plain one, and that its instructions
// name every format the registry reads.
func TestMCPServerInfoIsTheBuild(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	released := filepath.Join(t.TempDir(), "grimoire")
	if runtime.GOOS == "windows" {
		released += ".exe"
	}
	// release/build.sh's -ldflags; without its -trimpath, which changes
	// no version and would compile every package again.
	build := exec.Command("go", "build", "-ldflags", "-s -w -X main.version=v9.8.7", "-o", released, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	formats := strings.Join(ingest.Formats().Names(), ", ")
	for _, bin := range []string{binary, released} {
		want := reportedVersion(t, bin)
		_, init := serveClient(t, bin, lib, "--library", lib, "serve")
		if init.ServerInfo.Version != want {
			t.Errorf("serverInfo.version %q, --version %q", init.ServerInfo.Version, want)
		}
		if !strings.Contains(init.Instructions, formats) {
			t.Errorf("the instructions do not name the formats %q:\n%s", formats, init.Instructions)
		}
	}
	if v := reportedVersion(t, released); !strings.HasPrefix(v, "v9.8.7") {
		t.Errorf("the stamped build's --version: %q", v)
	}
}

// TestHelpNamesEveryFormat checks that `grimoire --help` lists the formats
// the registry reads.
func TestHelpNamesEveryFormat(t *testing.T) {
	t.Parallel()
	out := ok(t, t.TempDir(), "--help")
	if formats := strings.Join(ingest.Formats().Names(), ", "); !strings.Contains(strings.Join(strings.Fields(out), " "), formats) {
		t.Errorf("--help does not name the formats %q:\n%s", formats, out)
	}
}

// TestMCPResultsCarryTheirJSON calls every tool through a real client: the
// readable text comes first, and the last text block is the structured
// content serialized, as the MCP specification asks of tools with an
// output schema.
func TestMCPResultsCarryTheirJSON(t *testing.T) {
	t.Parallel()
	lib := mcpLibrary(t)
	c, _ := serveClient(t, binary, lib, "--library", lib, "serve")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]map[string]any{
		"search":               {"query": "which knot makes a loop that does not slip"},
		"list_books":           {},
		"get_book_outline":     {"book": "tides"},
		"get_section":          {"book": "tides", "chapter_index": 1, "section_index": 0},
		"read_chunk_neighbors": {"book": "knots", "chunk_index": 0},
		"library_status":       {},
	}
	for _, tl := range tools.Tools {
		if tl.OutputSchema.Type == "" && tl.RawOutputSchema == nil {
			continue
		}
		args, known := calls[tl.Name]
		if !known {
			t.Errorf("%s has an output schema and no call here", tl.Name)
			continue
		}
		res := callTool(t, c, tl.Name, args)
		if res.IsError || res.StructuredContent == nil || len(res.Content) < 2 {
			t.Errorf("%s: error %v, %d content blocks, structured %v", tl.Name, res.IsError, len(res.Content), res.StructuredContent != nil)
			continue
		}
		readable := mcpgo.GetTextFromContent(res.Content[0])
		if strings.HasPrefix(readable, "{") {
			t.Errorf("%s: the first block is not the readable text: %.80s", tl.Name, readable)
		}
		var fromText, structured any
		if err := json.Unmarshal([]byte(mcpgo.GetTextFromContent(res.Content[len(res.Content)-1])), &fromText); err != nil {
			t.Errorf("%s: the last text block is no JSON: %v", tl.Name, err)
			continue
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &structured)
		if !reflect.DeepEqual(fromText, structured) {
			t.Errorf("%s: the JSON block differs from structuredContent:\n%v\n%v", tl.Name, fromText, structured)
		}
	}
}
