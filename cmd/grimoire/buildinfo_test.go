package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionString(t *testing.T) {
	t.Parallel()
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "f2d242e4ef59c6504914f000cd41c64fff299e4c"},
		{Key: "vcs.time", Value: "2026-01-03T15:29:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	for _, tc := range []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{"stamped by a release build", "v1.2.0", &debug.BuildInfo{GoVersion: "go1.26.0",
			Main: debug.Module{Version: "v0.0.0-20260103152900-f2d242e4ef59"}, Settings: vcs[:3]},
			"v1.2.0 (revision f2d242e4ef59, committed 2026-01-03T15:29:00Z, go1.26.0)"},
		{"stamped, without build information", "v1.2.0", nil, "v1.2.0"},
		{"no build information", "dev", nil, "dev (built without module information)"},
		{"go install of a version", "dev", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.0"}},
			"v1.2.0 (go1.26.0)"},
		{"a build in a clone with changes", "dev", &debug.BuildInfo{GoVersion: "go1.26.0",
			Main: debug.Module{Version: "v0.0.0-20260103152900-f2d242e4ef59+dirty"}, Settings: vcs},
			"v0.0.0-20260103152900-f2d242e4ef59+dirty (revision f2d242e4ef59, with uncommitted changes, committed 2026-01-03T15:29:00Z, go1.26.0)"},
		{"go run, without version control stamps", "dev", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			"devel (go1.26.0)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionString(tc.stamped, tc.info); got != tc.want {
				t.Errorf("versionString = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGoRunBinary(t *testing.T) {
	t.Parallel()
	tmp, cache := []string{"/tmp"}, "/home/u/.cache/go-build"
	for _, tc := range []struct {
		name, exe string
		want      bool
	}{
		{"first go run, in a temporary go-build folder", "/tmp/go-build399917318/b001/exe/grimoire", true},
		{"later go run, in the build cache", "/home/u/.cache/go-build/fd/fdcab4bb-d/grimoire", true},
		{"installed", "/home/u/go/bin/grimoire", false},
		{"built into the temporary folder by hand", "/tmp/grimoire-e2e-1/grimoire", false},
		{"a folder that only starts like the cache", "/home/u/.cache/go-build-tools/grimoire", false},
		{"a go-build folder outside the temporary folder", "/home/u/go-build1/grimoire", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := goRunBinary(tc.exe, tmp, cache); got != tc.want {
				t.Errorf("goRunBinary(%s) = %v, want %v", tc.exe, got, tc.want)
			}
		})
	}
	if !goRunBinary("/go-build1/b001/exe/grimoire", []string{"/"}, "") {
		t.Error("a temporary folder at the volume root")
	}
}

// runAt runs a copy of the binary at exe with extra environment.
func runAt(t *testing.T, exe, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GRIMOIRE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return collect(t, cmd)
}

// TestVersionNamesTheBuild checks that --version says what Go recorded of
// the build, rather than a placeholder.
func TestVersionNamesTheBuild(t *testing.T) {
	t.Parallel()
	out := ok(t, t.TempDir(), "--version")
	if strings.TrimSpace(out) == "grimoire version dev" || !strings.HasPrefix(out, "grimoire version ") {
		t.Fatalf("--version = %q", out)
	}
	recorded, err := exec.Command("go", "version", "-m", binary).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(recorded), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && strings.HasSuffix(f[0], ":") && !strings.Contains(out, f[1]):
			t.Errorf("--version = %q, without the Go version %s", out, f[1])
		case len(f) == 2 && strings.HasPrefix(f[1], "vcs.revision=") && !strings.Contains(out, strings.TrimPrefix(f[1], "vcs.revision=")[:12]):
			t.Errorf("--version = %q, without the revision of %s", out, f[1])
		}
	}
}

// TestMCPConfigWarnsOfGoRun runs mcp-config from where `go run` leaves its
// binaries, and from elsewhere.
func TestMCPConfigWarnsOfGoRun(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	lib := t.TempDir()
	exe := filepath.Join(tmp, "go-build123456", "b001", "exe", filepath.Base(binary))
	copyFile(t, binary, exe)
	if err := os.Chmod(exe, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"TMPDIR=" + tmp, "GOTMPDIR=", "GOCACHE=" + filepath.Join(tmp, "cache")}
	r := runAt(t, exe, lib, env, "--library", lib, "mcp-config")
	if r.code != 0 || !strings.Contains(r.stderr, "go install ./cmd/grimoire") ||
		!strings.Contains(r.stderr, `"$(go env GOPATH)/bin/grimoire" --library `+shellQuote(lib)+" mcp-config") {
		t.Errorf("from a go run folder: exit %d\nstderr: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "mcpServers") {
		t.Errorf("the configuration is still printed: %s", r.stdout)
	}
	r = runAt(t, binary, lib, env, "--library", lib, "mcp-config")
	if r.code != 0 || strings.Contains(r.stderr, "go run") {
		t.Errorf("from an ordinary folder: exit %d\nstderr: %s", r.code, r.stderr)
	}
}

// maxBinaryBytes bounds the binary as `go install` builds it. It is about
// 48 MB on linux/amd64: Go's code and its function tables (about 24 MB),
// DWARF and symbols (about 12 MB, which a release strips with -s -w), the
// PDFium WebAssembly module (6 MB), SQLite compiled to Go (2 MB of code).
// A dependency that would take it past this should be weighed first.
const maxBinaryBytes = 50 << 20

func TestBinarySize(t *testing.T) {
	t.Parallel()
	st, err := os.Stat(binary)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > maxBinaryBytes {
		t.Errorf("the binary is %.1f MB, over %.1f MB", float64(st.Size())/1e6, float64(maxBinaryBytes)/1e6)
	}
}
