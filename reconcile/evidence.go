package reconcile

import (
	"fmt"
	"slices"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/plural"
	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/library"
)

// massRemoval is the "handful": a pass may remove this many files under a
// folder whatever share of it they are. More than this and more than half
// of the folder's files at once is held.
const massRemoval = 10

// rootSeen is what a pass saw of a library folder, or of a mount point
// below one.
type rootSeen struct {
	id library.RootIdentity
	// walked: the folder was listed in full, so files counts every book
	// file under it.
	walked bool
	files  int
	// mount: the folder is below a library folder, on another device
	// than its parent.
	mount bool
}

// removalPlan is which removals of gone files a pass applies and which it
// holds back for want of evidence that the files are really gone.
type removalPlan struct {
	// held maps a folder to why its removals are held.
	held map[string]string
	// counts maps a folder to the number of removals judged under it.
	counts map[string]int
	// mounts are the mount points below library folders that the index
	// remembers, whose files are judged under them (see folderOf).
	mounts []string
}

// rootKey is the library folder a file row lies in: the configured one
// it lies in, else the folder it was found in (no longer part of the
// library).
func (s *scanner) rootKey(f library.File) string {
	if r := subtree.RootOf(f.Path, s.opts.Roots); r != "" {
		return r
	}
	return f.Root
}

// folderOf is the folder a file row's removal is judged under: the
// innermost remembered mount point that holds it within a configured
// library folder, else its rootKey.
func (s *scanner) folderOf(f library.File, mounts []string) string {
	key := s.rootKey(f)
	if !slices.Contains(s.opts.Roots, key) {
		return key
	}
	for _, m := range mounts {
		if len(m) > len(key) && subtree.Contains(m, f.Path) {
			key = m
		}
	}
	return key
}

// rememberedMounts lists the mount points the index remembers below the
// configured library folders.
func (s *scanner) rememberedMounts(known map[string]index.LibraryRoot) []string {
	var out []string
	for path, k := range known {
		if k.Mount && subtree.InAny(path, s.opts.Roots) && !slices.Contains(s.opts.Roots, path) {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
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
// The folders are the library folders and, below them, the folders that
// were mount points when their files were indexed (a drive mounted in the
// library): those are judged on their own, and their removals are also
// held when the folder is missing or no longer a mount point.
//
// existing are the file rows before the pass; roots and mounts are what
// the pass saw of each folder, known what the index remembers of it.
func (s *scanner) judgeRemovals(removals []library.File, existing map[string]library.File, roots, mounts map[string]*rootSeen, known map[string]index.LibraryRoot) removalPlan {
	plan := removalPlan{held: make(map[string]string), counts: make(map[string]int), mounts: s.rememberedMounts(known)}
	for _, f := range removals {
		plan.counts[s.folderOf(f, plan.mounts)]++
	}
	if s.opts.Prune || len(removals) == 0 {
		return plan
	}
	rows := make(map[string]int)
	for _, f := range existing {
		rows[s.folderOf(f, plan.mounts)]++
	}
	for folder, n := range plan.counts {
		if known[folder].Mount {
			if why := mountEvidence(known[folder].Identity, mounts[folder], n, rows[folder]); why != "" {
				plan.held[folder] = why
			}
			continue
		}
		seen := roots[folder]
		switch {
		case !slices.Contains(s.opts.Roots, folder):
			plan.held[folder] = "it is no longer a library folder"
		case seen == nil:
			// Not looked at in this pass; nothing under it was judged gone.
		default:
			if why := evidence(known[folder].Identity, seen, n, rows[folder]); why != "" {
				plan.held[folder] = why
			}
		}
	}
	return plan
}

// mountEvidence is why the n removals under a folder that was a mount
// point are held, or "": seen is what the pass saw of it, nil when it is
// missing; rows are the files it held.
func mountEvidence(was library.RootIdentity, seen *rootSeen, n, rows int) string {
	switch {
	case seen == nil:
		return "the folder is missing; it was a mount point when its files were indexed (an unmounted drive?)"
	case !seen.mount:
		return "the folder is no longer a mount point, as it was when its files were indexed (an unmounted drive?)"
	}
	return evidence(was, seen, n, rows)
}

// evidence is why the n removals under a folder the pass saw are held,
// or "": was is its identity when its files were trusted, rows the files
// it held.
func evidence(was library.RootIdentity, seen *rootSeen, n, rows int) string {
	switch {
	case !was.IsZero() && !seen.id.IsZero() && was.Device != seen.id.Device:
		return "the folder is on another device than when its files were indexed (an unmounted drive?)"
	case !was.IsZero() && !seen.id.IsZero() && was.Inode != seen.id.Inode:
		return "the folder was replaced by another one since its files were indexed"
	case seen.walked && seen.files == 0:
		return fmt.Sprintf("the folder is empty but held %s (an unmounted drive?)", plural.Count(rows, "file"))
	case n > massRemoval && 2*n > rows:
		return fmt.Sprintf("%d of its %d files are gone at once", n, rows)
	}
	return ""
}

// holds lists the plan's held removals for the run's result.
func (p removalPlan) holds() []library.Hold {
	var out []library.Hold
	for root, reason := range p.held {
		out = append(out, library.Hold{Root: root, Reason: reason, Files: p.counts[root]})
	}
	return out
}
