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

	"github.com/grimoire-search/grimoire/fault"
	"github.com/grimoire-search/grimoire/index"
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

func (a *app) serveCmd() *cobra.Command {
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

func (a *app) serve(ctx context.Context, f serveFlags) error {
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
	// Checked before waitForIndex, which would make an index.
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
	if err := a.waitForIndex(ctx); err != nil {
		return err
	}
	if f.watch {
		// Only now: waitForIndex may take the writer for a moment to
		// create the index, and a watch that found it taken would wait
		// half a minute before it tried again.
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.watchWhenFree(ctx)
		}()
	}
	lib, closeLib, err := a.openLibrary(ctx)
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

// waitForIndex makes sure there is an index to read: when none exists yet,
// or an older grimoire wrote it, it creates or upgrades it (if no other
// process is writing) or waits for the writer that is doing so.
func (a *app) waitForIndex(ctx context.Context) error {
	for {
		if _, err := os.Stat(a.cfg.DBPath); err == nil {
			r, err := index.OpenReader(ctx, a.cfg.DBPath)
			if err == nil {
				r.Close()
				return nil
			}
			if fault.CodeOf(err) != fault.NotFound && !errors.Is(err, index.ErrOutdated) {
				return err
			}
			if errors.Is(err, index.ErrOutdated) {
				// A client that gives up on the server meanwhile stops
				// the upgrade, which then starts again at the next start.
				fmt.Fprintf(a.stderr, "grimoire: upgrading the index %s before serving, once; on a large library this takes a minute or more (if the client gives up waiting, run `grimoire sync` once in a terminal)\n", a.cfg.DBPath)
			}
		}
		w, err := index.OpenWriter(ctx, a.cfg.DBPath, "grimoire serve")
		if err == nil {
			w.Close()
			continue
		}
		if fault.CodeOf(err) != fault.Conflict {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// watchWhenFree runs the watcher whenever the writer lock is free, and stays
// quietly read-only while another process holds it, trying again now and
// then.
func (a *app) watchWhenFree(ctx context.Context) {
	const retry = 30 * time.Second
	for ctx.Err() == nil {
		w, err := a.openWriter(ctx, "grimoire serve --watch")
		if err != nil {
			if fault.CodeOf(err) != fault.Conflict {
				a.log.Error("cannot watch the library", "err", err)
			} else {
				a.log.Info("another process writes the index; serving read-only", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(retry):
				continue
			}
		}
		opts, err := a.syncerOptions(ctx, w)
		if err == nil {
			// stdout is the MCP channel: what the watch does goes to
			// stderr, with the logs.
			log := a.watchLog(a.stderr)
			opts.Reconcile.Changed = log.reconciled
			opts.Ingest.Finished = log.ingested
			err = a.watchTakingRequests(ctx, w, opts, "grimoire serve --watch")
		}
		w.Close()
		if err != nil {
			a.log.Error("watching stopped", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(retry):
			}
		}
	}
}
