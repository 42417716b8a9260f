package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// evidenceLibrary writes a config with its index outside the library
// folder Books, and n small books into Books.
func evidenceLibrary(t *testing.T, n int) (dir, lib string) {
	t.Helper()
	dir = t.TempDir()
	lib = filepath.Join(dir, "Books")
	writeFile(t, filepath.Join(dir, "grimoire.toml"), "library = [\"Books\"]\ndb_path = \"grimoire.db\"\n")
	os.MkdirAll(lib, 0o755)
	return dir, lib
}

func writeBooks(t *testing.T, lib string, n int) {
	t.Helper()
	for i := range n {
		writeFile(t, filepath.Join(lib, fmt.Sprintf("book%02d.md", i)), fmt.Sprintf("# Book %d\n\nThe %d lighthouse keepers counted the waves.\n", i, i))
	}
}

type heldStatus struct {
	Books int
	Held  []struct {
		Root, Reason string
		Files        int
	}
}

func mount(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
		t.Skipf("mount %v: %v %s", args, err, out)
	}
}

func umount(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
		t.Fatalf("umount %s: %v %s", dir, err, out)
	}
}

// TestUnmountedDrivePrunesNothing: a library folder that is a mount point
// is an empty folder of another device once unmounted. Neither sync nor
// watch may prune its books then; an explicit --prune does.
func TestUnmountedDrivePrunesNothing(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	dir, lib := evidenceLibrary(t, 0)
	mount(t, "-t", "tmpfs", "tmpfs", lib)
	mounted := true
	t.Cleanup(func() {
		if mounted {
			exec.Command("umount", lib).Run()
		}
	})
	writeBooks(t, lib, 18)
	var s syncOut
	okJSON(t, &s, dir, "sync")
	wantCounters(t, "first sync", s, map[string]int{"new": 18, "ingested": 18})

	umount(t, lib)
	mounted = false
	okJSON(t, &s, dir, "sync")
	wantCounters(t, "sync with the drive unmounted", s, map[string]int{"removed": 0, "pruned": 0, "held": 18})
	var st heldStatus
	okJSON(t, &st, dir, "status")
	if st.Books != 18 || len(st.Held) != 1 || st.Held[0].Files != 18 || !strings.Contains(st.Held[0].Reason, "another device") {
		t.Fatalf("status while unmounted: %+v", st)
	}
	if out := ok(t, dir, "status"); !strings.Contains(out, "sync --prune") {
		t.Errorf("status does not say how to apply the removals:\n%s", out)
	}

	// watch: the same rule on its first pass and after the drive comes
	// and goes again.
	w := start(t, dir, watchEnv, "watch")
	time.Sleep(time.Second)
	mount(t, "-t", "tmpfs", "tmpfs", lib)
	mounted = true
	writeBooks(t, lib, 18)
	eventually(t, "the remounted drive's files trusted again", 30*time.Second, func() bool {
		var st heldStatus
		r := grimoire(t, dir, "status", "--json")
		return r.code == 0 && jsonUnmarshal(r.stdout, &st) == nil && len(st.Held) == 0
	})
	umount(t, lib)
	mounted = false
	eventually(t, "the watcher holding the removals", 30*time.Second, func() bool {
		var st heldStatus
		r := grimoire(t, dir, "status", "--json")
		return r.code == 0 && jsonUnmarshal(r.stdout, &st) == nil && len(st.Held) == 1
	})
	w.stopped(t, 10*time.Second)
	var books []bookOut
	okJSON(t, &books, dir, "list")
	if len(books) != 18 {
		t.Fatalf("%d books after watch saw the drive unmounted, want 18", len(books))
	}

	okJSON(t, &s, dir, "sync", "--prune")
	wantCounters(t, "sync --prune", s, map[string]int{"removed": 18, "pruned": 18, "held": 0})
	okJSON(t, &st, dir, "status")
	if st.Books != 0 || len(st.Held) != 0 {
		t.Errorf("status after --prune: %+v", st)
	}
}

// TestUnmountedDriveInsideLibrary: a drive mounted at a folder inside the
// library (Books/nas) holds fewer than half of its books. Unmounted, its
// books are kept, by sync and by watch, and status says why, until
// sync --prune.
func TestUnmountedDriveInsideLibrary(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	dir, lib := evidenceLibrary(t, 0)
	nas := filepath.Join(lib, "nas")
	os.MkdirAll(nas, 0o755)
	writeBooks(t, lib, 20)
	onDrive := func() {
		for i := range 8 {
			writeFile(t, filepath.Join(nas, fmt.Sprintf("drive%02d.md", i)), fmt.Sprintf("# Drive book %d\n\nThe %d ferrymen crossed the estuary at dawn.\n", i, i))
		}
	}
	mount(t, "-t", "tmpfs", "tmpfs", nas)
	mounted := true
	t.Cleanup(func() {
		if mounted {
			exec.Command("umount", nas).Run()
		}
	})
	onDrive()
	var s syncOut
	okJSON(t, &s, dir, "sync")
	wantCounters(t, "first sync", s, map[string]int{"new": 28, "ingested": 28})

	umount(t, nas)
	mounted = false
	okJSON(t, &s, dir, "sync")
	wantCounters(t, "sync with the drive unmounted", s, map[string]int{"removed": 0, "pruned": 0, "held": 8})
	var st heldStatus
	okJSON(t, &st, dir, "status")
	if st.Books != 28 || len(st.Held) != 1 || st.Held[0].Root != nas || st.Held[0].Files != 8 || !strings.Contains(st.Held[0].Reason, "mount point") {
		t.Fatalf("status while unmounted: %+v", st)
	}

	// The drive back with its files ends the hold.
	mount(t, "-t", "tmpfs", "tmpfs", nas)
	mounted = true
	onDrive()
	okJSON(t, &s, dir, "sync")
	wantCounters(t, "sync with the drive back", s, map[string]int{"removed": 0, "held": 0})

	// watch: unmounted under it, the drive's books stay, whatever the
	// watcher's events, and its next full scan (the sync it is handed)
	// holds them.
	w := start(t, dir, watchEnv, "watch")
	eventually(t, "the watcher's first pass", 30*time.Second, func() bool {
		out := grimoire(t, dir, "status").stdout
		return strings.Contains(out, "last full scan") && !strings.Contains(out, "last full scan not yet")
	})
	umount(t, nas)
	mounted = false
	time.Sleep(2 * time.Second)
	okJSON(t, &s, dir, "sync")
	wantCounters(t, "sync handed to the watcher", s, map[string]int{"removed": 0, "pruned": 0, "held": 8})
	okJSON(t, &st, dir, "status")
	if st.Books != 28 || len(st.Held) != 1 || st.Held[0].Root != nas {
		t.Fatalf("status under watch with the drive unmounted: %+v", st)
	}
	w.stopped(t, 10*time.Second)
	var books []bookOut
	okJSON(t, &books, dir, "list")
	if len(books) != 28 {
		t.Fatalf("%d books after watch saw the drive unmounted, want 28", len(books))
	}

	okJSON(t, &s, dir, "sync", "--prune")
	wantCounters(t, "sync --prune", s, map[string]int{"removed": 8, "pruned": 8, "held": 0})
	okJSON(t, &st, dir, "status")
	if st.Books != 20 || len(st.Held) != 0 {
		t.Errorf("status after --prune: %+v", st)
	}
}

// TestMassRemovalIsHeld: most of a folder's books gone at once is held;
// a few gone is an ordinary removal.
func TestMassRemovalIsHeld(t *testing.T) {
	t.Parallel()
	dir, lib := evidenceLibrary(t, 0)
	writeBooks(t, lib, 20)
	var s syncOut
	okJSON(t, &s, dir, "sync")
	for i := range 2 {
		os.Remove(filepath.Join(lib, fmt.Sprintf("book%02d.md", i)))
	}
	okJSON(t, &s, dir, "sync")
	wantCounters(t, "two deleted", s, map[string]int{"removed": 2, "pruned": 2, "held": 0})
	for i := 2; i < 15; i++ {
		os.Remove(filepath.Join(lib, fmt.Sprintf("book%02d.md", i)))
	}
	out := ok(t, dir, "sync")
	if !strings.Contains(out, "held the removal of 13 files") || !strings.Contains(out, "sync --prune") {
		t.Errorf("sync output does not explain the hold:\n%s", out)
	}
	okJSON(t, &s, dir, "sync")
	wantCounters(t, "13 of 18 deleted", s, map[string]int{"removed": 0, "pruned": 0, "held": 13})
	okJSON(t, &s, dir, "sync", "--prune")
	wantCounters(t, "--prune", s, map[string]int{"removed": 13, "pruned": 13})
}

// TestSyncPathOutsideLibrary: a path outside the library, a typo, or a
// library folder that does not exist change nothing.
func TestSyncPathOutsideLibrary(t *testing.T) {
	t.Parallel()
	dir, lib := evidenceLibrary(t, 0)
	writeBooks(t, lib, 4)
	writeFile(t, filepath.Join(dir, "Downloads", "newbook.md"), "# New\n\nA new book.\n")
	var s syncOut
	okJSON(t, &s, dir, "sync")
	for _, arg := range []string{"Downloads/newbook.md", "Bokos", "Downloads"} {
		r := grimoire(t, dir, "sync", arg)
		if r.code != exitInvalid || !strings.Contains(r.stderr, "nothing was changed") {
			t.Errorf("sync %s: exit %d, stderr %q; want %d and a message", arg, r.code, r.stderr, exitInvalid)
		}
	}
	// A config whose library names a missing folder the index does not
	// know: a typo, refused.
	writeFile(t, filepath.Join(dir, "grimoire.toml"), "library = [\"Bokos\"]\ndb_path = \"grimoire.db\"\n")
	if r := grimoire(t, dir, "sync"); r.code != exitNotFound || !strings.Contains(r.stderr, filepath.Join(dir, "Bokos")+" does not exist") {
		t.Errorf("library names a missing folder: exit %d, stderr %q", r.code, r.stderr)
	}
	writeFile(t, filepath.Join(dir, "grimoire.toml"), "library = [\"Books\"]\ndb_path = \"grimoire.db\"\n")
	var books []bookOut
	okJSON(t, &books, dir, "list")
	if len(books) != 4 {
		t.Fatalf("%d books left, want 4", len(books))
	}

	// Nothing configured: a missing folder is refused and nothing is made.
	empty := t.TempDir()
	if r := grimoire(t, empty, "sync", "Bokos"); r.code != exitInvalid {
		t.Errorf("unconfigured sync of a missing folder: exit %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(empty, "Bokos")); err == nil {
		t.Error("sync created the folder it was given by mistake")
	}
}

// TestMisspeltLibraryWithDBPath: with db_path set, the index exists
// whatever --library says. A misspelt --library is refused as it is
// without db_path, naming the folder, and the index is left as it was:
// no run, no hold, no book removed, --prune or not. A library folder the
// index knows that is missing (an unmounted drive) is no typo: sync goes
// on and keeps its books.
func TestMisspeltLibraryWithDBPath(t *testing.T) {
	t.Parallel()
	dir, lib := evidenceLibrary(t, 0)
	writeBooks(t, lib, 12)
	var s syncOut
	okJSON(t, &s, dir, "sync")
	db := filepath.Join(dir, "grimoire.db")
	before := fileSums(t, db, db+"-wal")
	var st struct {
		heldStatus
		LastSync struct{ Started time.Time } `json:"last_sync"`
	}
	okJSON(t, &st, dir, "status")
	started := st.LastSync.Started
	typo := filepath.Join(dir, "Bokos")
	for _, args := range [][]string{
		{"--library", "Bokos", "sync"},
		{"--library", "Bokos", "sync", "--prune"},
		{"--library", "Bokos", "sync", "--prune", "--json"},
		{"--library", "Bokos", "watch"},
		{"--library", "Bokos", "serve", "--watch"},
		{"--library", "Bokos", "query", "lighthouse"},
	} {
		r := grimoire(t, dir, args...)
		if r.code != exitNotFound || !strings.Contains(r.stderr, "library folder "+typo+" does not exist") {
			t.Errorf("%v: exit %d, stderr %q; want %d naming the folder", args, r.code, r.stderr, exitNotFound)
		}
		if _, err := os.Stat(typo); err == nil {
			t.Fatalf("%v created the folder", args)
		}
	}
	if after := fileSums(t, db, db+"-wal"); after != before {
		t.Errorf("the index was written to")
	}
	okJSON(t, &st, dir, "status")
	if st.Books != 12 || len(st.Held) != 0 || !st.LastSync.Started.Equal(started) {
		t.Errorf("status after the misspelt syncs: %+v", st)
	}

	// The library folder itself gone (its drive unmounted, the mount
	// point removed): known to the index, so no typo.
	if err := os.Rename(lib, lib+".away"); err != nil {
		t.Fatal(err)
	}
	okJSON(t, &s, dir, "sync", "--prune")
	wantCounters(t, "the library folder missing", s, map[string]int{"removed": 0, "pruned": 0})
	okJSON(t, &st, dir, "status")
	if st.Books != 12 {
		t.Errorf("%d books with the library folder missing, want 12", st.Books)
	}
}

// fileSums is the contents of files, hashed, "" for a missing one.
func fileSums(t *testing.T, paths ...string) string {
	t.Helper()
	var sums []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		sums = append(sums, fmt.Sprintf("%x", sha256.Sum256(b)))
	}
	return strings.Join(sums, " ")
}

// TestSyncPathThroughLink: a path argument is resolved without following
// links; a path through one is refused and indexes nothing.
func TestSyncPathThroughLink(t *testing.T) {
	t.Parallel()
	dir, lib := evidenceLibrary(t, 0)
	writeBooks(t, lib, 1)
	outside := filepath.Join(dir, "outside")
	writeFile(t, filepath.Join(outside, "inner.md"), "# Secret\n\nThe combination is 1234.\n")
	if err := os.Symlink(outside, filepath.Join(lib, "linkdir")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	os.Symlink(lib, filepath.Join(lib, "self"))
	var s syncOut
	okJSON(t, &s, dir, "sync")
	for _, arg := range []string{"Books/linkdir/inner.md", "Books/self/book00.md", "Books/self/self/linkdir"} {
		r := grimoire(t, dir, "sync", arg)
		if r.code != exitInvalid || !strings.Contains(r.stderr, "symbolic link") {
			t.Errorf("sync %s: exit %d, stderr %q", arg, r.code, r.stderr)
		}
	}
	var books []bookOut
	okJSON(t, &books, dir, "list")
	if len(books) != 1 || len(books[0].Paths) != 1 {
		t.Fatalf("books %+v, want one with one path", books)
	}
	if r := grimoire(t, dir, "query", "combination", "--json"); strings.Contains(r.stdout, "1234") {
		t.Errorf("the outside file was indexed: %s", r.stdout)
	}
}
