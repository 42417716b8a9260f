package reconcile

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grimoire-search/grimoire/index"
	"github.com/grimoire-search/grimoire/internal/subtree"
	"github.com/grimoire-search/grimoire/library"
)

// A planned file: its path below the library folder, its content and what
// a stat tells of it.
type plannedFile struct {
	rel, content string
	inode        uint64
	// touched: the mtime is a second later than the row's.
	touched bool
	// racy: the row was verified within the racy window of the mtime, so
	// a write in that window could have left the mtime as it was.
	racy bool
}

// settledNS is an mtime long before any row was verified.
const settledNS = int64(1_700_000_000_123_456_789)

var (
	planRoot = filepath.Join(string(filepath.Separator), "lib")
	planOld  = filepath.Join(string(filepath.Separator), "old")
	planID   = library.RootIdentity{Device: 1, Inode: 2}
)

func (p plannedFile) path() string { return filepath.Join(planRoot, p.rel) }

func (p plannedFile) row() library.File {
	f := library.File{Path: p.path(), Root: planRoot, Hash: library.SumBytes([]byte(p.content)), Size: int64(len(p.content)),
		MtimeNS: settledNS, Inode: p.inode, VerifiedNS: settledNS + int64(time.Hour)}
	if p.racy {
		f.VerifiedNS = settledNS + int64(50*time.Millisecond)
	}
	return f
}

func (p plannedFile) entry() entry {
	e := entry{Path: p.path(), Root: planRoot, Size: int64(len(p.content)), ModTimeNS: settledNS, Inode: p.inode, Type: "text"}
	if p.touched {
		e.ModTimeNS += int64(time.Second)
	}
	return e
}

// planCase is a pass to plan: the index's rows, what the walk found and
// how reading the files goes, and what the plan should be.
type planCase struct {
	name  string
	rows  []plannedFile
	found []plannedFile
	// blocked are folders below the root that could not be listed;
	// scope, when set, limits the pass to these paths below the root.
	blocked, scope []string
	// unstable files change while they are read; unreadable ones
	// cannot be read.
	unstable, unreadable []string
	known                map[string]index.LibraryRoot
	prune, partial       bool

	// read are the files the pass reads; puts and gone are "file
	// kind" and "file fate".
	read, puts, gone []string
	held             string
	trusted          bool
	forgotten        []string
	problems         int
}

func planCases() []planCase {
	alpha := plannedFile{rel: "a.txt", content: "alpha", inode: 1}
	beta := plannedFile{rel: "b.txt", content: "beta", inode: 2}
	many := func(n int) []plannedFile {
		var out []plannedFile
		for i := range n {
			out = append(out, plannedFile{rel: fmt.Sprintf("m%02d.txt", i), content: fmt.Sprint("book ", i), inode: uint64(10 + i)})
		}
		return out
	}
	return []planCase{
		{name: "unchanged file is not read", rows: []plannedFile{alpha}, found: []plannedFile{alpha}, trusted: true},
		{name: "row verified too soon after the mtime is read again", rows: []plannedFile{{rel: "a.txt", content: "alpha", inode: 1, racy: true}},
			found: []plannedFile{alpha}, read: []string{"a.txt"}, puts: []string{"a.txt restat"}, trusted: true},
		{name: "touched file with the same content", rows: []plannedFile{alpha},
			found: []plannedFile{{rel: "a.txt", content: "alpha", inode: 1, touched: true}},
			read:  []string{"a.txt"}, puts: []string{"a.txt restat"}, trusted: true},
		{name: "edited file", rows: []plannedFile{alpha},
			found: []plannedFile{{rel: "a.txt", content: "alpha, edited", inode: 1, touched: true}},
			read:  []string{"a.txt"}, puts: []string{"a.txt changed"}, trusted: true},
		{name: "new file", found: []plannedFile{alpha},
			read: []string{"a.txt"}, puts: []string{"a.txt added"}, trusted: true},
		{name: "rename keeps its hash unread", rows: []plannedFile{alpha},
			found: []plannedFile{{rel: "sub/a2.txt", content: "alpha", inode: 1}},
			puts:  []string{"sub/a2.txt moved"}, gone: []string{"a.txt moved away"}, trusted: true},
		{name: "delete and create pair up by content", rows: []plannedFile{alpha},
			found: []plannedFile{{rel: "a2.txt", content: "alpha", inode: 7}},
			read:  []string{"a2.txt"}, puts: []string{"a2.txt moved"}, gone: []string{"a.txt moved away"}, trusted: true},
		{name: "copy adds a path", rows: []plannedFile{alpha},
			found: []plannedFile{alpha, {rel: "copy.txt", content: "alpha", inode: 7}},
			read:  []string{"copy.txt"}, puts: []string{"copy.txt added"}, trusted: true},
		{name: "two copies gone, one moved", rows: []plannedFile{alpha, {rel: "a-copy.txt", content: "alpha", inode: 3}},
			found: []plannedFile{{rel: "z.txt", content: "alpha", inode: 7}},
			read:  []string{"z.txt"}, puts: []string{"z.txt moved"}, gone: []string{"a-copy.txt moved away", "a.txt removed"}, trusted: true},
		{name: "deleted file", rows: []plannedFile{alpha, beta}, found: []plannedFile{beta},
			gone: []string{"a.txt removed"}, trusted: true},
		{name: "rows under an unreadable folder stay", rows: []plannedFile{{rel: "locked/a.txt", content: "alpha", inode: 1}, beta},
			found: []plannedFile{beta}, blocked: []string{"locked"}, trusted: true},
		{name: "rows out of scope stay", rows: []plannedFile{alpha, beta}, scope: []string{"b.txt"}, partial: true,
			found: []plannedFile{beta}, trusted: true},
		{name: "file changing while read stays as it was", rows: []plannedFile{alpha},
			found:    []plannedFile{{rel: "a.txt", content: "alpha, edited", inode: 1, touched: true}},
			unstable: []string{"a.txt"}, read: []string{"a.txt"}, trusted: true},
		{name: "unreadable file is a problem and stays", rows: []plannedFile{alpha},
			found:      []plannedFile{{rel: "a.txt", content: "alpha, edited", inode: 1, touched: true}},
			unreadable: []string{"a.txt"}, read: []string{"a.txt"}, problems: 1, trusted: true},
		{name: "mass removal is held", rows: many(12), found: many(12)[11:],
			gone: []string{"m00.txt held", "m01.txt held", "m02.txt held", "m03.txt held", "m04.txt held", "m05.txt held",
				"m06.txt held", "m07.txt held", "m08.txt held", "m09.txt held", "m10.txt held"},
			held: "11 of its 12 files are gone at once"},
		{name: "a move goes through a hold", rows: many(12), found: []plannedFile{{rel: "new.txt", content: "book 0", inode: 99}},
			read: []string{"new.txt"}, puts: []string{"new.txt moved"},
			gone: []string{"m00.txt moved away", "m01.txt held", "m02.txt held", "m03.txt held", "m04.txt held", "m05.txt held",
				"m06.txt held", "m07.txt held", "m08.txt held", "m09.txt held", "m10.txt held", "m11.txt held"},
			held: "11 of its 12 files are gone at once"},
		{name: "prune applies a mass removal", rows: many(12), found: many(12)[11:], prune: true,
			gone: []string{"m00.txt removed", "m01.txt removed", "m02.txt removed", "m03.txt removed", "m04.txt removed", "m05.txt removed",
				"m06.txt removed", "m07.txt removed", "m08.txt removed", "m09.txt removed", "m10.txt removed"},
			trusted: true},
		{name: "a partial pass leaves an earlier hold", rows: []plannedFile{alpha}, found: []plannedFile{alpha}, partial: true,
			known: map[string]index.LibraryRoot{planRoot: {Identity: planID, Hold: &library.Hold{Reason: "earlier"}}}},
		{name: "a partial pass trusts a folder after a prune", rows: []plannedFile{alpha}, found: []plannedFile{alpha}, partial: true,
			known: map[string]index.LibraryRoot{planRoot: {}}, trusted: true},
		{name: "a partial pass trusts a folder seen for the first time", found: []plannedFile{alpha}, partial: true,
			read: []string{"a.txt"}, puts: []string{"a.txt added"}, trusted: true},
		{name: "a folder out of the library with no rows is forgotten", found: []plannedFile{alpha},
			known: map[string]index.LibraryRoot{planRoot: {Identity: planID}, planOld: {Identity: planID}},
			read:  []string{"a.txt"}, puts: []string{"a.txt added"}, trusted: true, forgotten: []string{planOld}},
	}
}

// survey is what the case's pass decides from.
func (tc planCase) survey() survey {
	sv := survey{walk: newWalkResult(), rows: make(map[string]library.File), known: tc.known, full: !tc.partial}
	for _, f := range tc.rows {
		sv.rows[f.path()] = f.row()
	}
	for _, f := range tc.found {
		sv.walk.files[f.path()] = f.entry()
	}
	sv.walk.roots[planRoot] = &rootSeen{id: planID, walked: true, files: len(tc.found)}
	for _, b := range tc.blocked {
		sv.walk.blocked = append(sv.walk.blocked, filepath.Join(planRoot, b))
	}
	sv.inScope = func(f library.File) bool { return tc.scope == nil || slices.Contains(tc.scope, rel(f.Path)) }
	return sv
}

// hash reads the files the pass asks for, as the case says it goes.
func (tc planCase) hash(files []entry) (read []string, rr readResult) {
	content := make(map[string]string)
	for _, f := range tc.found {
		content[f.path()] = f.content
	}
	for _, e := range files {
		read = append(read, rel(e.Path))
		switch {
		case slices.Contains(tc.unstable, rel(e.Path)):
			rr.unstable = append(rr.unstable, e)
		case slices.Contains(tc.unreadable, rel(e.Path)):
			rr.problems = append(rr.problems, problem{path: e.Path, reason: "cannot read", persistent: true})
		default:
			rr.done = append(rr.done, hashedFile{entry: e, hash: library.SumBytes([]byte(content[e.Path]))})
		}
	}
	return read, rr
}

// TestPlan decides passes from plain values: no disk, no index.
func TestPlan(t *testing.T) {
	putNames := map[putKind]string{restat: "restat", changed: "changed", moved: "moved", added: "added"}
	fateNames := map[fate]string{removed: "removed", moveSource: "moved away", held: "held"}
	for _, tc := range planCases() {
		t.Run(tc.name, func(t *testing.T) {
			s := newScanner(nil, Options{Roots: []string{planRoot}, Prune: tc.prune})
			sv := tc.survey()
			sf := s.sift(sv)
			read, rr := tc.hash(sf.read)
			p := s.decide(sv, sf, rr)

			var puts, gone []string
			for _, pt := range p.puts {
				puts = append(puts, rel(pt.file.Path)+" "+putNames[pt.kind])
				if row, had := sv.rows[pt.file.Path]; had != !pt.prev.IsZero() || had && row.Hash != pt.prev {
					t.Errorf("%s: previous content %v, the row had %v", pt.file.Path, pt.prev, row.Hash)
				}
			}
			for _, g := range p.gone {
				gone = append(gone, rel(g.path)+" "+fateNames[g.fate])
			}
			same(t, "read", read, tc.read)
			same(t, "puts", puts, tc.puts)
			same(t, "gone", gone, tc.gone)
			if got := p.removals.held[planRoot]; got != tc.held {
				t.Errorf("held %q, want %q", got, tc.held)
			}
			if trusted := len(p.trust) == 1 && p.trust[0] == (trustedRoot{path: planRoot, id: planID}); trusted != tc.trusted {
				t.Errorf("trusted %+v, want the folder trusted: %v", p.trust, tc.trusted)
			}
			same(t, "forgotten", p.forget, tc.forgotten)
			if len(p.problems) != tc.problems {
				t.Errorf("problems %+v", p.problems)
			}
		})
	}
}

// TestPlanHoldsFolderOutOfTheLibrary: a folder dropped from the
// configuration holds its rows, and a prune removes them and forgets it.
func TestPlanHoldsFolderOutOfTheLibrary(t *testing.T) {
	old := planOld
	rows := map[string]library.File{filepath.Join(old, "a.txt"): {Path: filepath.Join(old, "a.txt"), Root: old}}
	known := map[string]index.LibraryRoot{old: {Identity: planID}}
	for _, prune := range []bool{false, true} {
		s := newScanner(nil, Options{Roots: []string{planRoot}, Prune: prune})
		sv := survey{walk: newWalkResult(), rows: rows, known: known, full: true,
			inScope: func(f library.File) bool { return !subtree.InAny(f.Path, s.opts.Roots) }}
		p := s.decide(sv, s.sift(sv), readResult{})
		want, forgotten := held, []string(nil)
		if prune {
			want, forgotten = removed, []string{old}
		}
		if len(p.gone) != 1 || p.gone[0].fate != want {
			t.Errorf("prune %v: gone %+v", prune, p.gone)
		}
		same(t, "forgotten", p.forget, forgotten)
		if hold := p.removals.holds(); !prune && (len(hold) != 1 || !strings.Contains(hold[0].Reason, "no longer a library folder")) {
			t.Errorf("holds %+v", hold)
		}
	}
}

func rel(p string) string {
	r, err := filepath.Rel(planRoot, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

func same(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}
