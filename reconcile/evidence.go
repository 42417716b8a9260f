package reconcile

import (
	"fmt"
	"slices"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/plural"
	"github.com/grimoire-search/grimoire/internal/subtree"
)

// massRemoval is the "handful": a pass may remove this many files under a
// folder whatever share of it they are. More than this and more than half
// of the folder's files at once is held.
const massRemoval = 10

// rootSeen is what a pass saw of a library folder.
type rootSeen struct {
	id index.RootIdentity
	// walked: the folder was listed in full, so files counts every book
	// file under it.
	walked bool
	files  int
}

// removalPlan is which removals of gone files a pass applies and which it
// holds back for want of evidence that the files are really gone.
type removalPlan struct {
	// held maps a folder to why its removals are held.
	held map[string]string
	// counts maps a folder to the number of removals judged under it.
	counts map[string]int
}

// rootKey is the folder a file row is judged under: the configured library
// folder it lies in, else the folder it was found in (no longer part of
// the library).
func (s *scanner) rootKey(f index.File) string {
	if r := subtree.RootOf(f.Path, s.opts.Roots); r != "" {
		return r
	}
	return f.Root
}

// judgeRemovals decides, folder by folder, whether the removals of files
// that are gone may be applied. Files vanish for good reasons (the user
// deleted them) and for bad ones (a drive was unmounted, leaving an empty
// folder at its mount point; a sync client emptied a folder), and a
// pruned book costs its contexts and vectors, hours to rebuild. So
// removals under a folder are held when
//   - the folder is no longer in the library (a typo in the config, a
//     path given by mistake),
//   - the folder is not the one the files were found in (another device,
//     or the folder was replaced),
//   - a full walk found it empty while it held files, or
//   - more than a handful and more than half of its files went at once.
//
// existing are the file rows before the pass; known is what the index
// remembers of each folder.
func (s *scanner) judgeRemovals(removals []index.File, existing map[string]index.File, roots map[string]*rootSeen, known map[string]index.LibraryRoot) removalPlan {
	plan := removalPlan{held: make(map[string]string), counts: make(map[string]int)}
	for _, f := range removals {
		plan.counts[s.rootKey(f)]++
	}
	if s.opts.Prune || len(removals) == 0 {
		return plan
	}
	rows := make(map[string]int)
	for _, f := range existing {
		rows[s.rootKey(f)]++
	}
	for root, n := range plan.counts {
		seen, configured := roots[root], slices.Contains(s.opts.Roots, root)
		was := known[root].Identity
		switch {
		case !configured:
			plan.held[root] = "it is no longer a library folder"
		case seen == nil:
			// Not looked at in this pass; nothing under it was judged gone.
		case !was.IsZero() && !seen.id.IsZero() && was.Device != seen.id.Device:
			plan.held[root] = "the folder is on another device than when its files were indexed (an unmounted drive?)"
		case !was.IsZero() && !seen.id.IsZero() && was.Inode != seen.id.Inode:
			plan.held[root] = "the folder was replaced by another one since its files were indexed"
		case seen.walked && seen.files == 0:
			plan.held[root] = fmt.Sprintf("the folder is empty but held %s (an unmounted drive?)", plural.Count(rows[root], "file"))
		case n > massRemoval && 2*n > rows[root]:
			plan.held[root] = fmt.Sprintf("%d of its %d files are gone at once", n, rows[root])
		}
	}
	return plan
}

// holds lists the plan's held removals for the run's result.
func (p removalPlan) holds() []index.Hold {
	var out []index.Hold
	for root, reason := range p.held {
		out = append(out, index.Hold{Root: root, Reason: reason, Files: p.counts[root]})
	}
	return out
}
