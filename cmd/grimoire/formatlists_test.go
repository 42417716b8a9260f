package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/grimoire-search/grimoire/ingest"
)

// TestBundleDescriptionNamesEveryFormat holds the Claude Desktop bundle's
// description, which is static JSON, to the format registry.
func TestBundleDescriptionNamesEveryFormat(t *testing.T) {
	t.Parallel()
	m := readJSON(t, filepath.Join("..", "..", "mcpb", "manifest.json")).(map[string]any)
	desc, _ := m["description"].(string)
	if formats := strings.Join(ingest.Formats().Names(), ", "); !strings.Contains(desc, formats) {
		t.Errorf("mcpb/manifest.json's description %q does not name the formats %q", desc, formats)
	}
}

// typeList is the documentation's list of --type's values: "`--type`
// (`pdf`, `epub` … or `text`; …)".
var typeList = regexp.MustCompile("`--type` \\(([^;)]*)")

// TestDocsTypeListIsTheRegistry finds the list of --type's values in the
// README or the documents under docs/, wherever it is, and holds it to the
// format registry's types.
func TestDocsTypeListIsTheRegistry(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append([]string{filepath.Join("..", "..", "README.md")}, files...)
	found := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range typeList.FindAllStringSubmatch(strings.Join(strings.Fields(string(b)), " "), -1) {
			found = true
			var listed []string
			for _, v := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(m[1], -1) {
				listed = append(listed, v[1])
			}
			if want := ingest.Formats().Types(); !slices.Equal(listed, want) {
				t.Errorf("%s lists --type's values as %q; the registry's types are %q", filepath.Base(f), listed, want)
			}
		}
	}
	if !found {
		t.Error("neither README.md nor docs/*.md lists --type's values as \"`--type` (`pdf`, …)\"")
	}
}
