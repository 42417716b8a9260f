package main

import (
	"archive/zip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// mcpbCLI is the official mcpb CLI (npm's @anthropic-ai/mcpb): MCPB names
// it, else it is looked up on PATH; the test skips without it.
func mcpbCLI(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MCPB"); p != "" {
		return p
	}
	p, err := exec.LookPath("mcpb")
	if err != nil {
		t.Skip("no mcpb CLI (npm install @anthropic-ai/mcpb, and set MCPB to it)")
	}
	return p
}

// TestBundleManifestValidates runs the mcpb CLI on the bundle's manifest.
func TestBundleManifestValidates(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(mcpbCLI(t), "validate", filepath.Join("..", "..", "mcpb", "manifest.json")).CombinedOutput()
	if err != nil {
		t.Errorf("mcpb validate: %v\n%s", err, out)
	}
}

// TestReleaseMacBundlesDiffer builds the two macOS bundles with
// release/build.sh: a manifest chooses a binary by system and not by
// processor, so each bundle's display name must say which Mac it is for.
func TestReleaseMacBundlesDiffer(t *testing.T) {
	t.Parallel()
	mcpb := mcpbCLI(t)
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "..", "release", "build.sh"))
	cmd.Env = append(os.Environ(), "MCPB="+mcpb, "OUT="+out, "TARGETS=darwin/arm64 darwin/amd64")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release/build.sh: %v\n%s", err, b)
	}
	bundles, _ := filepath.Glob(filepath.Join(out, "*.mcpb"))
	if len(bundles) != 2 {
		t.Fatalf("bundles %v, want 2", bundles)
	}
	want := map[string]string{"arm64": "grimoire (macOS, Apple silicon)", "amd64": "grimoire (macOS, Intel)"}
	for _, b := range bundles {
		m := bundleManifest(t, b)
		arch := strings.TrimSuffix(b[strings.LastIndex(b, "-")+1:], ".mcpb")
		if m["display_name"] != want[arch] || m["name"] != "grimoire" || m["manifest_version"] != "0.2" || m["license"] != "MIT" {
			t.Errorf("%s: name %v, display name %v, manifest_version %v, license %v", filepath.Base(b), m["name"], m["display_name"], m["manifest_version"], m["license"])
		}
	}
}

// bundleManifest reads the manifest inside a packed bundle.
func bundleManifest(t *testing.T, bundle string) map[string]any {
	t.Helper()
	z, err := zip.OpenReader(bundle)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	f, err := z.Open("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
