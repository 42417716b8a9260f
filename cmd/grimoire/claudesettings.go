package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// pluginEnv is set by Claude Code for the hooks a plugin runs, and for no
// hook of settings.json (code.claude.com/docs/en/plugins-reference,
// "Environment variables").
const pluginEnv = "CLAUDE_PLUGIN_ROOT"

// claudeSettingsFiles are the Claude Code settings files that may enable
// a plugin for a session in folder cwd, lowest precedence first: the
// user's (in CLAUDE_CONFIG_DIR, else ~/.claude), then the project's
// shared and local ones. cwd "" leaves the project's out.
func claudeSettingsFiles(cwd string) []string {
	dir := os.Getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(home, ".claude")
	}
	files := []string{filepath.Join(dir, "settings.json")}
	if cwd != "" {
		files = append(files, filepath.Join(cwd, ".claude", "settings.json"), filepath.Join(cwd, ".claude", "settings.local.json"))
	}
	return files
}

// grimoirePluginEnabled returns the settings file whose enabledPlugins
// enables the grimoire plugin (as "grimoire@MARKETPLACE", from whichever
// marketplace), "" when none does: a later file that names it overrides
// an earlier one. A file that cannot be read or parsed says nothing.
func grimoirePluginEnabled(files []string) string {
	enabledBy := ""
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var s struct {
			EnabledPlugins map[string]json.RawMessage `json:"enabledPlugins"`
		}
		if json.Unmarshal(b, &s) != nil {
			continue
		}
		named, enabled := false, false
		for id, v := range s.EnabledPlugins {
			if name, _, _ := strings.Cut(id, "@"); name == "grimoire" {
				named = true
				enabled = enabled || string(v) != "false" && string(v) != "null"
			}
		}
		switch {
		case enabled:
			enabledBy = f
		case named:
			enabledBy = ""
		}
	}
	return enabledBy
}
