package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSlugPrefixes names books by the beginning of their slug, wherever a
// command takes a slug.
func TestSlugPrefixes(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "alice1.txt"), "Alice One\n\nCHAPTER I.\n\nDown the rabbit hole.\n")
	writeFile(t, filepath.Join(lib, "alice2.txt"), "Alice Two\n\nCHAPTER I.\n\nThrough the looking glass.\n")
	writeFile(t, filepath.Join(lib, "moby.txt"), "Moby Dick\n\nCHAPTER I.\n\nCall me Ishmael.\n")
	ok(t, lib, "sync")

	if out := ok(t, lib, "outline", "moby"); !strings.Contains(out, "Moby Dick") {
		t.Errorf("outline moby:\n%s", out)
	}
	if out := ok(t, lib, "section", "MOBY", "0", "0"); !strings.Contains(out, "Call me Ishmael") {
		t.Errorf("section MOBY 0 0:\n%s", out)
	}
	var hits []hitOut
	okJSON(t, &hits, lib, "query", "--book", "mob", "call me")
	if len(hits) == 0 || hits[0].Book != "moby-dick" {
		t.Errorf("query --book mob: %+v", hits)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"ambiguous prefix", []string{"outline", "alice"}, exitInvalid, `"alice" could be 2 books: alice-one, alice-two`},
		{"ambiguous prefix in a search", []string{"query", "--book", "alice", "rabbit"}, exitInvalid, "alice-one, alice-two"},
		{"ambiguous prefix to delete", []string{"delete", "alice", "--yes"}, exitInvalid, "alice-one, alice-two"},
		{"unknown slug", []string{"outline", "mobi-dick"}, exitNotFound, `no book "mobi-dick": did you mean "moby-dick"?`},
		{"unknown slug in a search", []string{"query", "--book", "alise", "rabbit"}, exitNotFound, `did you mean "alice-one" or "alice-two"?`},
		{"unknown slug, nothing near", []string{"section", "zzzz", "0", "0"}, exitNotFound, `no book "zzzz" — `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := grimoire(t, lib, tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("grimoire %s: exit %d, want %d and %q\n%s", strings.Join(tc.args, " "), r.code, tc.code, tc.want, r.stderr)
			}
		})
	}

	if out := ok(t, lib, "delete", "mob", "--yes"); !strings.Contains(out, "deleted moby-dick") {
		t.Errorf("delete mob:\n%s", out)
	}
	if r := grimoire(t, lib, "exclusions", "lift", "mbo"); r.code != exitNotFound || !strings.Contains(r.stderr, `did you mean "moby-dick"?`) {
		t.Errorf("exclusions lift mbo: exit %d\n%s", r.code, r.stderr)
	}
	if out := ok(t, lib, "exclusions", "lift", "moby"); !strings.Contains(out, `"Moby Dick"`) {
		t.Errorf("exclusions lift moby:\n%s", out)
	}
}

// TestConfigNames: a mistyped key is named with its section and the key
// meant; a bad duration says which format it wants.
func TestConfigNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, toml string
		env        []string
		want       string
		// notWant is the hint about keys, which a bad value has no use for.
		notWant string
	}{
		{name: "typo in a section", toml: "[retrieval]\nmdoe = \"fts\"\n", want: `unknown key "mdoe" in [retrieval]: did you mean "mode"?`},
		{name: "typo at the top", toml: "libary = [\".\"]\n", want: `unknown key "libary": did you mean "library"?`},
		{name: "typo in a section's name", toml: "[wacth]\ndebounce = \"1s\"\n", want: `unknown section [wacth]: did you mean [watch]?`},
		{name: "duration in words", toml: "[watch]\ndebounce = \"2 seconds\"\n", want: `[watch] debounce = "2 seconds" is not a duration — use a Go duration such as 500ms, 2s or 1m30s`, notWant: "grimoire init"},
		{name: "duration without a unit", toml: "[watch]\nrescan_interval = 60\n", want: `[watch] rescan_interval = 60 is not a duration — use a Go duration such as 500ms, 2s or 1m30s`, notWant: "grimoire init"},
		{name: "duration from the environment", env: []string{"GRIMOIRE_WATCH_DEBOUNCE=soon"}, want: `GRIMOIRE_WATCH_DEBOUNCE="soon" is not a duration — use a Go duration`, notWant: "grimoire init"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "grimoire.toml"), "library = [\".\"]\n")
			if tc.toml != "" {
				writeFile(t, filepath.Join(dir, "grimoire.toml"), tc.toml)
			}
			r := grimoireEnv(t, dir, tc.env, "status")
			if r.code != exitInvalid || !strings.Contains(r.stderr, tc.want) || tc.notWant != "" && strings.Contains(r.stderr, tc.notWant) {
				t.Errorf("exit %d, want %d and %q\n%s", r.code, exitInvalid, tc.want, r.stderr)
			}
		})
	}
}
