package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestCurrentFolderLibrary: with nothing naming the library, a command
// that scans it takes the current folder and says so while the folder has
// no index yet, and refuses a home folder unless it is named.
func TestCurrentFolderLibrary(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "owls.md"), "# Owls\n\nOwls hunt at night.\n")
	plain := t.TempDir()
	writeFile(t, filepath.Join(plain, "tides.md"), "# Tides\n\nSpring tides follow the full moon.\n")
	otherHome := t.TempDir()
	chose := "grimoire: library: " + plain + " (the current folder; --library or grimoire.toml names another)\n"
	refused := "grimoire: the current folder " + home + " is your home folder, and no library is named: grimoire would index everything below it — run it in the folder of your books, or name this one: --library " + home + ", or library in grimoire.toml\n"

	tests := []struct {
		name   string
		dir    string
		home   string
		args   []string
		code   int
		stderr string
	}{
		{name: "sync in the home folder is refused", dir: home, home: home, args: []string{"sync"}, code: exitInvalid, stderr: refused},
		{name: "watch in the home folder is refused", dir: home, home: home, args: []string{"watch"}, code: exitInvalid, stderr: refused},
		{name: "a home folder named by --library is taken", dir: home, home: home, args: []string{"--library", home, "sync"}},
		{name: "sync in a plain folder names it", dir: plain, home: otherHome, args: []string{"sync"}, stderr: chose},
		{name: "once it has an index, it is not named again", dir: plain, home: otherHome, args: []string{"sync"}},
		{name: "a read-only command in the home folder is not refused", dir: home, home: home, args: []string{"status"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := grimoireEnv(t, tc.dir, []string{"HOME=" + tc.home, "USERPROFILE=" + tc.home}, tc.args...)
			if r.code != tc.code || r.stderr != tc.stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", r.code, r.stderr, tc.code, tc.stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(plain, ".grimoire", "grimoire.db")); err != nil {
		t.Errorf("the plain folder has no index: %v", err)
	}
}

// TestSweepingFolder: the folders whose scan would take in everything.
func TestSweepingFolder(t *testing.T) {
	t.Parallel()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder:", err)
	}
	root := "/"
	if runtime.GOOS == "windows" {
		root = filepath.VolumeName(home) + `\`
	}
	tests := []struct {
		dir, want string
	}{
		{root, "the root of a file system"},
		{home, "your home folder"},
		{t.TempDir(), ""},
	}
	for _, tc := range tests {
		if got := sweepingFolder(tc.dir); got != tc.want {
			t.Errorf("sweepingFolder(%s) = %q, want %q", tc.dir, got, tc.want)
		}
	}
}
