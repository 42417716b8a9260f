// Package mcp serves the library to language-model clients (Claude Desktop,
// Claude Code) over the Model Context Protocol. Every tool only reads: the
// server can list, outline, read and search the books in the index, and
// nothing else.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/retrieve"
)

// Options configure the server.
type Options struct {
	// Version is reported to clients.
	Version string
	// Formats are the names of the formats the library reads, which the
	// instructions list so that a model does not deny a book's format.
	Formats []string
	// Roots are the library folders, shown by library_status.
	Roots []string
	// SectionChars is the page size of get_section, in characters;
	// default 20,000.
	SectionChars int
	// Status, when set, adds what only the caller knows (the watcher's
	// state) to library_status.
	Status func(*retrieve.StatusView)
	Logger *slog.Logger
	// HTTP guards the streamable HTTP transport.
	HTTP HTTPOptions
}

// Server is the MCP server over one library.
type Server struct {
	lib  *retrieve.Library
	opts Options
	log  *slog.Logger
	mcp  *server.MCPServer
}

// New builds the server and its tools.
func New(lib *retrieve.Library, opts Options) *Server {
	if opts.SectionChars <= 0 {
		opts.SectionChars = 20000
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{lib: lib, opts: opts, log: log}
	s.mcp = server.NewMCPServer("grimoire", opts.Version,
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		// A result that does not match its tool's output schema is a bug
		// here, and a client that checks would refuse it anyway: better
		// a tool error that says so.
		server.WithOutputSchemaValidation(),
		server.WithInstructions(instructions(opts.Formats)),
	)
	s.addTools()
	return s
}

// MCPServer returns the underlying mcp-go server (for in-process clients).
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// instructions are sent to the model on every connect.
func instructions(formats []string) string {
	lib := "grimoire searches the user's own library of books on this machine."
	if len(formats) > 0 {
		lib = "grimoire searches the user's own library of books on this machine: " + strings.Join(formats, ", ") + "."
	}
	return lib + `
Start with search (give several phrasings in "queries" for a hard question); read around a hit with
read_chunk_neighbors, or read a whole section with get_section; get_book_outline shows a book's chapters.
Cite what you use with the hit's citation (book title, author, chapter, section, pages).`
}

// ServeStdio serves on stdin/stdout until ctx is done or stdin closes.
// Nothing else may write to stdout: it is the protocol channel.
func (s *Server) ServeStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	std := server.NewStdioServer(s.mcp)
	std.SetErrorLogger(slog.NewLogLogger(s.log.Handler(), slog.LevelError))
	err := std.Listen(ctx, stdin, stdout)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// readOnly are the annotations every tool carries: mcp-go's defaults claim
// the opposite (destructive, open world).
func readOnly(title string) []mcpgo.ToolOption {
	return []mcpgo.ToolOption{
		mcpgo.WithTitleAnnotation(title),
		mcpgo.WithReadOnlyHintAnnotation(true),
		mcpgo.WithDestructiveHintAnnotation(false),
		mcpgo.WithIdempotentHintAnnotation(true),
		mcpgo.WithOpenWorldHintAnnotation(false),
	}
}

func tool(name, title, description string, opts ...mcpgo.ToolOption) mcpgo.Tool {
	all := append([]mcpgo.ToolOption{mcpgo.WithDescription(description)}, readOnly(title)...)
	return mcpgo.NewTool(name, append(all, opts...)...)
}

// result renders a structured result, without its null fields (see
// schemas), with two text blocks for clients that pass a model only the
// content: a readable rendering first, then the structured content as
// JSON, which the specification (2025-06-18, "Structured Content") asks of
// every tool that returns it.
func result(v any, text string) *mcpgo.CallToolResult {
	structured := withoutNulls(v)
	res := mcpgo.NewToolResultStructured(structured, text)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(structured); err == nil {
		res.Content = append(res.Content, mcpgo.NewTextContent(strings.TrimSuffix(b.String(), "\n")))
	}
	return res
}

// toolError turns an error into a tool error the model can act on. What
// the user can fix (the input, a missing book, another writer, a model
// server that is down or lacks the model) keeps its message and hint, by
// the same codes as the CLI's exit status; internal failures say so. The
// hint is the one written for the tools (fault.Error's ToolHint), which
// names them rather than the CLI's commands.
func (s *Server) toolError(op string, err error) *mcpgo.CallToolResult {
	err = index.ExplainDamage(err, s.lib.DB.Path())
	switch fault.CodeOf(err) {
	case fault.Invalid, fault.NotFound, fault.Conflict:
		return mcpgo.NewToolResultError(fault.ToolMessage(err))
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return mcpgo.NewToolResultError(op + " was cancelled")
	}
	s.log.Error("tool failed", "tool", op, "err", err)
	return mcpgo.NewToolResultError(fmt.Sprintf("%s failed inside grimoire: %s", op, fault.ToolMessage(err)))
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
