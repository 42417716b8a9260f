package mcp

import (
	"fmt"
	"net"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/grimoire-search/grimoire/model/embed"
)

// TestModelServerErrorIsToolError: a model server that stops answering
// reaches the client as what to fix, like any mistake in the configuration,
// not as a failure inside grimoire.
func TestModelServerErrorIsToolError(t *testing.T) {
	f := newFixture(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	_, err = embed.New(t.Context(), embed.Config{Provider: embed.ProviderOllama, URL: closed}, nil)
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	res := New(f.library, Options{}).toolError("search", fmt.Errorf("embed query: %w", err))
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(mcpgo.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError || strings.Contains(text, "inside grimoire") || !strings.Contains(text, closed) || !strings.Contains(text, "ollama serve") {
		t.Errorf("tool error %q", text)
	}
}
