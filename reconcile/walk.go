package reconcile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/grimoire-search/grimoire/internal/libfile"
	"github.com/grimoire-search/grimoire/library"
	"github.com/grimoire-search/grimoire/source"
)

// entry is a book's bytes found by the walk, with what a stat told.
type entry = source.Source

// walkResult is what a walk of some roots or directories found.
type walkResult struct {
	files map[string]entry
	// covered are the directories that were listed completely: a file row
	// under one of them that the walk did not see is gone. A directory that
	// could not be listed is not covered, so nothing under it is pruned.
	covered map[string]bool
	// blocked are paths (files or directories) that exist but could not be
	// read; rows under them are kept.
	blocked []string
	// problems are reported to the user and recorded for status.
	problems []problem
	// skipped counts files left out on purpose (too large, unstable).
	skipped int
	// unsupported are the files seen that are no book grimoire reads,
	// path → extension (see extension).
	unsupported map[string]string
	// passed over are the books a calibre entry holds besides the one
	// taken: told, with the reason, but no problem.
	passedOver []problem
	// roots are the library folders this pass looked at.
	roots map[string]*rootSeen
	// mounts are the folders below them that the walk found to be mount
	// points, and (see lookAtMounts) those the index remembers as mount
	// points that are still there, mount points or not; by path.
	mounts map[string]*rootSeen
	// dirDev is the device of each folder walked (unknown on Windows),
	// and dirFiles the number of books the walk found directly in each.
	dirDev   map[string]uint64
	dirFiles map[string]int
	// inBook are the files of the mdBooks found (SUMMARY.md, book.toml,
	// the chapters), which are no books of their own.
	inBook map[string]bool
	// zotero are the Zotero libraries read, and which database each was
	// read from.
	zotero []library.ZoteroRead
}

func newWalkResult() *walkResult {
	return &walkResult{files: make(map[string]entry), covered: make(map[string]bool), roots: make(map[string]*rootSeen),
		mounts: make(map[string]*rootSeen), dirDev: make(map[string]uint64), dirFiles: make(map[string]int),
		unsupported: make(map[string]string), inBook: make(map[string]bool)}
}

type problem struct {
	path, reason string
	// persistent problems are recorded in the index for status (a file too
	// large); others are only reported in the run (a missing root).
	persistent bool
}

// Ignored reports whether a file or directory name is left out of the
// library: hidden names (which covers the index folder .grimoire), partial
// downloads, editor temporaries and office lock files.
func Ignored(name string) bool {
	if name == "" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "~$") ||
		strings.HasPrefix(name, "#") || strings.HasSuffix(name, "~") {
		return true
	}
	lower := strings.ToLower(name)
	for _, suf := range []string{".part", ".partial", ".crdownload", ".download", ".tmp", ".temp", ".swp", ".swo", ".swx", ".bak"} {
		if strings.HasSuffix(lower, suf) {
			return true
		}
	}
	return false
}

func (s *scanner) walkRoots(ctx context.Context, roots []string) (*walkResult, error) {
	res := newWalkResult()
	for _, root := range roots {
		st, err := os.Stat(root) // the root itself may be a symlink the user chose
		switch {
		case err != nil:
			res.problems = append(res.problems, problem{path: root, reason: rootProblem(err)})
			continue
		case !st.IsDir():
			res.problems = append(res.problems, problem{path: root, reason: "library folder is not a directory; nothing under it was changed"})
			continue
		}
		seen := &rootSeen{id: folderIdentity(root, st)}
		res.roots[root] = seen
		if err := s.walkDir(ctx, root, root, res); err != nil {
			return nil, err
		}
		seen.walked = res.covered[root]
	}
	return res, nil
}

func rootProblem(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "library folder is missing (an unmounted drive, or a misspelt path?); nothing under it was pruned"
	}
	return fmt.Sprintf("library folder cannot be read (%v); nothing under it was pruned", errors.Unwrap(err))
}

// walkDir lists dir recursively. Symbolic links are never followed: the
// roots are the boundary of what grimoire reads.
func (s *scanner) walkDir(ctx context.Context, root, dir string, res *walkResult) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		// ReadDir returns what it could list with the error; without the
		// full list this directory is not evidence of any removal.
		res.blocked = append(res.blocked, dir)
		res.problems = append(res.problems, problem{path: dir, reason: fmt.Sprintf("cannot list folder: %v; nothing under it was pruned", libfile.Cause(err))})
		return nil
	}
	res.covered[dir] = true
	s.noteDevice(root, dir, res)
	if done, err := s.zoteroLibrary(ctx, root, dir, ents, res); done || err != nil {
		return err
	}
	inEntry := s.src.CalibreEntry(dir, root, ents)
	if err := s.folderBook(ctx, root, dir, ents, res); err != nil {
		return err
	}
	var entryBooks []entry
	for _, d := range ents {
		name := d.Name()
		if Ignored(name) {
			continue
		}
		p := filepath.Join(dir, name)
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			continue
		case t.IsDir():
			if err := s.walkDir(ctx, root, p, res); err != nil {
				return err
			}
			continue
		case !t.IsRegular():
			continue
		}
		if res.inBook[p] {
			continue
		}
		typ := s.opts.Formats.TypeOf(p)
		if typ == "" {
			if !source.CalibreOwn(name, inEntry) {
				s.noteUnsupported(p, res)
			}
			continue
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing
		}
		if err != nil {
			res.blocked = append(res.blocked, p)
			res.problems = append(res.problems, problem{path: p, reason: fmt.Sprintf("cannot stat: %v", libfile.Cause(err)), persistent: true})
			continue
		}
		if inEntry {
			entryBooks = append(entryBooks, source.File(p, root, typ, fi))
			continue
		}
		s.addEntry(source.File(p, root, typ, fi), res)
	}
	s.takeOne(entryBooks, res)
	return nil
}

// noteDevice records the device of dir, a folder the walk lists, and dir
// as a mount point when it is below root and on another device than its
// parent: a drive mounted inside the library, whose files an unmount
// takes away at once.
func (s *scanner) noteDevice(root, dir string, res *walkResult) {
	fi, err := statFolder(root, dir)
	if err != nil {
		return
	}
	dev, _ := libfile.IDOf(fi)
	if dev == 0 {
		return // not told here (Windows)
	}
	res.dirDev[dir] = dev
	if dir == root || slices.Contains(s.opts.Roots, dir) {
		return
	}
	if parent := parentDevice(root, dir, res); parent != 0 && parent != dev {
		res.mounts[dir] = &rootSeen{id: folderIdentity(dir, fi), mount: true}
	}
}

// parentDevice returns the device of dir's parent folder, 0 when unknown.
func parentDevice(root, dir string, res *walkResult) uint64 {
	parent := filepath.Dir(dir)
	if dev, ok := res.dirDev[parent]; ok {
		return dev
	}
	fi, err := statFolder(root, parent)
	if err != nil {
		return 0
	}
	dev, _ := libfile.IDOf(fi)
	return dev
}

// statFolder stats a folder of the library: the root through a link the
// user chose, any other without following one.
func statFolder(root, dir string) (fs.FileInfo, error) {
	if dir == root {
		return os.Stat(dir)
	}
	return os.Lstat(dir)
}

// folderBook takes the mdBook whose folder is dir, listed as ents, for one
// book (see source.Options.MDBookIn): its files are no books of their own.
func (s *scanner) folderBook(ctx context.Context, root, dir string, ents []fs.DirEntry, res *walkResult) error {
	book, members, trouble, err := s.src.MDBookIn(ctx, root, dir, ents, func(p string) bool { return res.inBook[p] })
	if err != nil {
		return err
	}
	if trouble != nil {
		res.problems = append(res.problems, problem{path: trouble.Path, reason: trouble.Reason, persistent: true})
	}
	if book != nil {
		for _, p := range members {
			res.inBook[p] = true
		}
		s.addEntry(*book, res)
	}
	return nil
}

// zoteroLibrary takes the items of the Zotero library whose data
// directory is dir, listed as ents, for books (see
// source.Options.ZoteroIn), and reports whether it was one: nothing else
// in it is walked, since its storage holds the attachments of the items,
// which the database tells apart. A database that cannot be read is a
// problem, and nothing below dir is pruned.
func (s *scanner) zoteroLibrary(ctx context.Context, root, dir string, ents []fs.DirEntry, res *walkResult) (bool, error) {
	lib, err := s.src.ZoteroIn(ctx, root, dir, ents, s.opts.Formats.TypeOf)
	if ctx.Err() != nil {
		return true, ctx.Err()
	}
	if err != nil {
		res.blocked = append(res.blocked, dir)
		res.problems = append(res.problems, problem{path: dir, reason: fmt.Sprintf("%v; nothing of the Zotero library was changed", err), persistent: true})
		return true, nil
	}
	if lib == nil {
		return false, nil
	}
	res.zotero = append(res.zotero, library.ZoteroRead{Dir: dir, From: lib.Read.From.String(), Locked: lib.Read.Locked,
		DataTime: lib.Read.ModTime, Why: lib.Read.Why, Items: len(lib.Books)})
	for _, p := range lib.Problems {
		res.problems = append(res.problems, problem{path: p.Path, reason: p.Reason, persistent: true})
	}
	for _, b := range lib.Books {
		s.addEntry(b, res)
	}
	return true, nil
}

// takeOne adds the calibre entry's preferred format, and passes over the
// others: calibre holds them as the same book.
func (s *scanner) takeOne(formats []entry, res *walkResult) {
	if len(formats) == 0 {
		return
	}
	book, passed := s.src.Choose(formats)
	for _, p := range passed {
		res.skipped++
		res.passedOver = append(res.passedOver, problem{path: p.Path, reason: p.Reason})
	}
	s.addEntry(book, res)
}

// noteUnsupported counts a file that is no book grimoire reads, so that
// status can say what was left out; the index's own files are not the
// user's.
func (s *scanner) noteUnsupported(p string, res *walkResult) {
	if s.w != nil && s.w.OwnFile(p) {
		return
	}
	res.unsupported[p] = extension(filepath.Base(p))
}

// extension names the kind of a file the walk does not read: its
// extension in lower case with the dot (".cbz"), or "" when the name has
// none, or only something after a dot that no extension looks like
// ("notes.v2 final").
func extension(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	if len(ext) < 2 || len(ext) > 16 || ext == strings.ToLower(name) {
		return ""
	}
	for _, r := range ext[1:] {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' {
			return ""
		}
	}
	return ext
}

// DefaultMaxFileSize is the size limit, in bytes, that grimoire.toml
// starts from (see Options.MaxFileSize).
const DefaultMaxFileSize = 512 << 20

// addEntry takes a book's file for the pass, unless it is too large or
// empty.
func (s *scanner) addEntry(e entry, res *walkResult) {
	if seen := res.roots[e.Root]; seen != nil {
		seen.files++
	}
	res.dirFiles[filepath.Dir(e.Path)]++
	if s.opts.MaxFileSize > 0 && e.Size > s.opts.MaxFileSize {
		what := "file"
		if e.Folder() {
			what = "book"
		}
		res.skipped++
		res.blocked = append(res.blocked, e.Path)
		res.problems = append(res.problems, problem{path: e.Path, persistent: true,
			reason: fmt.Sprintf("%s is %s, over the size limit of %s; raise max_file_size_mb to index it", what, humanBytes(e.Size), humanBytes(s.opts.MaxFileSize))})
		return
	}
	if e.Size == 0 {
		// Every empty file has the same hash: as a book it would take
		// the format of whichever path came first. It is nothing to
		// index; a path that held a book no longer does.
		res.skipped++
		res.problems = append(res.problems, problem{path: e.Path, persistent: true, reason: emptyReason})
		return
	}
	res.files[e.Path] = e
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// LinkBelow returns the first symbolic link among the folders between
// root and p, or "": a path through one names something outside the
// library, or a loop. The root itself may be a link the user chose.
func LinkBelow(p, root string) string {
	rel, err := filepath.Rel(root, filepath.Dir(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	dir := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		if err != nil {
			return "" // missing: the path is simply gone
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return dir
		}
	}
	return ""
}
