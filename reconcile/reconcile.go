// Package reconcile keeps the index's file table in step with the library
// folders: it walks the roots, skips what is not a book, finds changed files
// by a stat fast path and a streaming BLAKE3 hash, works out what is new,
// changed, moved, copied and removed, and applies that to the index in short
// transactions. It never parses documents.
package reconcile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/libfile"
	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/source"
)

// Options configure a reconcile run.
type Options struct {
	// Roots are the library folders, absolute and clean.
	Roots []string
	// Formats tells the files that are books, and their formats; nil
	// takes no file for a book.
	Formats Formats
	// MaxFileSize skips (and reports) larger files; 0 means no limit.
	MaxFileSize int64
	// RacyWindow is the mtime resolution assumed for file systems with
	// sub-second mtimes (default 100 ms; whole-second mtimes get 2 s). A
	// write within that window of a read could leave the mtime unchanged, so
	// a file is never read until its mtime is that old, and a row verified
	// less than that after the mtime is not trusted.
	RacyWindow time.Duration
	// CalibrePrefer is the order of source types to take from a calibre
	// entry's formats (see internal/calibre): one book per entry. nil
	// treats a calibre library as any folder.
	CalibrePrefer []string
	// MDBook takes an mdBook folder (a SUMMARY.md, with or without a
	// book.toml; see internal/mdbook) for one book; false reads its
	// Markdown files as books each.
	MDBook bool
	// Zotero takes a Zotero data directory's items for books (see
	// source.Options.ZoteroIn); ZoteroBaseDir resolves its linked files
	// stored relative to Zotero's base directory.
	Zotero        bool
	ZoteroBaseDir string
	// HashWorkers hash files in parallel; default min(4, GOMAXPROCS).
	HashWorkers int
	// BatchSize is the number of path changes per transaction; default 256.
	BatchSize int
	// Prune applies every removal, also those the evidence rules would
	// hold back (see judgeRemovals): the user has checked that the files
	// are really gone.
	Prune bool
	// Progress, when set, is called as files are hashed.
	Progress func(done, total int)
	// Changed, when set, is told of each change a pass wrote (moves,
	// copies, removals), each hold and each file it could not take, once
	// the pass has written them. A pass that fails part-way tells of the
	// changes it committed.
	Changed func(Change)
	Logger  *slog.Logger
}

// Formats tells books from the other files of a library.
type Formats interface {
	// TypeOf returns the source type of the file at path, judged by its
	// name alone, or "" when grimoire does not read that kind of file.
	TypeOf(path string) string
}

// noFormats takes no file for a book.
type noFormats struct{}

func (noFormats) TypeOf(string) string { return "" }

// Result is what a reconcile run did.
type Result struct {
	library.Counters
	Failures []library.Failure
	// Holds are the removals held back for want of evidence, by folder.
	Holds []library.Hold
}

type scanner struct {
	opts Options
	// src tells which folders are one book.
	src source.Options
	w   *index.Writer
	log *slog.Logger
}

func newScanner(w *index.Writer, opts Options) *scanner {
	if opts.RacyWindow == 0 {
		opts.RacyWindow = 100 * time.Millisecond
	}
	if opts.HashWorkers <= 0 {
		opts.HashWorkers = min(4, runtime.GOMAXPROCS(0))
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 256
	}
	if opts.Formats == nil {
		opts.Formats = noFormats{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &scanner{opts: opts, src: source.Options{CalibrePrefer: opts.CalibrePrefer, MDBook: opts.MDBook, Zotero: opts.Zotero, ZoteroBaseDir: opts.ZoteroBaseDir}, w: w, log: log}
}

// Run reconciles every root with the index.
func Run(ctx context.Context, w *index.Writer, opts Options) (Result, error) {
	s := newScanner(w, opts)
	res, err := s.walkRoots(ctx, s.opts.Roots)
	if err != nil {
		return Result{}, err
	}
	vanished := func(f library.File) bool {
		// A row under no configured root is judged as a removal too; the
		// evidence rules hold it back unless the user asks to prune.
		return underCovered(f, res) || !subtree.InAny(f.Path, s.opts.Roots)
	}
	return s.apply(ctx, res, vanished, s.opts.Roots, true)
}

// Paths reconciles only the given paths (files or directories, existing or
// not), as the watcher reports them. A path that no longer exists removes
// its rows only when its library root still exists.
func Paths(ctx context.Context, w *index.Writer, opts Options, paths []string) (Result, error) {
	s := newScanner(w, opts)
	res := newWalkResult()
	var scope []string
	for _, p := range paths {
		p = filepath.Clean(p)
		root := subtree.RootOf(p, s.opts.Roots)
		if root == "" {
			continue
		}
		if res.roots[root] == nil {
			st, err := os.Stat(root)
			if err != nil || !st.IsDir() {
				res.problems = append(res.problems, problem{path: root, reason: rootProblem(err)})
				continue
			}
			res.roots[root] = &rootSeen{id: folderIdentity(root, st)}
		}
		if hasIgnoredPart(p, root) {
			continue
		}
		if LinkBelow(p, root) != "" {
			// Not a path of the library: a link in it leads elsewhere.
			scope = append(scope, p)
			continue
		}
		if dir := s.src.FolderOf(p, root); dir != "" {
			// A file of an mdBook, or a format or the description of a
			// calibre entry, there or gone, is judged with the others:
			// the book's folder is looked at again.
			if !res.covered[dir] {
				scope = append(scope, dir)
				if err := s.walkDir(ctx, root, dir, res); err != nil {
					return Result{}, err
				}
			}
			continue
		}
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			scope = append(scope, p)
		case err != nil:
			res.blocked = append(res.blocked, p)
			res.problems = append(res.problems, problem{path: p, reason: fmt.Sprintf("cannot stat: %v", libfile.Cause(err))})
		case fi.IsDir():
			scope = append(scope, p)
			if err := s.walkDir(ctx, root, p, res); err != nil {
				return Result{}, err
			}
		case fi.Mode().IsRegular():
			scope = append(scope, p)
			if typ := s.opts.Formats.TypeOf(p); typ != "" {
				s.addEntry(source.File(p, root, typ, fi), res)
			} else {
				s.noteUnsupported(p, res)
			}
		default:
			scope = append(scope, p) // a file replaced by a link, FIFO or device is gone
		}
	}
	vanished := func(f library.File) bool { return subtree.InAny(f.Path, scope) }
	return s.apply(ctx, res, vanished, scope, false)
}

// apply hashes what the walk found, plans what the pass changes, and
// writes the plan. full: the walk covered every configured root, so what
// it did not see under one is gone.
func (s *scanner) apply(ctx context.Context, res *walkResult, inScope func(library.File) bool, issueScope []string, full bool) (Result, error) {
	var out Result
	out.Scanned = len(res.files)
	out.Skipped = res.skipped
	existing, err := s.w.Files(ctx)
	if err != nil {
		return out, err
	}
	sv := survey{walk: res, rows: existing, inScope: inScope, issueScope: issueScope, full: full}
	sf := s.sift(sv)
	rr := s.hashAll(ctx, sf.read)
	if err := ctx.Err(); err != nil {
		return out, err
	}
	out.Hashed = len(rr.done) + len(rr.unstable)
	out.Skipped += len(rr.unstable)
	if sv.known, err = s.w.LibraryRoots(ctx); err != nil {
		return out, err
	}
	s.lookAtMounts(res, sv.known)
	p := s.decide(sv, sf, rr)
	out.Holds = p.removals.holds()
	changes, err := s.write(ctx, p, &out)
	s.tell(changes)
	if err != nil {
		return out, err
	}
	for _, pr := range p.problems {
		out.Failures = append(out.Failures, library.Failure{Path: pr.path, Error: pr.reason})
		// The run's failures are the report; the log only traces them.
		s.log.Debug("skipped", "path", pr.path, "reason", pr.reason)
		s.tell([]Change{{Kind: Skipped, Path: pr.path, Reason: pr.reason}})
	}
	for _, pr := range res.passedOver {
		s.tell([]Change{{Kind: Alternate, Path: pr.path, Reason: pr.reason}})
	}
	for _, z := range res.zotero {
		z.ReadAt = time.Now().UTC()
		if err := s.w.SetZoteroRead(ctx, z); err != nil {
			return out, err
		}
	}
	for _, h := range out.Holds {
		s.tell([]Change{{Kind: Held, Path: h.Root, Files: h.Files, Reason: h.Reason}})
	}
	return out, nil
}

// lookAtMounts completes what the pass saw of the mount points below the
// library folders it looked at: the walk lists those it met, but a
// watcher's batch meets few folders, and an unmounted drive leaves a
// folder that is no mount point. Each one the index remembers is looked
// at here; one that is missing stays out of res.mounts.
func (s *scanner) lookAtMounts(res *walkResult, known map[string]index.LibraryRoot) {
	for path, k := range known {
		root := subtree.RootOf(path, s.opts.Roots)
		if !k.Mount || root == "" || root == path || res.roots[root] == nil || res.mounts[path] != nil {
			continue
		}
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() {
			continue
		}
		dev, _ := libfile.IDOf(fi)
		parent := parentDevice(root, path, res)
		res.mounts[path] = &rootSeen{id: folderIdentity(path, fi), mount: dev != 0 && parent != 0 && dev != parent}
	}
	for path, seen := range res.mounts {
		seen.walked = res.covered[path]
		for dir, n := range res.dirFiles {
			if subtree.Contains(path, dir) {
				seen.files += n
			}
		}
	}
}

// tell hands changes to Options.Changed.
func (s *scanner) tell(changes []Change) {
	if s.opts.Changed == nil {
		return
	}
	for _, ch := range changes {
		s.opts.Changed(ch)
	}
}

// write applies a plan in short transactions and counts what it did:
// new and changed paths first, removals last, so that a delete and a
// create in the same pass pair up as a move. It returns the changes it
// committed.
func (s *scanner) write(ctx context.Context, p plan, out *Result) ([]Change, error) {
	var changes []Change
	err := inBatches(p.puts, s.opts.BatchSize, func(batch []put) error {
		var got []Change
		err := s.w.Update(ctx, func(t *index.Tx) error {
			got = got[:0]
			return writePuts(ctx, t, batch, &out.Counters, &got)
		})
		if err == nil {
			changes = append(changes, got...)
		}
		return err
	})
	if err != nil {
		return changes, err
	}
	hashOf := make(map[string]library.Hash)
	err = inBatches(p.gone, s.opts.BatchSize, func(batch []goneRow) error {
		var got []Change
		err := s.w.Update(ctx, func(t *index.Tx) error {
			got = got[:0]
			return writeGone(ctx, t, batch, &out.Counters, &got)
		})
		if err == nil {
			changes = append(changes, got...)
			for _, g := range batch {
				hashOf[g.path] = g.hash
			}
		}
		return err
	})
	if err != nil {
		return changes, err
	}
	var pruned []library.Book
	err = s.w.Update(ctx, func(t *index.Tx) error {
		var err error
		pruned, err = s.writeRest(ctx, t, p, &out.Counters)
		return err
	})
	if err == nil {
		removedBooks(changes, pruned, hashOf)
	}
	return changes, err
}

// inBatches calls fn with consecutive slices of items of at most size.
func inBatches[T any](items []T, size int, fn func([]T) error) error {
	for start := 0; start < len(items); start += size {
		if err := fn(items[start:min(start+size, len(items))]); err != nil {
			return err
		}
	}
	return nil
}

// writePuts writes file rows.
func writePuts(ctx context.Context, t *index.Tx, batch []put, c *library.Counters, changes *[]Change) error {
	for _, p := range batch {
		created, err := t.PutFile(ctx, p.file, p.prev)
		if err != nil {
			return err
		}
		switch p.kind {
		case restat:
			// Same content, new stat: nothing to count.
		case changed:
			c.Changed++
		case moved:
			c.Moved++
			*changes = append(*changes, Change{Kind: Moved, Path: p.file.Path, From: p.from})
		case added:
			if err := countAdded(ctx, t, p.file, created, c, changes); err != nil {
				return err
			}
		}
	}
	return nil
}

// countAdded counts a new path as a new book, or else as a copy of a
// known one or excluded content.
func countAdded(ctx context.Context, t *index.Tx, f library.File, created bool, c *library.Counters, changes *[]Change) error {
	if created {
		c.New++
		return nil
	}
	excluded, err := t.Excluded(ctx, f.Hash)
	if err != nil {
		return err
	}
	if excluded {
		c.Excluded++
		*changes = append(*changes, Change{Kind: Excluded, Path: f.Path})
		return nil
	}
	c.Copied++
	b, ok, err := t.BookOf(ctx, f.Hash)
	if err != nil {
		return err
	}
	ch := Change{Kind: Copied, Path: f.Path}
	if ok {
		ch.Book = &b
	}
	*changes = append(*changes, ch)
	return nil
}

// writeGone removes the rows of files that are gone, but for those whose
// removal is held.
func writeGone(ctx context.Context, t *index.Tx, batch []goneRow, c *library.Counters, changes *[]Change) error {
	for _, g := range batch {
		if g.fate == held {
			c.Held++
			continue
		}
		if err := t.RemoveFile(ctx, g.path); err != nil {
			return err
		}
		if g.fate == removed {
			c.Removed++
			*changes = append(*changes, Change{Kind: Removed, Path: g.path})
		}
	}
	return nil
}

// writeRest gives new content its books, records the pass's issues and
// what it learnt of each folder, and prunes what no file holds any more.
func (s *scanner) writeRest(ctx context.Context, t *index.Tx, p plan, c *library.Counters) ([]library.Book, error) {
	n, err := t.EnsureBooks(ctx)
	if err != nil {
		return nil, err
	}
	c.New += n
	keep := make(map[string]bool)
	for _, pr := range p.problems {
		if pr.persistent {
			keep[pr.path] = true
			if err := t.RecordIssue(ctx, pr.path, pr.reason); err != nil {
				return nil, err
			}
		}
	}
	if err := t.ClearIssues(ctx, p.issueScope, keep); err != nil {
		return nil, err
	}
	if err := t.RecordUnsupported(ctx, p.unsupported, p.lookedAt); err != nil {
		return nil, err
	}
	for root, reason := range p.removals.held {
		if err := t.HoldRemovals(ctx, root, reason, p.removals.counts[root]); err != nil {
			return nil, err
		}
	}
	for _, r := range p.trust {
		trust := t.TrustRoot
		if r.mount {
			trust = t.TrustMount
		}
		if err := trust(ctx, r.path, r.id); err != nil {
			return nil, err
		}
	}
	for _, root := range p.forget {
		if err := t.ForgetRoot(ctx, root); err != nil {
			return nil, err
		}
	}
	pruned, err := t.Prune(ctx)
	c.Pruned += len(pruned)
	return pruned, err
}

// msgSettling is logged (debug) before the hasher waits for a just-written
// file's mtime to age.
const msgSettling = "waiting for a just-written file to settle"

// emptyReason is recorded for a 0-byte file, which is never a book.
const emptyReason = "file is empty; nothing to index"

type hashedFile struct {
	entry
	hash       library.Hash
	verifiedNS int64
}

// hashAll hashes files in parallel. A file that is not what the walk saw
// any more (written to, replaced, swapped for a link or a FIFO, gone) is
// returned as unstable and left for the next pass.
func (s *scanner) hashAll(ctx context.Context, files []entry) readResult {
	var out readResult
	if len(files) == 0 {
		return out
	}
	jobs := make(chan entry)
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for range s.opts.HashWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for e := range jobs {
				h, err := s.hashFile(ctx, e, buf)
				mu.Lock()
				switch {
				case changedSinceWalk(err):
					out.unstable = append(out.unstable, e)
					s.log.Info("file changed since the scan; left for the next pass", "path", e.Path, "reason", libfile.Cause(err))
				case err != nil:
					out.problems = append(out.problems, problem{path: e.Path, reason: fmt.Sprintf("cannot read: %v", libfile.Cause(err)), persistent: true})
				default:
					out.done = append(out.done, h)
				}
				n++
				if s.opts.Progress != nil {
					s.opts.Progress(n, len(files))
				}
				mu.Unlock()
			}
		}()
	}
	for _, e := range files {
		if ctx.Err() != nil {
			break
		}
		jobs <- e
	}
	close(jobs)
	wg.Wait()
	return out
}

// changedSinceWalk reports whether a hash failed because the path no longer
// holds the regular file the walk saw.
func changedSinceWalk(err error) bool {
	for _, target := range []error{libfile.ErrChanged, libfile.ErrLink, libfile.ErrNotRegular, fs.ErrNotExist} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// racyWindow is the mtime granularity to allow for: whole-second mtimes come
// from file systems (HFS+, FAT, ext3) that cannot tell two writes in the
// same second apart.
func (s *scanner) racyWindow(mtimeNS int64) time.Duration {
	if mtimeNS%int64(time.Second) == 0 {
		return 2 * time.Second
	}
	return s.opts.RacyWindow
}

// hashFile hashes the file the walk saw at e.path, never anything a link
// leads to: see libfile.Open.
func (s *scanner) hashFile(ctx context.Context, e entry, buf []byte) (hashedFile, error) {
	// Read only once the mtime is older than its granularity, so that the
	// row can be trusted by the next pass's fast path (no re-hash of a file
	// that was just copied in).
	if wait := time.Duration(e.ModTimeNS) + s.racyWindow(e.ModTimeNS) - time.Duration(time.Now().UnixNano()); wait > 0 && wait <= 2*time.Second {
		s.log.Debug(msgSettling, "path", e.Path, "wait", wait)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return hashedFile{}, ctx.Err()
		}
	}
	start := time.Now().UnixNano()
	h, mtimeNS, err := e.Hash(ctx, buf)
	if err != nil {
		return hashedFile{}, err
	}
	e.ModTimeNS = mtimeNS
	return hashedFile{entry: e, hash: h, verifiedNS: start}, nil
}

func sortedEntries(m map[string]entry) []entry {
	out := make([]entry, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func underCovered(f library.File, res *walkResult) bool {
	return res.covered[f.Root] && subtree.Contains(f.Root, f.Path)
}

// isBlocked reports whether p is, or lies under, a path that the walk could
// not look at.
func isBlocked(p string, blocked []string) bool { return subtree.InAny(p, blocked) }

// hasIgnoredPart reports whether any element of p below root is ignored.
func hasIgnoredPart(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." {
		return false
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if Ignored(part) {
			return true
		}
	}
	return false
}
