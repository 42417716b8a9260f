package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

func (a *cli) mcpConfigCmd() *cobra.Command {
	var watch bool
	cmd := &cobra.Command{
		Use:   "mcp-config",
		Short: "Print the setup for Claude Desktop and Claude Code",
		Long: `mcp-config prints the block to add to claude_desktop_config.json, the
` + "`claude mcp add`" + ` command for Claude Code, and the settings.json block that
installs ` + "`grimoire hook claude-code`" + ` as Claude Code's UserPromptSubmit hook, with
this binary's absolute path and this configuration (--config, or the library
folder).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// A server started on a misspelt library would fail on every start.
			if err := a.cfg.requireFolders(cmd.Context()); err != nil {
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
			fmt.Fprintf(a.stdout, "Claude Desktop: merge this into claude_desktop_config.json\n(macOS: ~/Library/Application Support/Claude/, Windows: %%APPDATA%%\\Claude\\,\nLinux: ~/.config/Claude/), then restart Claude:\n\n%s\n\n", b)
			quoted := make([]string, len(args2))
			for i, s := range args2 {
				quoted[i] = shellQuote(s)
			}
			// --scope user: the hook below is the user's, in every folder;
			// the server must be too, not only the current folder's.
			fmt.Fprintf(a.stdout, "Claude Code: either the grimoire plugin (claude-plugin/ in grimoire's repository),\nwhich brings the server and the hook, or the two below; one or the other, not\nboth, which would give Claude every tool twice and every passage twice.\n\n  claude mcp add --scope user grimoire -- %s %s\n", shellQuote(exe), strings.Join(quoted, " "))
			libArgs := args2[:len(args2)-len(serveArgs)]
			hooks, _ := json.MarshalIndent(hookSettings(exe, libArgs), "", "  ")
			fmt.Fprintf(a.stdout, "\nClaude Code, passages from your books beside each prompt (the hook): merge this\ninto ~/.claude/settings.json (the hook's command with its args needs Claude Code\n%s or later; an older one runs grimoire without them):\n\n%s\n", minClaudeCodeExec, hooks)
			if cwd, err := a.getwd(); err == nil {
				if f := grimoirePluginEnabled(claudeSettingsFiles(cwd)); f != "" {
					fmt.Fprintf(a.stderr, "grimoire: note: the grimoire plugin is enabled in Claude Code (%s): it starts the server and runs the hook itself. Use it or the setup below, not both: the hook above stays silent while the plugin is enabled, but the server would be there twice.\n\n", f)
				}
			}
			fmt.Fprintf(a.stdout, "\nThe server and the hook read the index %s.\n", a.cfg.DBPath)
			return nil
		},
	}
	cmd.Flags().BoolVar(&watch, "watch", true, "let the server keep the index in sync (serve --watch)")
	return cmd
}

// noteLibraryConfig says, when the setup names the library by its folder,
// that a grimoire.toml in that folder (as init writes) is not what the
// server will read: the index is the same, but not the models.
func (a *cli) noteLibraryConfig() {
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
func (a *cli) warnGoRun(exe string, libArgs []string) {
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

// minClaudeCodeExec is the first Claude Code that runs a hook in exec
// form (command and args, as hookSettings writes it); older ones run the
// command alone.
const minClaudeCodeExec = "2.1.139"

// hookTimeout is the timeout, in seconds, that the hook's settings give
// Claude Code: a guard should grimoire hang, far above the hook's own
// budget, and below Claude Code's default of 30 s for this event.
const hookTimeout = 5

// hookSettings is the settings.json block that runs `hook claude-code`
// with libArgs (the configuration's flags) on every prompt. It uses the
// exec form, command and args, which runs the binary with no shell between
// (code.claude.com/docs/en/hooks, "Exec form and shell form"), so that a
// path with spaces or quotes needs no quoting on any platform.
// UserPromptSubmit takes no matcher.
func hookSettings(exe string, libArgs []string) settingsHooks {
	args := append(append([]string{}, libArgs...), "hook", "claude-code")
	h := hookHandler{Type: "command", Command: exe, Args: args, Timeout: hookTimeout}
	return settingsHooks{Hooks: map[string][]hookGroup{"UserPromptSubmit": {{Hooks: []hookHandler{h}}}}}
}

// settingsHooks is the hooks block of Claude Code's settings.json, as much
// of it as grimoire writes: events, their groups and command handlers.
type settingsHooks struct {
	Hooks map[string][]hookGroup `json:"hooks"`
}

type hookGroup struct {
	Hooks []hookHandler `json:"hooks"`
}

type hookHandler struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// Timeout is in seconds.
	Timeout int `json:"timeout"`
}
