package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

func (a *app) mcpConfigCmd() *cobra.Command {
	var watch bool
	cmd := &cobra.Command{
		Use:   "mcp-config",
		Short: "Print the setup for Claude Desktop and Claude Code",
		Long: `mcp-config prints the block to add to claude_desktop_config.json and the
` + "`claude mcp add`" + ` command for Claude Code, with this binary's absolute path
and this configuration (--config, or the library folder).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// A server started on a misspelt library would fail on every start.
			if err := a.cfg.requireFolders(); err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			if resolved, err := filepath.EvalSymlinks(exe); err == nil {
				exe = resolved
			}
			tempDirs, goCache := goRunDirs()
			goRun := goRunBinary(exe, tempDirs, goCache)
			serveArgs := []string{"serve"}
			if watch {
				serveArgs = append(serveArgs, "--watch")
			}
			var args2 []string
			if a.cfg.file != "" && a.cfg.libraryFromFile {
				args2 = append([]string{"--config", a.cfg.file}, serveArgs...)
			} else {
				for _, l := range a.cfg.Library {
					args2 = append(args2, "--library", l)
				}
				args2 = append(args2, serveArgs...)
				a.noteLibraryConfig()
			}
			if goRun {
				a.warnGoRun(exe, args2[:len(args2)-len(serveArgs)])
			}
			block := map[string]any{"mcpServers": map[string]any{"grimoire": map[string]any{"command": exe, "args": args2}}}
			b, _ := json.MarshalIndent(block, "", "  ")
			fmt.Fprintf(a.stdout, "Claude Desktop: merge this into claude_desktop_config.json\n(macOS: ~/Library/Application Support/Claude/, Windows: %%APPDATA%%\\Claude\\), then restart Claude:\n\n%s\n\n", b)
			quoted := make([]string, len(args2))
			for i, s := range args2 {
				quoted[i] = shellQuote(s)
			}
			fmt.Fprintf(a.stdout, "Claude Code:\n\n  claude mcp add grimoire -- %s %s\n", shellQuote(exe), strings.Join(quoted, " "))
			fmt.Fprintf(a.stdout, "\nThe server reads the index %s.\n", a.cfg.DBPath)
			return nil
		},
	}
	cmd.Flags().BoolVar(&watch, "watch", true, "let the server keep the index in sync (serve --watch)")
	return cmd
}

// noteLibraryConfig says, when the setup names the library by its folder,
// that a grimoire.toml in that folder (as init writes) is not what the
// server will read: the index is the same, but not the models.
func (a *app) noteLibraryConfig() {
	if len(a.cfg.Library) == 0 {
		return
	}
	file := filepath.Join(a.cfg.Library[0], "grimoire.toml")
	if file == a.cfg.file || !exists(file) {
		return
	}
	fmt.Fprintf(a.stderr, "grimoire: note: the server below does not read %s, which configures this library; to use its settings, run `grimoire --config %s mcp-config` instead\n\n", file, shellQuote(file))
}

// warnGoRun says that exe is a binary `go run` built, which Claude would
// lose, and gives the commands that install grimoire and print its
// configuration again; libArgs are the configuration's flags.
func (a *app) warnGoRun(exe string, libArgs []string) {
	quoted := make([]string, len(libArgs))
	for i, s := range libArgs {
		quoted[i] = shellQuote(s)
	}
	fmt.Fprintf(a.stderr, `grimoire: warning: this binary is a temporary one that `+"`go run`"+` built (%s);
the path below stops working once Go cleans its build files. Install grimoire
and print the configuration from the installed binary instead, from the
repository's folder:

  go install ./cmd/grimoire && "$(go env GOPATH)/bin/grimoire" %s mcp-config

`, exe, strings.Join(quoted, " "))
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '-' || r == '_' || r == '.' || r == ':' || r == '=' || r == '\\' ||
			('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
