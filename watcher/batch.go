package watcher

import (
	"path/filepath"
	"slices"
	"strings"
)

// Batch is one set of settled changes, handed to the caller to reconcile.
//
// Every path is absolute, lies under one of the roots and was not ignored.
// No path is in both lists, and no path in Changed lies below a path in
// Removed.
type Batch struct {
	// Changed lists regular files that appeared or whose content may have
	// changed, sorted. Each one's size and modification time held still for
	// the quiet window, or it kept changing for MaxDelay and is handed on
	// anyway; the caller still has to check that it did not change while
	// it was read.
	Changed []string

	// Removed lists paths that no longer name a regular file or folder
	// (deleted, renamed away, moved out of the tree, or replaced by a
	// symbolic link), sorted. A path may be a folder: then everything the
	// caller knows at or below it is gone too (a folder renamed away yields
	// only its own path). Removals wait for the batch that also carries the
	// files still being written, so the two halves of a move arrive
	// together and can be paired by content.
	Removed []string

	// Rescan asks the caller to reconcile every root in full, because the
	// events alone can no longer be trusted (the first batch, an overflow,
	// a watcher error, a root that vanished or came back, a folder that
	// could not be watched, or the periodic safety net). Changed and
	// Removed are then empty: the full pass covers them.
	Rescan bool

	// Reason says why Rescan is set, in words fit for a log; several
	// reasons are joined with "; ". Empty when Rescan is false.
	Reason string
}

// empty reports whether the batch carries nothing.
func (b *Batch) empty() bool {
	return !b.Rescan && len(b.Changed) == 0 && len(b.Removed) == 0
}

// size is the number of paths in the batch, for logs and Stats.
func (b *Batch) size() int { return len(b.Changed) + len(b.Removed) }

// merge folds a newer batch n into b, which is still waiting for the
// caller. For each path the newer state wins; a rescan absorbs everything.
func (b *Batch) merge(n Batch) {
	if b.Rescan || n.Rescan {
		*b = Batch{Rescan: true, Reason: joinReasons(b.Reason, n.Reason)}
		return
	}
	newRemoved := make(map[string]bool, len(n.Removed))
	for _, p := range n.Removed {
		newRemoved[p] = true
	}
	oldRemoved := make(map[string]bool, len(b.Removed))
	for _, p := range b.Removed {
		if !newRemoved[p] {
			oldRemoved[p] = true
		}
	}
	changed := make(map[string]bool, len(b.Changed)+len(n.Changed))
	for _, p := range b.Changed {
		// A file that changed earlier and has since gone, itself or with a
		// folder above it, is reported only as removed.
		if !newRemoved[p] && !hasAncestorIn(p, newRemoved) {
			changed[p] = true
		}
	}
	for _, p := range n.Changed {
		if oldRemoved[p] {
			delete(oldRemoved, p) // gone, then back: a change
		}
		if hasAncestorIn(p, oldRemoved) {
			// A folder reported gone has come back with files in it. Listing
			// both would tell the caller to drop what it has just found, and
			// dropping the removal would hide what did not come back.
			*b = Batch{Rescan: true, Reason: "a removed folder reappeared while the previous changes were waiting"}
			return
		}
		changed[p] = true
	}
	for p := range newRemoved {
		oldRemoved[p] = true
	}
	*b = Batch{Changed: sortedKeys(changed), Removed: sortedKeys(oldRemoved)}
}

// hasAncestorIn reports whether a folder above p is in set.
func hasAncestorIn(p string, set map[string]bool) bool {
	if len(set) == 0 {
		return false
	}
	for {
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		if set[parent] {
			return true
		}
		p = parent
	}
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// joinReasons joins the distinct non-empty reasons, keeping their order.
func joinReasons(rs ...string) string {
	var out []string
	for _, r := range rs {
		for part := range strings.SplitSeq(r, "; ") {
			if part != "" && !slices.Contains(out, part) {
				out = append(out, part)
			}
		}
	}
	return strings.Join(out, "; ")
}
