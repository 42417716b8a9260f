package reconcile

import (
	"slices"
	"sort"
	"strings"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/library"
)

// survey is what a pass decides from, as plain values: the planning steps
// below (sift, decide) read neither the disk nor the index, so tests drive
// them with literals.
type survey struct {
	walk *walkResult
	// rows are the index's file rows as the pass began, by path.
	rows map[string]library.File
	// known is what the index remembers of each folder. It is read once
	// the files are hashed, as late as it can be.
	known map[string]index.LibraryRoot
	// inScope reports whether the pass looked where a row lies, so that
	// not finding its file there means the file is gone.
	inScope func(library.File) bool
	// issueScope are the paths under which issues the pass did not meet
	// again are cleared.
	issueScope []string
	// full: the walk covered every configured root.
	full bool
}

// sifted is what a pass knows before it reads any file.
type sifted struct {
	// read are the files whose content must be hashed, by path.
	read []entry
	// renamed are new paths that are a gone row's file renamed (same
	// inode, size and mtime): the row's hash serves without a read.
	renamed []hashedFile
	// gone are the rows in scope whose file the walk did not see and
	// that lie under nothing unreadable, by path.
	gone []library.File
}

// readResult is what hashing the files to be read found.
type readResult struct {
	done []hashedFile
	// unstable files changed while they were read; their rows stay as
	// they were until the next pass.
	unstable []entry
	// problems are the files that could not be read.
	problems []problem
}

// putKind is what a written file row means for the run's counters.
type putKind uint8

const (
	// restat: the path holds the content it was indexed with; only what a
	// stat tells changed.
	restat putKind = iota
	// changed: the path holds new content.
	changed
	// moved: a new path holds the content of a row that is gone.
	moved
	// added: a new path. Whether its content is a new book, a copy of one
	// or excluded content is the index's to tell when the row is written.
	added
)

// put is a file row to write.
type put struct {
	file library.File
	// prev is the content the path held before; zero for a new path.
	prev library.Hash
	kind putKind
	// from is the path a moved file was at.
	from string
}

// fate is what becomes of the row of a file that is gone.
type fate uint8

const (
	// removed: the row is removed and counted as a removal.
	removed fate = iota
	// moveSource: the file moved; the row goes as part of the move.
	moveSource
	// held: the removal is held back for want of evidence; the row stays.
	held
	// absorbed: the file is there, but as part of an mdBook it is no book
	// of its own any more; the row goes, with no removal to judge or count.
	absorbed
)

type goneRow struct {
	path string
	hash library.Hash
	fate fate
}

// trustedRoot is a folder whose identity a pass remembers.
type trustedRoot struct {
	path string
	id   library.RootIdentity
	// mount: a mount point below a library folder (see rootSeen).
	mount bool
}

// plan is everything a pass changes in the index. write applies it in
// this order: the puts, then the gone rows (a delete and a create in one
// pass pair up as a move), then books, issues and folders.
type plan struct {
	// puts are the file rows to write, by path.
	puts []put
	// gone are the rows of files that are gone, by path.
	gone []goneRow
	// removals says which folders' removals are held, and how many each
	// folder has.
	removals removalPlan
	// trust are the folders whose identity is remembered as it is now, by
	// path; forget the folders the index drops, by path.
	trust  []trustedRoot
	forget []string
	// problems are reported in the run, in the order they were met; the
	// persistent ones are recorded as issues, and older issues under
	// issueScope that are not among them are cleared.
	problems   []problem
	issueScope []string
	// unsupported are the files seen that are no book, path → extension;
	// a remembered one under a path the pass looked at (lookedAt) and did
	// not see is gone.
	unsupported map[string]string
	lookedAt    func(path string) bool
}

// sift applies the stat fast path and finds renames, so that only files
// whose content may have changed are read.
func (s *scanner) sift(sv survey) sifted {
	var out sifted
	var toHash []entry
	for _, e := range sortedEntries(sv.walk.files) {
		if !s.unchanged(e, sv.rows) {
			toHash = append(toHash, e)
		}
	}
	for _, f := range sv.rows {
		if _, seen := sv.walk.files[f.Path]; seen || isBlocked(f.Path, sv.walk.blocked) || !sv.inScope(f) {
			continue
		}
		out.gone = append(out.gone, f)
	}
	sort.Slice(out.gone, func(i, j int) bool { return out.gone[i].Path < out.gone[j].Path })

	// A new path with the inode, size and mtime of a vanished one is that
	// file renamed: take its hash without reading it.
	byInode := make(map[uint64]library.File)
	for _, f := range out.gone {
		if f.Inode != 0 {
			byInode[f.Inode] = f
		}
	}
	for _, e := range toHash {
		if _, known := sv.rows[e.Path]; !known && e.Inode != 0 {
			if f, ok := byInode[e.Inode]; ok && f.Size == e.Size && f.MtimeNS == e.ModTimeNS {
				out.renamed = append(out.renamed, hashedFile{entry: e, hash: f.Hash, verifiedNS: f.VerifiedNS})
				continue
			}
		}
		out.read = append(out.read, e)
	}
	return out
}

// unchanged is the fast path: a file whose size, mtime and inode match its
// row, and whose mtime is safely older than when the row was verified, is
// unchanged.
func (s *scanner) unchanged(e entry, rows map[string]library.File) bool {
	row, ok := rows[e.Path]
	return ok && row.Size == e.Size && row.MtimeNS == e.ModTimeNS && (row.Inode == e.Inode || e.Inode == 0) &&
		e.ModTimeNS+s.racyWindow(e.ModTimeNS).Nanoseconds() <= row.VerifiedNS
}

// decide makes the plan once the files that had to be read are hashed.
// Rows of files that were unreadable or changing are neither written nor
// gone (the walk saw their files), so they stay as they were.
func (s *scanner) decide(sv survey, sf sifted, rr readResult) plan {
	hashed := append(slices.Clone(sf.renamed), rr.done...)
	sort.Slice(hashed, func(i, j int) bool { return hashed[i].Path < hashed[j].Path })

	// A new path holding the content of a vanished one is that file
	// moved: the old path's removal is part of the move.
	goneByHash := make(map[library.Hash][]string)
	for _, f := range sf.gone {
		goneByHash[f.Hash] = append(goneByHash[f.Hash], f.Path)
	}
	consumed := make(map[string]bool)
	p := plan{issueScope: sv.issueScope, unsupported: sv.walk.unsupported, lookedAt: func(path string) bool {
		// The same judgement as for a book's row: a folder that could not
		// be listed, or a missing library folder, forgets nothing.
		f := library.File{Path: path, Root: subtree.RootOf(path, s.opts.Roots)}
		return sv.inScope(f) && !isBlocked(path, sv.walk.blocked)
	}}
	for _, h := range hashed {
		row, had := sv.rows[h.Path]
		pt := put{file: library.File{Path: h.Path, Root: h.Root, Hash: h.hash, Size: h.Size, MtimeNS: h.ModTimeNS, Inode: h.Inode, VerifiedNS: h.verifiedNS, SourceType: h.Type}}
		switch {
		case had && row.Hash == h.hash:
			pt.prev, pt.kind = row.Hash, restat
		case had:
			pt.prev, pt.kind = row.Hash, changed
		case takeMove(goneByHash, h.hash, consumed, &pt.from):
			pt.kind = moved
		default:
			pt.kind = added
		}
		p.puts = append(p.puts, pt)
	}

	var removals []library.File
	for _, f := range sf.gone {
		if !consumed[f.Path] && !sv.walk.inBook[f.Path] {
			removals = append(removals, f)
		}
	}
	p.removals = s.judgeRemovals(removals, sv.rows, sv.walk.roots, sv.walk.mounts, sv.known)
	for _, f := range sf.gone {
		g := goneRow{path: f.Path, hash: f.Hash, fate: removed}
		switch {
		case consumed[f.Path]:
			g.fate = moveSource
		case sv.walk.inBook[f.Path]:
			g.fate = absorbed
		case p.removals.held[s.folderOf(f, p.removals.mounts)] != "":
			g.fate = held
		}
		p.gone = append(p.gone, g)
	}
	p.trust, p.forget = s.rootChanges(sv, p.removals)
	p.problems = append(slices.Clone(sv.walk.problems), rr.problems...)
	return p
}

// rootChanges decides which folders the pass trusts as they are now (their
// removals were all applied) and which it forgets.
func (s *scanner) rootChanges(sv survey, removals removalPlan) (trust []trustedRoot, forget []string) {
	for root, seen := range sv.walk.roots {
		if removals.held[root] != "" {
			continue
		}
		// A partial pass trusts a folder seen for the first time, or
		// after a prune, but only a full one clears an earlier hold or
		// accepts a folder that changed identity.
		k, ok := sv.known[root]
		if sv.full || s.opts.Prune || !ok || k.Identity.IsZero() && k.Hold == nil {
			trust = append(trust, trustedRoot{path: root, id: seen.id})
		}
	}
	trust = append(trust, s.trustedMounts(sv, removals)...)
	slices.SortFunc(trust, func(a, b trustedRoot) int { return strings.Compare(a.path, b.path) })
	if !sv.full {
		return trust, nil
	}
	// A folder left out of the library is forgotten once no file row
	// lies under it.
	rows := make(map[string]bool)
	for _, f := range sv.rows {
		rows[s.rootKey(f)] = true
	}
	for root, k := range sv.known {
		if !k.Mount && !slices.Contains(s.opts.Roots, root) && removals.held[root] == "" && (!rows[root] || s.opts.Prune) {
			forget = append(forget, root)
		}
	}
	// A mount point is forgotten once it is no longer one, or is gone,
	// with no removal held under it; or once it is outside the library.
	// One the pass could not look at is kept.
	for path, k := range sv.known {
		if !k.Mount || removals.held[path] != "" {
			continue
		}
		root, seen := subtree.RootOf(path, s.opts.Roots), sv.walk.mounts[path]
		switch {
		case slices.Contains(s.opts.Roots, path):
			// A library folder now: TrustRoot makes it one.
		case root == "":
			forget = append(forget, path)
		case sv.walk.roots[root] == nil || isBlocked(path, sv.walk.blocked):
		case seen == nil || !seen.mount:
			forget = append(forget, path)
		}
	}
	slices.Sort(forget)
	return trust, forget
}

// trustedMounts are the mount points below library folders that the pass
// remembers as they are now: under the rules for library folders, and
// only while they are mount points.
func (s *scanner) trustedMounts(sv survey, removals removalPlan) []trustedRoot {
	var trust []trustedRoot
	for path, seen := range sv.walk.mounts {
		if !seen.mount || removals.held[path] != "" {
			continue
		}
		k, ok := sv.known[path]
		if sv.full || s.opts.Prune || !ok || !k.Mount || k.Identity.IsZero() && k.Hold == nil {
			trust = append(trust, trustedRoot{path: path, id: seen.id, mount: true})
		}
	}
	return trust
}

// takeMove pairs a new path with a vanished path of the same content, and
// sets from to it.
func takeMove(goneByHash map[library.Hash][]string, h library.Hash, consumed map[string]bool, from *string) bool {
	for _, p := range goneByHash[h] {
		if !consumed[p] {
			consumed[p] = true
			*from = p
			return true
		}
	}
	return false
}
