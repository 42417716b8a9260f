package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/grimoire-search/grimoire/internal/subtree"
)

// versionString describes a build for --version: the version, which is
// what a release build set with -ldflags, else the module's version in the
// Go toolchain's record of the build; then the commit, from the same record,
// so that a bug report names the code it was seen with, whoever built it.
func versionString(stamped string, info *debug.BuildInfo) string {
	released := stamped != "" && stamped != "dev"
	if info == nil {
		if released {
			return stamped
		}
		return "dev (built without module information)"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	if released {
		v = stamped
	}
	var details []string
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		details = append(details, "revision "+rev[:min(12, len(rev))])
	}
	if settings["vcs.modified"] == "true" {
		details = append(details, "with uncommitted changes")
	}
	if t := settings["vcs.time"]; t != "" {
		details = append(details, "committed "+t)
	}
	if info.GoVersion != "" {
		details = append(details, info.GoVersion)
	}
	if len(details) == 0 {
		return v
	}
	return v + " (" + strings.Join(details, ", ") + ")"
}

// buildVersion is this binary's versionString.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return versionString(version, info)
}

// goRunBinary reports whether exe is a binary that `go run` built: the
// first run leaves it in a go-build folder of the temporary folder, which
// is deleted when it exits, and later runs (Go 1.24 on) in the build cache,
// which `go clean -cache` empties. Neither may be written into Claude's
// configuration. All paths are clean and absolute.
func goRunBinary(exe string, tempDirs []string, goCache string) bool {
	if goCache != "" && subtree.Contains(goCache, exe) {
		return true
	}
	for _, tmp := range tempDirs {
		if tmp == "" || !subtree.Contains(tmp, exe) {
			continue
		}
		// The folder right below tmp is go-build followed by digits.
		rest := strings.TrimPrefix(exe[len(tmp):], string(filepath.Separator))
		first, _, _ := strings.Cut(rest, string(filepath.Separator))
		if strings.HasPrefix(first, "go-build") {
			return true
		}
	}
	return false
}

// goRunDirs returns where `go run` puts binaries on this machine, with
// links resolved as os.Executable's path is: the temporary folders
// (GOTMPDIR, else the system's) and the build cache (GOCACHE, else
// go-build in the user's cache folder).
func goRunDirs() (tempDirs []string, goCache string) {
	for _, d := range []string{os.Getenv("GOTMPDIR"), os.TempDir()} {
		if d != "" {
			tempDirs = append(tempDirs, resolvedPath(d))
		}
	}
	goCache = os.Getenv("GOCACHE")
	if goCache == "off" {
		goCache = ""
	}
	if goCache == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			goCache = filepath.Join(dir, "go-build")
		}
	}
	if goCache != "" {
		goCache = resolvedPath(goCache)
	}
	return tempDirs, goCache
}

// resolvedPath is p made absolute and clean, with its links resolved when
// it exists.
func resolvedPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Clean(p)
}
