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
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/libfile"
	"github.com/grimoire-search/grimoire/internal/subtree"
)

// Options configure a reconcile run.
type Options struct {
	// Roots are the library folders, absolute and clean.
	Roots []string
	// TypeOf returns a path's source type, or "" when grimoire does not read
	// that kind of file.
	TypeOf func(path string) string
	// MaxFileSize skips (and reports) larger files; 0 means no limit.
	MaxFileSize int64
	// RacyWindow is the mtime resolution assumed for file systems with
	// sub-second mtimes (default 100 ms; whole-second mtimes get 2 s). A
	// write within that window of a read could leave the mtime unchanged, so
	// a file is never read until its mtime is that old, and a row verified
	// less than that after the mtime is not trusted.
	RacyWindow time.Duration
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
	Logger   *slog.Logger
}

// Result is what a reconcile run did.
type Result struct {
	index.Counters
	Failures []index.Failure
	// Holds are the removals held back for want of evidence, by folder.
	Holds []index.Hold
}

type scanner struct {
	opts Options
	w    *index.Writer
	log  *slog.Logger
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
	if opts.TypeOf == nil {
		opts.TypeOf = func(string) string { return "" }
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &scanner{opts: opts, w: w, log: log}
}

// Run reconciles every root with the index.
func Run(ctx context.Context, w *index.Writer, opts Options) (Result, error) {
	s := newScanner(w, opts)
	res, err := s.walkRoots(ctx, s.opts.Roots)
	if err != nil {
		return Result{}, err
	}
	vanished := func(f index.File) bool {
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
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			scope = append(scope, p)
		case err != nil:
			res.blocked = append(res.blocked, p)
			res.problems = append(res.problems, problem{path: p, reason: fmt.Sprintf("cannot stat: %v", unwrapPath(err))})
		case fi.IsDir():
			scope = append(scope, p)
			if err := s.walkDir(ctx, root, p, res); err != nil {
				return Result{}, err
			}
		case fi.Mode().IsRegular():
			scope = append(scope, p)
			if typ := s.opts.TypeOf(p); typ != "" {
				if err := s.addFile(p, root, typ, fi, res); err != nil {
					return Result{}, err
				}
			}
		default:
			scope = append(scope, p) // a file replaced by a link, FIFO or device is gone
		}
	}
	vanished := func(f index.File) bool { return subtree.InAny(f.Path, scope) }
	return s.apply(ctx, res, vanished, scope, false)
}

// apply hashes what the walk found, records new, changed, moved and copied
// paths, then the removals the evidence allows. full: the walk covered
// every configured root, so what it did not see under one is gone.
func (s *scanner) apply(ctx context.Context, res *walkResult, inScope func(index.File) bool, issueScope []string, full bool) (Result, error) {
	var out Result
	out.Scanned = len(res.files)
	out.Skipped = res.skipped
	existing, err := s.w.Files(ctx)
	if err != nil {
		return out, err
	}

	// Fast path: a file whose size, mtime and inode match its row, and whose
	// mtime is safely older than when the row was verified, is unchanged.
	var toHash []entry
	for _, e := range sortedEntries(res.files) {
		row, ok := existing[e.path]
		if ok && row.Size == e.size && row.MtimeNS == e.mtimeNS && (row.Inode == e.inode || e.inode == 0) &&
			e.mtimeNS+s.racyWindow(e.mtimeNS).Nanoseconds() <= row.VerifiedNS {
			continue
		}
		toHash = append(toHash, e)
	}

	var gone []index.File
	for _, f := range existing {
		if _, seen := res.files[f.Path]; seen || isBlocked(f.Path, res.blocked) || !inScope(f) {
			continue
		}
		gone = append(gone, f)
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].Path < gone[j].Path })

	// A new path with the inode, size and mtime of a vanished one is that
	// file renamed: take its hash without reading it.
	byInode := make(map[uint64]index.File)
	for _, f := range gone {
		if f.Inode != 0 {
			byInode[f.Inode] = f
		}
	}
	var hashed []hashedFile
	var need []entry
	for _, e := range toHash {
		if _, known := existing[e.path]; !known && e.inode != 0 {
			if f, ok := byInode[e.inode]; ok && f.Size == e.size && f.MtimeNS == e.mtimeNS {
				hashed = append(hashed, hashedFile{entry: e, hash: f.Hash, verifiedNS: f.VerifiedNS})
				continue
			}
		}
		need = append(need, e)
	}
	fresh, unstable, hashProblems := s.hashAll(ctx, need)
	if err := ctx.Err(); err != nil {
		return out, err
	}
	out.Hashed = len(fresh) + len(unstable)
	out.Skipped += len(unstable)
	hashed = append(hashed, fresh...)
	res.problems = append(res.problems, hashProblems...)
	for _, p := range hashProblems {
		res.blocked = append(res.blocked, p.path)
	}
	// Rows of files that were unreadable or changing stay as they were.
	blockedNow := make(map[string]bool)
	for _, p := range res.blocked {
		blockedNow[p] = true
	}
	for _, e := range unstable {
		blockedNow[e.path] = true
	}
	keptGone := gone[:0]
	for _, f := range gone {
		if !blockedNow[f.Path] {
			keptGone = append(keptGone, f)
		}
	}
	gone = keptGone
	sort.Slice(hashed, func(i, j int) bool { return hashed[i].path < hashed[j].path })

	// A new path holding the content of a vanished one is that file
	// moved: the old path's removal is part of the move.
	goneByHash := make(map[index.Hash][]string)
	for _, f := range gone {
		goneByHash[f.Hash] = append(goneByHash[f.Hash], f.Path)
	}
	consumed := make(map[string]bool)
	movedTo := make(map[string]bool)
	for _, h := range hashed {
		if _, had := existing[h.path]; !had && takeMove(goneByHash, h.hash, consumed) {
			movedTo[h.path] = true
		}
	}
	var removals []index.File
	for _, f := range gone {
		if !consumed[f.Path] {
			removals = append(removals, f)
		}
	}
	known, err := s.w.LibraryRoots(ctx)
	if err != nil {
		return out, err
	}
	plan := s.judgeRemovals(removals, existing, res.roots, known)
	out.Holds = plan.holds()

	// New and changed paths first, removals last: a delete and a create in
	// the same pass pair up as a move.
	for start := 0; start < len(hashed); start += s.opts.BatchSize {
		batch := hashed[start:min(start+s.opts.BatchSize, len(hashed))]
		err := s.w.Update(ctx, func(t *index.Tx) error {
			for _, h := range batch {
				row, had := existing[h.path]
				f := index.File{Path: h.path, Root: h.root, Hash: h.hash, Size: h.size, MtimeNS: h.mtimeNS, Inode: h.inode, VerifiedNS: h.verifiedNS}
				var prev index.Hash
				if had {
					prev = row.Hash
				}
				created, err := t.PutFile(ctx, f, prev, h.typ)
				if err != nil {
					return err
				}
				switch {
				case had && row.Hash == h.hash:
					// Same content, new stat: nothing to count.
				case had:
					out.Changed++
				case movedTo[h.path]:
					out.Moved++
				case created:
					out.New++
				default:
					excluded, err := t.Excluded(ctx, h.hash)
					if err != nil {
						return err
					}
					if excluded {
						out.Excluded++
					} else {
						out.Copied++
					}
				}
			}
			return nil
		})
		if err != nil {
			return out, err
		}
	}
	for start := 0; start < len(gone); start += s.opts.BatchSize {
		batch := gone[start:min(start+s.opts.BatchSize, len(gone))]
		err := s.w.Update(ctx, func(t *index.Tx) error {
			for _, f := range batch {
				if !consumed[f.Path] && plan.held[s.rootKey(f)] != "" {
					out.Held++
					continue
				}
				if err := t.RemoveFile(ctx, f.Path); err != nil {
					return err
				}
				if !consumed[f.Path] {
					out.Removed++
				}
			}
			return nil
		})
		if err != nil {
			return out, err
		}
	}
	err = s.w.Update(ctx, func(t *index.Tx) error {
		n, err := t.EnsureBooks(ctx, s.opts.TypeOf)
		if err != nil {
			return err
		}
		out.New += n
		keep := make(map[string]bool)
		for _, p := range res.problems {
			if p.persistent {
				keep[p.path] = true
				if err := t.RecordIssue(ctx, p.path, p.reason); err != nil {
					return err
				}
			}
		}
		if err := t.ClearIssues(ctx, issueScope, keep); err != nil {
			return err
		}
		if err := s.recordRoots(ctx, t, res, plan, known, existing, full); err != nil {
			return err
		}
		pruned, err := t.Prune(ctx)
		out.Pruned += pruned
		return err
	})
	if err != nil {
		return out, err
	}
	for _, p := range res.problems {
		out.Failures = append(out.Failures, index.Failure{Path: p.path, Error: p.reason})
		s.log.Warn("skipped", "path", p.path, "reason", p.reason)
	}
	return out, nil
}

// recordRoots remembers each folder's identity once its removals were
// all applied, and the removals held back under the others.
func (s *scanner) recordRoots(ctx context.Context, t *index.Tx, res *walkResult, plan removalPlan, known map[string]index.LibraryRoot, existing map[string]index.File, full bool) error {
	for root, reason := range plan.held {
		if err := t.HoldRemovals(ctx, root, reason, plan.counts[root]); err != nil {
			return err
		}
	}
	for root, seen := range res.roots {
		if plan.held[root] != "" {
			continue
		}
		// A partial pass trusts a folder seen for the first time, or
		// after a prune, but only a full one clears an earlier hold or
		// accepts a folder that changed identity.
		k, ok := known[root]
		if full || s.opts.Prune || !ok || k.Identity.IsZero() && k.Hold == nil {
			if err := t.TrustRoot(ctx, root, seen.id); err != nil {
				return err
			}
		}
	}
	if !full {
		return nil
	}
	// A folder left out of the library is forgotten once no file row
	// lies under it.
	rows := make(map[string]bool)
	for _, f := range existing {
		rows[s.rootKey(f)] = true
	}
	for root := range known {
		if !slices.Contains(s.opts.Roots, root) && plan.held[root] == "" && (!rows[root] || s.opts.Prune) {
			if err := t.ForgetRoot(ctx, root); err != nil {
				return err
			}
		}
	}
	return nil
}

// takeMove pairs a new path with a vanished path of the same content.
func takeMove(goneByHash map[index.Hash][]string, h index.Hash, consumed map[string]bool) bool {
	for _, p := range goneByHash[h] {
		if !consumed[p] {
			consumed[p] = true
			return true
		}
	}
	return false
}

// msgSettling is logged (debug) before the hasher waits for a just-written
// file's mtime to age.
const msgSettling = "waiting for a just-written file to settle"

// emptyReason is recorded for a 0-byte file, which is never a book.
const emptyReason = "file is empty; nothing to index"

type hashedFile struct {
	entry
	hash       index.Hash
	verifiedNS int64
}

// hashAll hashes files in parallel. A file that is not what the walk saw
// any more (written to, replaced, swapped for a link or a FIFO, gone) is
// returned as unstable and left for the next pass.
func (s *scanner) hashAll(ctx context.Context, files []entry) (done []hashedFile, unstable []entry, problems []problem) {
	if len(files) == 0 {
		return nil, nil, nil
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
					unstable = append(unstable, e)
					s.log.Info("file changed since the scan; left for the next pass", "path", e.path, "reason", unwrapPath(err))
				case err != nil:
					problems = append(problems, problem{path: e.path, reason: fmt.Sprintf("cannot read: %v", unwrapPath(err)), persistent: true})
				default:
					done = append(done, h)
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
	return done, unstable, problems
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
	if wait := time.Duration(e.mtimeNS) + s.racyWindow(e.mtimeNS) - time.Duration(time.Now().UnixNano()); wait > 0 && wait <= 2*time.Second {
		s.log.Debug(msgSettling, "path", e.path, "wait", wait)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return hashedFile{}, ctx.Err()
		}
	}
	start := time.Now().UnixNano()
	f, err := libfile.Open(e.root, e.path, libfile.Want{Size: e.size, Dev: e.dev, Ino: e.inode})
	if err != nil {
		return hashedFile{}, err
	}
	defer f.Close()
	before := f.Info()
	h, _, err := index.HashReader(f.Reader(ctx), buf)
	if err != nil {
		return hashedFile{}, err
	}
	after, err := f.Stat()
	if err != nil {
		return hashedFile{}, err
	}
	if after.Size != before.Size || !after.ModTime.Equal(before.ModTime) {
		return hashedFile{}, fmt.Errorf("%w (written to while it was read)", libfile.ErrChanged)
	}
	e.mtimeNS = before.ModTime.UnixNano()
	return hashedFile{entry: e, hash: h, verifiedNS: start}, nil
}

func sortedEntries(m map[string]entry) []entry {
	out := make([]entry, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func underCovered(f index.File, res *walkResult) bool {
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
