package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestRepositoryConfigIsTheTemplate keeps the grimoire.toml at the top of
// the repository equal to what `grimoire init` writes with the defaults, and
// checks that it names every key the configuration has.
func TestRepositoryConfigIsTheTemplate(t *testing.T) {
	want, err := renderConfig(defaultInitValues())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../grimoire.toml")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		if os.Getenv("GRIMOIRE_UPDATE_CONFIG") != "" {
			os.WriteFile("../../grimoire.toml", []byte(want), 0o644)
			return
		}
		t.Fatalf("grimoire.toml differs from the init template; run with GRIMOIRE_UPDATE_CONFIG=1 to rewrite it")
	}
	section := ""
	keys := map[string]bool{}
	for _, line := range strings.Split(want, "\n") {
		if m := regexp.MustCompile(`^\[(\w+)\]$`).FindStringSubmatch(line); m != nil {
			section = m[1] + "."
		}
		if m := regexp.MustCompile(`^(\w+) = `).FindStringSubmatch(line); m != nil {
			keys[section+m[1]] = true
		}
	}
	for k := range defaults() {
		if !keys[k] {
			t.Errorf("key %s is not in grimoire.toml", k)
		}
	}
	for k := range keys {
		if _, ok := defaults()[k]; !ok {
			t.Errorf("grimoire.toml has %s, which the configuration does not know", k)
		}
	}
}
