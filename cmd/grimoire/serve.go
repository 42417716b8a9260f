package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/mcp"
	"github.com/grimoire-search/grimoire/syncer"
)

func (a *app) serveCmd() *cobra.Command {
	var httpAddr string
	var watch bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the library to Claude and other MCP clients (stdio by default)",
		Long: `serve runs the read-only MCP server: over stdin/stdout (how Claude Desktop and
Claude Code start it), or with --http over streamable HTTP at /mcp, on
loopback unless an address with a host is given (--http 0.0.0.0:8765 to
listen everywhere). With --watch it also keeps the index in sync while no
other grimoire writes it; several servers never start several writers.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.serve(cmd.Context(), httpAddr, watch)
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765 or :8765 for loopback)")
	cmd.Flags().BoolVar(&watch, "watch", false, "also keep the index in sync when no other process writes it")
	return cmd
}

func (a *app) serve(ctx context.Context, httpAddr string, watch bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	if watch {
		if err := a.cfg.requireLibrary(); err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.watchWhenFree(ctx)
		}()
	}
	if err := a.waitForIndex(ctx); err != nil {
		return err
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
	srv := mcp.New(lib, mcp.Options{Version: version, Roots: a.cfg.Library, Logger: a.log})
	if httpAddr == "" {
		return srv.ServeStdio(ctx, a.stdin, a.rawStdout)
	}
	addr, err := loopbackDefault(httpAddr)
	if err != nil {
		return err
	}
	return srv.ServeHTTP(ctx, addr, func(bound net.Addr) {
		fmt.Fprintf(a.stderr, "grimoire: MCP over streamable HTTP at http://%s/mcp\n", bound)
	})
}

// loopbackDefault binds ":port" to loopback: listening on every interface
// must be asked for with an explicit host.
func loopbackDefault(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", &index.Error{Code: index.Invalid, Msg: fmt.Sprintf("--http %q: want HOST:PORT or :PORT", addr), Err: err}
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
			if index.CodeOf(err) != index.NotFound && !errors.Is(err, index.ErrOutdated) {
				return err
			}
		}
		w, err := index.OpenWriter(ctx, a.cfg.DBPath, "grimoire serve")
		if err == nil {
			w.Close()
			continue
		}
		if index.CodeOf(err) != index.Conflict {
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
			if index.CodeOf(err) != index.Conflict {
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
			err = syncer.Watch(ctx, w, opts)
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
