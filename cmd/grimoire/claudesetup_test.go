package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runEnv runs the binary in dir with stdin, the environment less GRIMOIRE_
// and Claude Code's variables, and env.
func runEnv(t *testing.T, dir, stdin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GRIMOIRE_") && !strings.HasPrefix(kv, "CLAUDE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	return collect(t, cmd)
}

// claudeConfig makes a Claude Code configuration folder whose settings
// enable the plugins given.
func claudeConfig(t *testing.T, enabled string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "settings.json"), `{"enabledPlugins": {`+enabled+`}}`)
	return dir
}

// TestSettingsHookGivesWayToPlugin runs the hook as settings.json runs it
// and as the plugin runs it, with the grimoire plugin enabled in Claude
// Code's settings or not: only one of the two adds the passages.
func TestSettingsHookGivesWayToPlugin(t *testing.T) {
	t.Parallel()
	lib := owlLibrary(t)
	prompt := promptJSON(t, "Why do owls cough up pellets of bone and fur?")
	hook := []string{"--library", lib, "hook", "claude-code", "--budget", "1m"}
	for _, tc := range []struct {
		name     string
		env      []string
		passages bool
	}{
		{"settings hook, no plugin", []string{"CLAUDE_CONFIG_DIR=" + claudeConfig(t, `"other@market": true`)}, true},
		{"settings hook, plugin disabled", []string{"CLAUDE_CONFIG_DIR=" + claudeConfig(t, `"grimoire@grimoire": false`)}, true},
		{"settings hook, plugin enabled", []string{"CLAUDE_CONFIG_DIR=" + claudeConfig(t, `"grimoire@grimoire": true`)}, false},
		{"settings hook, plugin from another marketplace", []string{"CLAUDE_CONFIG_DIR=" + claudeConfig(t, `"grimoire@elsewhere": true`)}, false},
		{"the plugin's hook, plugin enabled", []string{"CLAUDE_CONFIG_DIR=" + claudeConfig(t, `"grimoire@grimoire": true`), "CLAUDE_PLUGIN_ROOT=" + t.TempDir()}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runEnv(t, t.TempDir(), prompt, tc.env, hook...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if tc.passages {
				hookContext(t, r.stdout)
			} else if r.stdout != "" {
				t.Errorf("printed %s", r.stdout)
			}
		})
	}
	// A project's local settings override the user's.
	project := t.TempDir()
	writeFile(t, filepath.Join(project, ".claude", "settings.local.json"), `{"enabledPlugins": {"grimoire@grimoire": false}}`)
	event := strings.Replace(prompt, `"cwd":"/home/user/proj"`, `"cwd":`+jsonString(t, project), 1)
	r := runEnv(t, t.TempDir(), event, []string{"CLAUDE_CONFIG_DIR=" + claudeConfig(t, `"grimoire@grimoire": true`)}, hook...)
	hookContext(t, r.stdout)
}

func jsonString(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return `"` + b.String() + `"`
}

// TestMCPConfigForClaude checks what mcp-config tells of Claude's setup:
// the server for every folder (--scope user, as the hook is), the plugin
// or the settings and not both, the Claude Code that runs the hook's
// args, Claude Desktop's file on Linux; and a note when the plugin is
// enabled already.
func TestMCPConfigForClaude(t *testing.T) {
	t.Parallel()
	lib := t.TempDir()
	writeFile(t, filepath.Join(lib, "tides.md"), "# Tides\n\nSpring tides follow the full moon.\n")
	none := []string{"CLAUDE_CONFIG_DIR=" + claudeConfig(t, "")}
	r := runEnv(t, lib, "", none, "--library", lib, "mcp-config")
	if r.code != 0 {
		t.Fatalf("mcp-config: exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"claude mcp add --scope user grimoire -- ",
		"Linux: ~/.config/Claude/",
		"one or the other, not\nboth",
		"needs Claude Code\n" + minClaudeCodeExec + " or later",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("mcp-config does not say %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stderr, "plugin is enabled") {
		t.Errorf("mcp-config without the plugin: %s", r.stderr)
	}
	r = runEnv(t, lib, "", []string{"CLAUDE_CONFIG_DIR=" + claudeConfig(t, `"grimoire@grimoire": true`)}, "--library", lib, "mcp-config")
	if !strings.Contains(r.stderr, "the grimoire plugin is enabled in Claude Code") {
		t.Errorf("mcp-config with the plugin enabled says nothing of it: %s", r.stderr)
	}
}

// TestBareGrimoireHelpOnStderr runs grimoire without arguments as a
// program does, stdin not a terminal (as a Claude Code too old for a
// hook's args runs it): the help goes to stderr, and nothing to stdout,
// which would be added to every prompt.
func TestBareGrimoireHelpOnStderr(t *testing.T) {
	t.Parallel()
	r := runEnv(t, t.TempDir(), "", nil)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "Usage:\n  grimoire [flags]") {
		t.Errorf("bare grimoire: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runEnv(t, t.TempDir(), "", nil, "--help"); r.code != 0 || !strings.Contains(r.stdout, "Usage:") {
		t.Errorf("grimoire --help: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := runEnv(t, t.TempDir(), "", nil, "serach"); r.code != 2 || !strings.Contains(r.stderr, `unknown command "serach"`) {
		t.Errorf("grimoire serach: exit %d, stderr %q", r.code, r.stderr)
	}
}
