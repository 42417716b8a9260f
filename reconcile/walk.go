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

	"github.com/grimoire-search/grimoire/internal/calibre"
	"github.com/grimoire-search/grimoire/internal/libfile"
	"github.com/grimoire-search/grimoire/internal/mdbook"
)

// entry is a candidate file found by the walk, with what a stat told.
type entry struct {
	path    string
	root    string
	size    int64
	mtimeNS int64
	inode   uint64
	dev     uint64 // 0 where a stat does not tell (Windows)
	typ     string
	// book is the mdBook read from the folder whose SUMMARY.md is path;
	// size, mtime and inode then stand for all its files (see
	// mdbook.Book's Size, ModTime and ID).
	book *mdbook.Book
}

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
		res.problems = append(res.problems, problem{path: dir, reason: fmt.Sprintf("cannot list folder: %v; nothing under it was pruned", unwrapPath(err))})
		return nil
	}
	res.covered[dir] = true
	s.noteDevice(root, dir, res)
	inEntry := s.calibreEntry(dir, root, ents)
	if err := s.folderBook(ctx, root, dir, ents, res); err != nil {
		return err
	}
	var entryBooks []bookFile
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
			if !calibreOwn(name, inEntry) {
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
			res.problems = append(res.problems, problem{path: p, reason: fmt.Sprintf("cannot stat: %v", unwrapPath(err)), persistent: true})
			continue
		}
		if inEntry {
			entryBooks = append(entryBooks, bookFile{p, typ, fi})
			continue
		}
		if err := s.addFile(p, root, typ, fi, res); err != nil {
			return err
		}
	}
	return s.takeOne(root, entryBooks, res)
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
// book (see internal/mdbook): its SUMMARY.md stands for it, and its files
// are no books of their own. A SUMMARY.md that names no chapter file there
// makes no book; the files are then books each.
func (s *scanner) folderBook(ctx context.Context, root, dir string, ents []fs.DirEntry, res *walkResult) error {
	if !s.opts.MDBook {
		return nil
	}
	hasSummary, hasConfig := false, false
	for _, d := range ents {
		if d.Type().IsRegular() {
			hasSummary = hasSummary || d.Name() == mdbook.SummaryName
			hasConfig = hasConfig || d.Name() == mdbook.ConfigName
		}
	}
	if !hasSummary && !hasConfig {
		return nil
	}
	summary, cfg, err := mdbook.Find(ctx, root, dir, hasConfig)
	if err == nil && summary != "" && !res.inBook[summary] {
		var b *mdbook.Book
		if b, err = mdbook.Load(ctx, root, summary, cfg); err == nil && len(b.Members) > 0 {
			for _, p := range b.Paths() {
				res.inBook[p] = true
			}
			s.addEntry(entry{path: summary, root: root, size: b.Size(), mtimeNS: b.ModTime().UnixNano(), inode: b.ID(), typ: mdbook.Type, book: b}, res)
		}
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		at := summary
		if at == "" {
			at = cfg
		}
		res.problems = append(res.problems, problem{path: at, persistent: true,
			reason: fmt.Sprintf("not read as an mdBook (%v); its Markdown files are books of their own", unwrapPath(err))})
	}
	return nil
}

type bookFile struct {
	path, typ string
	fi        fs.FileInfo
}

// calibreEntry reports whether dir, listed as ents, is a calibre entry
// (see calibre.Entry), whose formats are one book.
func (s *scanner) calibreEntry(dir, root string, ents []fs.DirEntry) bool {
	if s.opts.CalibrePrefer == nil {
		return false
	}
	for _, d := range ents {
		if d.Name() == calibre.OPF && d.Type().IsRegular() {
			return calibre.LibraryOf(dir, root) != ""
		}
	}
	return false
}

// calibreOwn reports whether a file that is no book is calibre's own
// bookkeeping, which the user did not put in the library: an entry's
// metadata.opf and cover, a calibre library's database and its backup of
// the preferences. status does not count them as left out.
func calibreOwn(name string, inEntry bool) bool {
	switch {
	case name == calibre.DB || name == "metadata_db_prefs_backup.json":
		return true
	case inEntry:
		return name == calibre.OPF || strings.HasPrefix(strings.ToLower(name), "cover.")
	}
	return false
}

// takeOne adds the calibre entry's preferred format, and passes over the
// others: calibre holds them as the same book.
func (s *scanner) takeOne(root string, books []bookFile, res *walkResult) error {
	if len(books) == 0 {
		return nil
	}
	paths := make([]string, len(books))
	typeOf := make(map[string]string, len(books))
	for i, b := range books {
		paths[i] = b.path
		typeOf[b.path] = b.typ
	}
	chosen := calibre.Choose(paths, func(p string) string { return typeOf[p] }, s.opts.CalibrePrefer)
	for _, b := range books {
		if b.path != chosen {
			res.skipped++
			res.passedOver = append(res.passedOver, problem{path: b.path,
				reason: fmt.Sprintf("calibre entry: %s taken instead", strings.ToUpper(typeOf[chosen]))})
			continue
		}
		if err := s.addFile(b.path, root, b.typ, b.fi, res); err != nil {
			return err
		}
	}
	return nil
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

func (s *scanner) addFile(p, root, typ string, fi fs.FileInfo, res *walkResult) error {
	dev, _ := libfile.IDOf(fi)
	s.addEntry(entry{path: p, root: root, size: fi.Size(), mtimeNS: fi.ModTime().UnixNano(), inode: inodeOf(fi), dev: dev, typ: typ}, res)
	return nil
}

// addEntry takes a book's file for the pass, unless it is too large or
// empty.
func (s *scanner) addEntry(e entry, res *walkResult) {
	if seen := res.roots[e.root]; seen != nil {
		seen.files++
	}
	res.dirFiles[filepath.Dir(e.path)]++
	if s.opts.MaxFileSize > 0 && e.size > s.opts.MaxFileSize {
		what := "file"
		if e.book != nil {
			what = "book"
		}
		res.skipped++
		res.blocked = append(res.blocked, e.path)
		res.problems = append(res.problems, problem{path: e.path, persistent: true,
			reason: fmt.Sprintf("%s is %s, over the size limit of %s; raise max_file_size_mb to index it", what, humanBytes(e.size), humanBytes(s.opts.MaxFileSize))})
		return
	}
	if e.size == 0 {
		// Every empty file has the same hash: as a book it would take
		// the format of whichever path came first. It is nothing to
		// index; a path that held a book no longer does.
		res.skipped++
		res.problems = append(res.problems, problem{path: e.path, persistent: true, reason: emptyReason})
		return
	}
	res.files[e.path] = e
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
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
