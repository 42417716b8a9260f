package reconcile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mountTmpfs mounts a small tmpfs at dir, skipping the test where that
// cannot be done, and unmounts it at the end if it is still mounted.
func mountTmpfs(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=4m"); err != nil {
		t.Skipf("mount a tmpfs at %s: %v", dir, err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
}

func unmount(t *testing.T, dir string) {
	t.Helper()
	if err := syscall.Unmount(dir, 0); err != nil {
		t.Fatalf("unmount %s: %v", dir, err)
	}
}

// TestMountBelowLibraryNeedsEvidence: a drive mounted inside a library
// folder (lib/nas) is judged as a library folder is: unmounted, gone,
// emptied or mostly emptied, its removals are held however few of the
// library's files they are.
func TestMountBelowLibraryNeedsEvidence(t *testing.T) {
	tests := []struct {
		name   string
		onNAS  int
		change func(t *testing.T, nas string)
		// held is the number of removals held back (0: all applied),
		// reason a word of the hold's reason.
		removed, held int
		reason        string
	}{
		{name: "drive unmounted", onNAS: 6, held: 6, reason: "no longer a mount point",
			change: func(t *testing.T, nas string) { unmount(t, nas) }},
		{name: "mount point gone", onNAS: 6, held: 6, reason: "missing",
			change: func(t *testing.T, nas string) {
				unmount(t, nas)
				if err := os.Remove(nas); err != nil {
					t.Fatal(err)
				}
			}},
		{name: "another, empty drive mounted", onNAS: 6, held: 6, reason: "(an unmounted drive?)",
			change: func(t *testing.T, nas string) {
				unmount(t, nas)
				mountTmpfs(t, nas)
			}},
		{name: "drive emptied", onNAS: 6, held: 6, reason: "empty",
			change: func(t *testing.T, nas string) { removeBooks(t, nas, 0, 6) }},
		{name: "more than half of the drive gone", onNAS: 14, held: 11, reason: "11 of its 14 files",
			change: func(t *testing.T, nas string) { removeBooks(t, nas, 0, 11) }},
		{name: "a few deleted from the drive", onNAS: 6, removed: 2,
			change: func(t *testing.T, nas string) { removeBooks(t, nas, 0, 2) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			nas := filepath.Join(f.root, "nas")
			mountTmpfs(t, nas)
			for i := range 20 {
				f.write(fmt.Sprintf("book%02d.txt", i), fmt.Sprintf("text of book %d", i))
			}
			for i := range tc.onNAS {
				f.write(fmt.Sprintf("nas/book%02d.txt", i), fmt.Sprintf("text of the drive's book %d", i))
			}
			all := 20 + tc.onNAS
			if r := f.run(); r.New != all {
				t.Fatalf("first pass: %+v", r.Counters)
			}
			tc.change(t, nas)
			r := f.run()
			if r.Removed != tc.removed || r.Held != tc.held || r.Pruned != tc.removed {
				t.Fatalf("counters %+v, want %d removed and pruned, %d held", r.Counters, tc.removed, tc.held)
			}
			holds, err := f.w.Holds(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tc.held == 0 {
				if len(holds) != 0 {
					t.Errorf("holds %+v", holds)
				}
				settled(t, f.run())
				return
			}
			if len(holds) != 1 || holds[0].Root != nas || holds[0].Files != tc.held || !strings.Contains(holds[0].Reason, tc.reason) {
				t.Fatalf("holds %+v, want %d files under %s because %q", holds, tc.held, nas, tc.reason)
			}
			if r = f.run(); r.Held != tc.held || f.books() != all {
				t.Errorf("second pass: %+v, %d books, want all %d kept", r.Counters, f.books(), all)
			}
			f.opts.Prune = true
			r = f.run()
			f.opts.Prune = false
			if r.Removed != tc.held || r.Held != 0 {
				t.Errorf("prune: %+v", r.Counters)
			}
			if holds, _ := f.w.Holds(context.Background()); len(holds) != 0 {
				t.Errorf("holds after prune: %+v", holds)
			}
			settled(t, f.run())
		})
	}
}

// TestMountBelowLibraryInBatches: a watcher's batch that names the
// unmounted drive's folder, or a file on it, holds its removals too; the
// drive back with its files ends the hold.
func TestMountBelowLibraryInBatches(t *testing.T) {
	f := newFixture(t)
	nas := filepath.Join(f.root, "nas")
	mountTmpfs(t, nas)
	for i := range 20 {
		f.write(fmt.Sprintf("book%02d.txt", i), fmt.Sprintf("text of book %d", i))
	}
	for i := range 6 {
		f.write(fmt.Sprintf("nas/book%02d.txt", i), fmt.Sprintf("text of the drive's book %d", i))
	}
	f.run()
	unmount(t, nas)
	for _, paths := range [][]string{{nas}, {filepath.Join(nas, "book03.txt")}} {
		r, err := Paths(context.Background(), f.w, f.opts, paths)
		if err != nil {
			t.Fatal(err)
		}
		if r.Removed != 0 || r.Held == 0 || len(r.Holds) != 1 || r.Holds[0].Root != nas {
			t.Fatalf("batch %v with the drive unmounted: %+v %+v", paths, r.Counters, r.Holds)
		}
	}
	if r := f.run(); r.Held != 6 || f.books() != 26 {
		t.Fatalf("full pass: %+v, %d books", r.Counters, f.books())
	}
	mountTmpfs(t, nas)
	for i := range 6 {
		f.write(fmt.Sprintf("nas/book%02d.txt", i), fmt.Sprintf("text of the drive's book %d", i))
	}
	if r := f.run(); r.Removed != 0 || r.Held != 0 {
		t.Errorf("the drive back: %+v", r.Counters)
	}
	if holds, _ := f.w.Holds(context.Background()); len(holds) != 0 {
		t.Errorf("holds once the drive is back: %+v", holds)
	}
	// Still remembered as a mount point: unmounted again, it holds again.
	unmount(t, nas)
	if r := f.run(); r.Held != 6 {
		t.Errorf("unmounted again: %+v", r.Counters)
	}
}

// removeBooks deletes dir/bookNN.txt for NN from..to-1.
func removeBooks(t *testing.T, dir string, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if err := os.Remove(filepath.Join(dir, fmt.Sprintf("book%02d.txt", i))); err != nil {
			t.Fatal(err)
		}
	}
}
