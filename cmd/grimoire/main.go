// Command grimoire keeps a folder of books in sync with a local SQLite index
// and answers questions about them, from the terminal and over MCP.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/app"
	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/ingest"
)

// version is set at build time with -ldflags "-X main.version=…"; left
// at "dev", --version tells the build from Go's record of it.
var version = "dev"

func main() {
	ctx, stop := onInterrupt(os.Stderr, os.Exit)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK       = 0
	exitInternal = 1
	exitInvalid  = 2
	exitNotFound = 3
	exitConflict = 4
	exitDamaged  = 5
)

// cli holds what every command shares: streams, global flags and the
// configuration, loaded once a command runs.
type cli struct {
	stdin io.Reader
	// stdout is for people: control characters in it are made visible
	// (see terminalWriter); rawStdout is exact, for JSON and MCP.
	stdout, rawStdout, stderr io.Writer

	// wd is the folder the command runs in; "" is the process's.
	wd string
	// exiting: the process ends with the command, which frees what it
	// leaves open at once.
	exiting bool

	configFlag  string
	libraryFlag []string
	verbose     int

	cfg *Config
	// indexNoted is the warning about two indexes already printed.
	indexNoted string
	log        *slog.Logger
	// svc runs the operations, once the configuration is loaded.
	svc *app.Service
	// started is when the command began: progress counts from it.
	started time.Time
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &cli{exiting: true, stdin: stdin, stdout: terminalWriter{stdout}, rawStdout: stdout, stderr: stderr, started: time.Now()}
	return a.run(ctx, args)
}

// runIn runs the command args as if in the folder dir, in a process that
// goes on after it: what the tests run in process.
func runIn(ctx context.Context, dir string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &cli{wd: dir, stdin: stdin, stdout: terminalWriter{stdout}, rawStdout: stdout, stderr: stderr, started: time.Now()}
	return a.run(ctx, args)
}

func (a *cli) run(ctx context.Context, args []string) int {
	stdin, stdout, stderr := a.stdin, a.rawStdout, a.stderr
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && cmd != nil && cmd.Annotations[neverFails] != "" {
		hookFailed(stderr, cmd, err)
		return exitOK
	}
	if err != nil && cmd == root && !typed(err) {
		// The root only runs to show its help, so an error from it is
		// cobra's own: an unknown command.
		err = usageError{fmt.Errorf("%w\nsee `grimoire --help` for the commands", unknownCommand(root, err))}
	}
	if a.svc != nil {
		// Closing only frees what the parsers hold (PDFium's memory);
		// the process is about to exit, which frees it too.
		a.svc.Close()
	}
	if err == nil {
		return exitOK
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "grimoire: interrupted")
		return exitInterrupted
	}
	if a.svc != nil {
		err = a.svc.Explain(err)
	}
	fmt.Fprintln(stderr, "grimoire: "+escapeControls(err.Error(), "\n\t"))
	var ue usageError
	if errors.As(err, &ue) {
		return exitInvalid
	}
	switch fault.CodeOf(err) {
	case fault.Invalid:
		return exitInvalid
	case fault.NotFound:
		return exitNotFound
	case fault.Conflict:
		return exitConflict
	case fault.Damaged:
		return exitDamaged
	}
	return exitInternal
}

// usageError marks errors in how a command was called.
type usageError struct{ error }

// typed reports whether err already says how to exit: a usage error or an
// fault.Error.
func typed(err error) bool {
	var ue usageError
	var ie *fault.Error
	return errors.As(err, &ue) || errors.As(err, &ie)
}

// usageHint makes err a usage error that shows how cmd is called.
func usageHint(cmd *cobra.Command, err error) error {
	line := cmd.UseLine()
	// The root runs only to print its help: it is called with a command.
	if !cmd.Runnable() || !cmd.HasParent() {
		line = cmd.CommandPath() + " COMMAND [flags]"
	}
	return usageError{fmt.Errorf("%w\nusage: %s (see `%s --help`)", flagError(cmd, unknownCommand(cmd, err)), line, cmd.CommandPath())}
}

// usageArgs makes the argument checks of cmd and every command below it
// return usage errors, which exit 2 like a bad flag; cobra's own are plain
// errors.
func usageArgs(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return usageHint(c, err)
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		usageArgs(sub)
	}
}

func (a *cli) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "grimoire",
		Short: "Search your own books, from the terminal and from Claude",
		Long: `grimoire keeps a folder of books in sync with one local SQLite index and
answers hybrid (full-text and vector) searches with exact citations. Nothing
leaves your machine. It reads ` + strings.Join(ingest.Formats().Names(), ", ") + `.`,
		Version:       buildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// unknownCommand suggests, as it suggests flags too.
		DisableSuggestions: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.HasParent() {
				return nil // the help needs no configuration
			}
			return a.setup(cmd)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// Without a terminal a program runs grimoire, and what it reads
			// on stdout is its input: a Claude Code older than 2.1.139 runs
			// a hook's command without its args, and would put the help
			// into every prompt.
			if !a.stdinIsTerminal() {
				cmd.SetOut(a.stderr)
			}
			return cmd.Help()
		},
	}
	root.SetFlagErrorFunc(usageHint)
	pf := root.PersistentFlags()
	pf.StringVar(&a.configFlag, "config", "", "config file (default: $GRIMOIRE_CONFIG, else ./grimoire.toml if present)")
	pf.StringSliceVar(&a.libraryFlag, "library", nil, "library folder (repeatable); overrides the config file")
	pf.CountVarP(&a.verbose, "verbose", "v", "log more to stderr (-vv for debug)")
	root.AddCommand(
		a.syncCmd(), a.statusCmd(), a.listCmd(), a.queryCmd(), a.outlineCmd(), a.sectionCmd(),
		a.deleteCmd(), a.exclusionsCmd(), a.reindexCmd(), a.rebuildCmd(), a.watchCmd(), a.serveCmd(), a.mcpConfigCmd(), a.hookCmd(), a.evalCmd(), a.initCmd(),
	)
	usageArgs(root)
	return root
}

// setup loads the configuration and the logger before any command runs.
func (a *cli) setup(cmd *cobra.Command) error {
	cwd, err := a.getwd()
	if err != nil {
		return err
	}
	cfg, err := loadConfig(a.configFlag, a.libraryFlag, cwd)
	if err != nil {
		return err
	}
	a.cfg = cfg
	if cfg.indexNote != "" && cfg.indexNote != a.indexNoted {
		// Once per process (setup runs again when sync PATH names the
		// library): a server says it at its start, not at every call.
		fmt.Fprintln(a.stderr, "grimoire: warning: "+cfg.indexNote)
		a.indexNoted = cfg.indexNote
	}
	level := slog.LevelWarn
	switch strings.ToLower(cfg.LogLevel) {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	case "error":
		level = slog.LevelError
	}
	switch {
	case a.verbose >= 2:
		level = slog.LevelDebug
	case a.verbose == 1 && level > slog.LevelInfo:
		level = slog.LevelInfo
	}
	a.log = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	a.configured()
	return nil
}

// getwd is the folder the command runs in: the process's, unless a test
// runs the command in process in a folder of its own.
func (a *cli) getwd() (string, error) {
	if a.wd != "" {
		return a.wd, nil
	}
	return os.Getwd()
}

// inFolder is p made absolute against dir, as filepath.Abs makes it
// against the current folder.
func inFolder(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// configured builds the service anew from a.cfg, which changed.
func (a *cli) configured() {
	if a.svc != nil {
		a.svc.Close()
	}
	a.svc = app.New(a.cfg.settings(), a.log, front{a})
}

// printJSON writes v as one indented JSON document on stdout.
func (a *cli) printJSON(v any) error {
	enc := json.NewEncoder(a.rawStdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
