package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fill writes a file until the file system is full, and returns its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return p
		}
	}
}

// TestWatchRetriesAfterDiskFull: a watcher whose index's disk fills up
// says so in status and retries on its own, with no further change to the
// library, once there is room again.
func TestWatchRetriesAfterDiskFull(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small file system needs root")
	}
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx")
	os.MkdirAll(idx, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=10m", "tmpfs", idx).CombinedOutput(); err != nil {
		t.Skipf("mount: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", idx).Run() })
	writeFile(t, filepath.Join(dir, "grimoire.toml"), "library = [\"lib\"]\ndb_path = \"idx/grimoire.db\"\n")
	writeFile(t, filepath.Join(dir, "lib", "small.md"), "# Small\n\nA lighthouse keeper counted waves.\n")

	w := start(t, dir, watchEnv, "watch")
	eventually(t, "the first book indexed", 30*time.Second, func() bool {
		_, found := topBook(t, dir, "lighthouse")
		return found
	})

	filler := fill(t, idx)
	var big strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&big, "Paragraph %d tells of the zyxwordnumber%d harbour and its tides.\n\n", i, i)
	}
	writeFile(t, filepath.Join(dir, "lib", "big.txt"), "THE HARBOUR\n\n"+big.String())

	eventually(t, "status showing the disk-full error", 60*time.Second, func() bool {
		r := grimoire(t, dir, "status")
		return r.code == 0 && strings.Contains(r.stdout, "failing since") && strings.Contains(r.stdout, "disk is full") && strings.Contains(r.stdout, "retry")
	})
	os.Remove(filler)
	// No change to the library from here on: the watcher must retry alone.
	eventually(t, "the big book indexed after the retry", 90*time.Second, func() bool {
		h, found := topBook(t, dir, "zyxwordnumber4321")
		return found && strings.Contains(h.Path, "big.txt")
	})
	eventually(t, "status clear of the error", 30*time.Second, func() bool {
		r := grimoire(t, dir, "status")
		return r.code == 0 && !strings.Contains(r.stdout, "failing since")
	})
	w.stopped(t, 10*time.Second)
}
