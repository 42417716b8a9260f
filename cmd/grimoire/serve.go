package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/app"
	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/mcp"
)

// tokenEnv names the variable that holds the bearer token of serve --http.
const tokenEnv = "GRIMOIRE_HTTP_TOKEN"

type serveFlags struct {
	http         string
	watch        bool
	noAuth       bool
	allowOrigins []string
}

func (a *cli) serveCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the library to Claude and other MCP clients (stdio by default)",
		Long: `serve runs the read-only MCP server: over stdin/stdout (how Claude Desktop and
Claude Code start it), or with --http over streamable HTTP at /mcp. With
--watch it also keeps the index in sync while no other grimoire writes it;
several servers never start several writers.

Over HTTP the server listens on loopback unless the address has a host
(--http 0.0.0.0:8765 listens everywhere). Then every request needs
"Authorization: Bearer <token>": the token comes from GRIMOIRE_HTTP_TOKEN
(16 characters or more), or grimoire makes one and prints it once at start;
--no-auth serves without one. A token in GRIMOIRE_HTTP_TOKEN is required on
loopback too. Web pages from other sites are refused (403) unless named
with --allow-origin; clients that send no Origin (Claude Code, the MCP SDKs,
curl) are not concerned. Bodies over 4 MiB get 413; sessions idle for 30
minutes end, and at most 1,000 are open at once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.serve(cmd.Context(), f)
		},
	}
	cmd.Flags().StringVar(&f.http, "http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765 or :8765 for loopback)")
	cmd.Flags().BoolVar(&f.watch, "watch", false, "also keep the index in sync when no other process writes it")
	cmd.Flags().BoolVar(&f.noAuth, "no-auth", false, "with --http on a non-loopback address: serve without a bearer token")
	cmd.Flags().StringArrayVar(&f.allowOrigins, "allow-origin", nil, "with --http: a browser origin allowed to call the server, like https://app.example (repeatable)")
	return cmd
}

func (a *cli) serve(ctx context.Context, f serveFlags) error {
	var httpOpts mcp.HTTPOptions
	var addr string
	if f.http != "" {
		var err error
		if addr, httpOpts, err = httpOptions(f); err != nil {
			return err
		}
	} else if f.noAuth || len(f.allowOrigins) > 0 {
		return usageError{errors.New("--no-auth and --allow-origin go with --http")}
	}
	// Checked before WaitForIndex, which would make an index.
	if err := a.cfg.requireFolders(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// The watch ends only when ctx does, and the server returns with ctx
	// still live (stdin's EOF when the client goes away, a port in use):
	// cancel, then wait for the watch to close its writer.
	defer func() {
		cancel()
		wg.Wait()
	}()
	if f.watch {
		if err := a.cfg.requireLibrary(ctx, a.stderr); err != nil {
			return err
		}
	}
	if err := a.svc.WaitForIndex(ctx, "grimoire serve"); err != nil {
		return err
	}
	if f.watch {
		// Only now: WaitForIndex may take the writer for a moment to
		// create the index, and a watch that found it taken would wait
		// half a minute before it tried again.
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.svc.WatchWhenFree(ctx, "grimoire serve --watch", func() app.Listener {
				// stdout is the MCP channel: what the watch does goes
				// to stderr, with the logs.
				log := a.watchLog(a.stderr)
				return app.Listener{Changed: log.reconciled, Ingested: log.ingested}
			})
		}()
	}
	lib, closeLib, err := a.svc.OpenLibrary(ctx)
	if err != nil {
		return err
	}
	defer closeLib()
	// Load the vectors now rather than on the first question.
	go func() {
		start := time.Now()
		if err := lib.Searcher.Prepare(ctx); err != nil {
			a.log.Warn("loading vectors", "err", err)
			return
		}
		// Loading copies every vector out of SQLite once; give that
		// garbage back now rather than keep the peak for the server's life.
		debug.FreeOSMemory()
		a.log.Info("vectors loaded", "took", time.Since(start))
	}()
	// The version --version prints: a release's stamp, else the commit
	// from Go's record of the build.
	srv := mcp.New(lib, mcp.Options{Version: buildVersion(), Formats: ingest.Formats().Names(), Roots: a.cfg.Library, Logger: a.log, HTTP: httpOpts})
	if f.http == "" {
		return srv.ServeStdio(ctx, a.stdin, a.rawStdout)
	}
	generated := httpOpts.Token != "" && os.Getenv(tokenEnv) == ""
	return srv.ServeHTTP(ctx, addr, func(bound net.Addr) {
		fmt.Fprintf(a.stderr, "grimoire: MCP over streamable HTTP at http://%s/mcp\n", bound)
		switch {
		case generated:
			fmt.Fprintf(a.stderr, "grimoire: clients must send \"Authorization: Bearer %s\" (a new token each start; set %s to keep one)\n", httpOpts.Token, tokenEnv)
		case httpOpts.NoAuth:
			fmt.Fprintf(a.stderr, "grimoire: no bearer token (--no-auth): anyone who can reach %s can read the library\n", bound)
		}
	})
}

// httpOptions resolves the address and guards of serve --http: a token is
// required off loopback (from the environment, else made now) unless
// --no-auth, and on loopback too when the environment sets one.
func httpOptions(f serveFlags) (string, mcp.HTTPOptions, error) {
	addr, err := loopbackDefault(f.http)
	if err != nil {
		return "", mcp.HTTPOptions{}, err
	}
	host, _, _ := net.SplitHostPort(addr)
	o := mcp.HTTPOptions{Token: os.Getenv(tokenEnv), NoAuth: f.noAuth, AllowOrigins: f.allowOrigins}
	if o.Token == "" && !o.NoAuth && !mcp.IsLoopback(host) {
		o.Token = rand.Text()
	}
	return addr, o, o.Validate()
}

// loopbackDefault binds ":port" to loopback: listening on every interface
// must be asked for with an explicit host.
func loopbackDefault(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", &fault.Error{Code: fault.Invalid, Msg: fmt.Sprintf("--http %q: want HOST:PORT or :PORT", addr), Err: err}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}
