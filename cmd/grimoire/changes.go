package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/grimoire-search/grimoire/ingest"
	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/reconcile"
)

// changeLog prints what a sync or a watch does to the index, one line per
// change, as it happens:
//
//	added "Moby-Dick; or, The Whale" (moby-dick, 1,204 chunks)
//	moved a.md → shelf/a.md
//	removed "Walden" (walden.txt)
//	failed bad.pdf: not a PDF file: it is plain text
//
// A watch stamps each line with the time and prints failures and held
// removals too; a sync leaves those to its summary, so that each shows
// once.
type changeLog struct {
	w     io.Writer
	roots []string
	// stamp starts each line with the local time.
	stamp bool
	// problems prints failures and held removals.
	problems bool
	// prog, when set, is the progress line to keep out of the way.
	prog *progress
	now  func() time.Time

	mu sync.Mutex
	// told holds the skipped files and held folders printed, with why: a
	// watch meets them again on every pass that looks there, and says so
	// only when the reason changes.
	told map[string]string
}

// watchLog is the change log of a watch, printing to w.
func (a *cli) watchLog(w io.Writer) *changeLog {
	return &changeLog{w: w, roots: a.cfg.Library, stamp: true, problems: true, now: time.Now, told: make(map[string]string)}
}

// reconciled prints what a reconcile pass did about a path.
func (c *changeLog) reconciled(ch reconcile.Change) {
	switch ch.Kind {
	case reconcile.Moved:
		c.forget(ch.Path)
		c.print(fmt.Sprintf("moved %s → %s", c.path(ch.From), c.path(ch.Path)))
	case reconcile.Copied:
		c.forget(ch.Path)
		if ch.Book != nil {
			c.print(fmt.Sprintf("copied %s to %s", title(*ch.Book), c.path(ch.Path)))
		} else {
			c.print("copied a book to " + c.path(ch.Path))
		}
	case reconcile.Excluded:
		c.print(fmt.Sprintf("left out %s: its content was deleted from the index (see grimoire exclusions)", c.path(ch.Path)))
	case reconcile.Removed:
		// The file, and a hold on a folder it lies in: its removals
		// are being applied.
		c.forgetAbove(ch.Path)
		if ch.Book != nil {
			c.print(fmt.Sprintf("removed %s (%s)", title(*ch.Book), c.path(ch.Path)))
		} else {
			c.print("removed " + c.path(ch.Path))
		}
	case reconcile.Skipped:
		if c.problems && c.first(ch.Path, ch.Reason) {
			c.print(fmt.Sprintf("skipped %s: %s", c.path(ch.Path), field(ch.Reason)))
		}
	case reconcile.Alternate:
		// Not a problem: told once, so that the file's absence from
		// the list is explained.
		if c.first(ch.Path, ch.Reason) {
			c.print(fmt.Sprintf("left out %s: %s", c.path(ch.Path), field(ch.Reason)))
		}
	case reconcile.Held:
		if c.problems && c.first(ch.Path, ch.Reason) {
			c.print(fmt.Sprintf("held the removal of %s under %s: %s; once the files are really gone, `grimoire sync --prune` removes them",
				plural(ch.Files, "file"), field(ch.Path), field(ch.Reason)))
		}
	}
}

// ingested prints what became of a book.
func (c *changeLog) ingested(o ingest.Outcome) {
	if o.NeedsOCR != "" {
		if c.problems {
			c.print(fmt.Sprintf("waiting for OCR %s: %s", title(o.Book), field(o.NeedsOCR)))
		}
		return
	}
	if len(o.Failures) > 0 {
		if !c.problems {
			return
		}
		for _, f := range o.Failures {
			c.print(fmt.Sprintf("failed %s: %s", c.path(f.Path), field(f.Error)))
		}
		return
	}
	for _, p := range o.Book.Paths {
		c.forget(p)
	}
	verb := "added"
	if o.Replaced {
		verb = "updated"
	}
	c.print(fmt.Sprintf("%s %s (%s, %s)", verb, title(o.Book), field(o.Book.Slug), plural(o.Book.Chunks, "chunk")))
}

// first reports whether key has not been told with this reason yet, and
// remembers it.
func (c *changeLog) first(key, reason string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.told == nil {
		return true
	}
	if c.told[key] == reason {
		return false
	}
	c.told[key] = reason
	return true
}

// forget drops what was told of key: the path was dealt with, and a new
// problem with it is news.
func (c *changeLog) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.told, key)
}

// forgetAbove forgets what was told of p and of the folders it lies in.
func (c *changeLog) forgetAbove(p string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.told {
		if subtree.Contains(k, p) {
			delete(c.told, k)
		}
	}
}

func (c *changeLog) print(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stamp {
		line = c.now().Format("2006-01-02 15:04:05") + "  " + line
	}
	c.prog.println(c.w, line)
}

// path shows a library path the short way: from its library folder when
// there is one folder, else from the folder above it, which names the
// folder ("Books/a.md").
func (c *changeLog) path(p string) string {
	root := subtree.RootOf(p, c.roots)
	if root == "" {
		return field(p)
	}
	if len(c.roots) > 1 {
		root = filepath.Dir(root)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return field(p)
	}
	return field(rel)
}

// title quotes a book's title, its control characters escaped.
func title(b library.Book) string { return fmt.Sprintf("%q", b.Title) }
