package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The Claude Code plugin in claude-plugin/ is checked against the schema
// that Claude Code's documentation gives (code.claude.com/docs/en/
// plugins-reference: "Plugin manifest schema", "User configuration";
// /hooks: "Hook handler fields"; /plugin-marketplaces: "Marketplace
// schema"). No JSON Schema file is published for all of it, so the fields
// are written down here: required ones, types, and no field the docs do
// not name (as `claude plugin validate --strict` warns of them).

// jsonKind is a JSON type as the docs name them.
type jsonKind string

const (
	kString  jsonKind = "string"
	kNumber  jsonKind = "number"
	kBoolean jsonKind = "boolean"
	kObject  jsonKind = "object"
	kArray   jsonKind = "array"
)

func kindOf(v any) jsonKind {
	switch v.(type) {
	case string:
		return kString
	case float64:
		return kNumber
	case bool:
		return kBoolean
	case map[string]any:
		return kObject
	case []any:
		return kArray
	}
	return "null"
}

// fieldSpec is a field's allowed kinds and whether it is required.
type fieldSpec struct {
	kinds    []jsonKind
	required bool
}

func req(k ...jsonKind) fieldSpec { return fieldSpec{k, true} }
func opt(k ...jsonKind) fieldSpec { return fieldSpec{k, false} }

// checkObject reports, for the object v at where, missing required fields,
// fields of another kind, and fields the spec does not name.
func checkObject(where string, v any, spec map[string]fieldSpec) []string {
	obj, ok := v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: %s, want an object", where, kindOf(v))}
	}
	var errs []string
	for name, f := range spec {
		got, present := obj[name]
		switch {
		case !present && f.required:
			errs = append(errs, fmt.Sprintf("%s: no %s", where, name))
		case present && !slices.Contains(f.kinds, kindOf(got)):
			errs = append(errs, fmt.Sprintf("%s.%s: %s, want %v", where, name, kindOf(got), f.kinds))
		}
	}
	for name := range obj {
		if _, known := spec[name]; !known {
			errs = append(errs, fmt.Sprintf("%s.%s: a field the schema does not name", where, name))
		}
	}
	sort.Strings(errs)
	return errs
}

func checkStrings(where string, v any) []string {
	a, ok := v.([]any)
	if !ok {
		return nil
	}
	var errs []string
	for i, e := range a {
		if kindOf(e) != kString {
			errs = append(errs, fmt.Sprintf("%s[%d]: %s, want a string", where, i, kindOf(e)))
		}
	}
	return errs
}

var (
	kebabCase    = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	optionKey    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	userConfig   = regexp.MustCompile(`\$\{user_config\.([^}]*)\}`)
	pluginOption = regexp.MustCompile(`CLAUDE_PLUGIN_OPTION_([A-Z0-9_]+)`)
	semver       = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)
)

// pluginManifest checks .claude-plugin/plugin.json and returns its
// userConfig keys.
func pluginManifest(v any) (errs []string, options []string) {
	errs = checkObject("plugin.json", v, map[string]fieldSpec{
		"$schema": opt(kString), "name": req(kString), "displayName": opt(kString), "version": opt(kString),
		"description": opt(kString), "author": opt(kObject), "homepage": opt(kString), "repository": opt(kString),
		"license": opt(kString), "keywords": opt(kArray), "metadata": opt(kObject), "defaultEnabled": opt(kBoolean),
		"skills": opt(kString, kArray), "commands": opt(kString, kArray), "agents": opt(kString, kArray),
		"hooks": opt(kString, kArray, kObject), "mcpServers": opt(kString, kArray, kObject),
		"outputStyles": opt(kString, kArray), "lspServers": opt(kString, kArray, kObject),
		"userConfig": opt(kObject), "dependencies": opt(kArray),
	})
	m, _ := v.(map[string]any)
	if name, _ := m["name"].(string); !kebabCase.MatchString(name) {
		errs = append(errs, fmt.Sprintf("plugin.json.name: %q is not kebab-case", name))
	}
	if ver, ok := m["version"].(string); ok && !semver.MatchString(ver) {
		errs = append(errs, fmt.Sprintf("plugin.json.version: %q is not a semantic version", ver))
	}
	if a, ok := m["author"]; ok {
		errs = append(errs, checkObject("plugin.json.author", a, map[string]fieldSpec{"name": req(kString), "email": opt(kString), "url": opt(kString)})...)
	}
	errs = append(errs, checkStrings("plugin.json.keywords", m["keywords"])...)
	cfg, _ := m["userConfig"].(map[string]any)
	for key, o := range cfg {
		where := "plugin.json.userConfig." + key
		if !optionKey.MatchString(key) {
			errs = append(errs, where+": not a valid identifier")
		}
		errs = append(errs, checkObject(where, o, map[string]fieldSpec{
			"type": req(kString), "title": req(kString), "description": req(kString), "sensitive": opt(kBoolean),
			"required": opt(kBoolean), "default": opt(kString, kNumber, kBoolean, kArray), "multiple": opt(kBoolean),
			"min": opt(kNumber), "max": opt(kNumber),
		})...)
		om, _ := o.(map[string]any)
		if t, _ := om["type"].(string); !slices.Contains([]string{"string", "number", "boolean", "directory", "file"}, t) {
			errs = append(errs, fmt.Sprintf("%s.type: %q", where, t))
		}
		options = append(options, key)
	}
	return errs, options
}

// hookEvents are the events the hooks reference lists; the last ones take
// no matcher.
var (
	hookEvents = []string{"SessionStart", "Setup", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse",
		"PermissionRequest", "PermissionDenied", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
		"MessageDisplay", "SubagentStart", "SubagentStop", "TaskCreated", "TaskCompleted", "Stop", "StopFailure",
		"TeammateIdle", "InstructionsLoaded", "ConfigChange", "CwdChanged", "DirectoryAdded", "FileChanged",
		"WorktreeCreate", "WorktreeRemove", "PreCompact", "PostCompact", "Elicitation", "ElicitationResult", "SessionEnd"}
	noMatcher = []string{"UserPromptSubmit", "PostToolBatch", "Stop", "TeammateIdle", "TaskCreated", "TaskCompleted",
		"WorktreeCreate", "WorktreeRemove", "MessageDisplay", "CwdChanged"}
)

// pluginHooks checks hooks/hooks.json and returns its command handlers.
func pluginHooks(v any) (errs []string, handlers map[string][]map[string]any) {
	errs = checkObject("hooks.json", v, map[string]fieldSpec{"description": opt(kString), "hooks": req(kObject)})
	m, _ := v.(map[string]any)
	events, _ := m["hooks"].(map[string]any)
	handlers = map[string][]map[string]any{}
	for event, groups := range events {
		where := "hooks.json.hooks." + event
		if !slices.Contains(hookEvents, event) {
			errs = append(errs, where+": no such event")
		}
		gs, ok := groups.([]any)
		if !ok {
			errs = append(errs, where+": want an array of matcher groups")
			continue
		}
		for i, g := range gs {
			gw := fmt.Sprintf("%s[%d]", where, i)
			errs = append(errs, checkObject(gw, g, map[string]fieldSpec{"matcher": opt(kString), "hooks": req(kArray)})...)
			gm, _ := g.(map[string]any)
			if _, has := gm["matcher"]; has && slices.Contains(noMatcher, event) {
				errs = append(errs, gw+".matcher: "+event+" takes no matcher, and ignores it")
			}
			hs, _ := gm["hooks"].([]any)
			for j, h := range hs {
				hw := fmt.Sprintf("%s.hooks[%d]", gw, j)
				errs = append(errs, checkObject(hw, h, map[string]fieldSpec{
					"type": req(kString), "command": req(kString), "args": opt(kArray), "async": opt(kBoolean),
					"asyncRewake": opt(kBoolean), "shell": opt(kString), "if": opt(kString), "timeout": opt(kNumber),
					"statusMessage": opt(kString), "once": opt(kBoolean),
				})...)
				hm, _ := h.(map[string]any)
				if hm["type"] != "command" {
					errs = append(errs, fmt.Sprintf("%s.type: %v, want command", hw, hm["type"]))
				}
				errs = append(errs, checkStrings(hw+".args", hm["args"])...)
				if t, ok := hm["timeout"].(float64); ok && t <= 0 {
					errs = append(errs, fmt.Sprintf("%s.timeout: %v, want seconds above 0", hw, t))
				}
				// A shell-form plugin hook that names ${user_config.*} fails
				// to run; exec form (args) substitutes it.
				if c, _ := hm["command"].(string); hm["args"] == nil && userConfig.MatchString(c) {
					errs = append(errs, hw+".command: ${user_config.*} belongs in args (exec form)")
				}
				handlers[event] = append(handlers[event], hm)
			}
		}
	}
	sort.Strings(errs)
	return errs, handlers
}

// pluginServers checks .mcp.json's stdio servers.
func pluginServers(v any) (errs []string, servers map[string]map[string]any) {
	errs = checkObject(".mcp.json", v, map[string]fieldSpec{"mcpServers": req(kObject)})
	m, _ := v.(map[string]any)
	all, _ := m["mcpServers"].(map[string]any)
	servers = map[string]map[string]any{}
	for name, s := range all {
		where := ".mcp.json.mcpServers." + name
		errs = append(errs, checkObject(where, s, map[string]fieldSpec{"command": req(kString), "args": opt(kArray), "env": opt(kObject)})...)
		sm, _ := s.(map[string]any)
		errs = append(errs, checkStrings(where+".args", sm["args"])...)
		servers[name] = sm
	}
	return errs, servers
}

// pluginMarketplace checks .claude-plugin/marketplace.json.
func pluginMarketplace(v any) []string {
	errs := checkObject("marketplace.json", v, map[string]fieldSpec{
		"$schema": opt(kString), "name": req(kString), "owner": req(kObject), "plugins": req(kArray),
		"description": opt(kString), "version": opt(kString), "metadata": opt(kObject),
	})
	m, _ := v.(map[string]any)
	if name, _ := m["name"].(string); !kebabCase.MatchString(name) {
		errs = append(errs, fmt.Sprintf("marketplace.json.name: %q is not kebab-case", name))
	}
	errs = append(errs, checkObject("marketplace.json.owner", m["owner"], map[string]fieldSpec{"name": req(kString), "email": opt(kString), "url": opt(kString)})...)
	ps, _ := m["plugins"].([]any)
	for i, p := range ps {
		where := fmt.Sprintf("marketplace.json.plugins[%d]", i)
		errs = append(errs, checkObject(where, p, map[string]fieldSpec{
			"name": req(kString), "source": req(kString, kObject), "description": opt(kString), "version": opt(kString),
			"author": opt(kObject), "category": opt(kString), "tags": opt(kArray), "strict": opt(kBoolean),
			"homepage": opt(kString), "repository": opt(kString), "license": opt(kString), "keywords": opt(kArray),
		})...)
		pm, _ := p.(map[string]any)
		if s, ok := pm["source"].(string); ok && !strings.HasPrefix(s, "./") {
			errs = append(errs, fmt.Sprintf("%s.source: %q, want a path from the marketplace root starting with ./", where, s))
		}
	}
	return errs
}

func readJSON(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

// pluginDir is the plugin's folder in the repository.
const pluginDir = "../../claude-plugin"

// TestClaudePluginSchema checks the plugin's files against the documented
// schema, and that they run grimoire as it is called.
func TestClaudePluginSchema(t *testing.T) {
	t.Parallel()
	manifestErrs, options := pluginManifest(readJSON(t, filepath.Join(pluginDir, ".claude-plugin", "plugin.json")))
	hookErrs, handlers := pluginHooks(readJSON(t, filepath.Join(pluginDir, "hooks", "hooks.json")))
	serverErrs, servers := pluginServers(readJSON(t, filepath.Join(pluginDir, ".mcp.json")))
	// The marketplace is at the repository's root, where
	// `/plugin marketplace add OWNER/REPO` looks for it.
	market := readJSON(t, filepath.Join("..", "..", ".claude-plugin", "marketplace.json"))
	marketErrs := pluginMarketplace(market)
	for _, e := range slices.Concat(manifestErrs, hookErrs, serverErrs, marketErrs) {
		t.Error(e)
	}
	for _, p := range market.(map[string]any)["plugins"].([]any) {
		src, _ := p.(map[string]any)["source"].(string)
		if _, err := os.Stat(filepath.Join("..", "..", src, ".claude-plugin", "plugin.json")); err != nil {
			t.Errorf("the marketplace's source %q holds no plugin: %v", src, err)
		}
	}

	uses := func(where string, args []any) {
		for _, a := range args {
			for _, m := range userConfig.FindAllStringSubmatch(fmt.Sprint(a), -1) {
				if !slices.Contains(options, m[1]) {
					t.Errorf("%s names ${user_config.%s}, which plugin.json's userConfig does not declare", where, m[1])
				}
			}
		}
	}
	prompt := handlers["UserPromptSubmit"]
	if len(prompt) != 1 || !strings.Contains(fmt.Sprint(prompt[0]["command"]), "grimoire \"--library=$CLAUDE_PLUGIN_OPTION_LIBRARY\" hook claude-code ") {
		t.Errorf("the UserPromptSubmit handlers: %v", prompt)
	}
	if start := handlers["SessionStart"]; len(start) != 1 {
		t.Errorf("the SessionStart handlers: %v", start)
	}
	// The shell-form hooks read the options from the environment Claude
	// Code gives a plugin's hooks: CLAUDE_PLUGIN_OPTION_ and the key in
	// upper case.
	for _, hs := range handlers {
		for _, h := range hs {
			for _, m := range pluginOption.FindAllStringSubmatch(fmt.Sprint(h["command"]), -1) {
				if !slices.ContainsFunc(options, func(o string) bool { return strings.ToUpper(o) == m[1] }) {
					t.Errorf("hooks.json reads CLAUDE_PLUGIN_OPTION_%s, which plugin.json's userConfig does not declare", m[1])
				}
			}
		}
	}
	s, ok := servers["grimoire"]
	if !ok || s["command"] != "grimoire" || !strings.HasSuffix(fmt.Sprint(s["args"]), "serve --watch]") {
		t.Errorf(".mcp.json: %v", servers)
	} else {
		uses(".mcp.json", s["args"].([]any))
	}

	// The plugin and the Claude Desktop bundle are one release.
	pm := readJSON(t, filepath.Join(pluginDir, ".claude-plugin", "plugin.json")).(map[string]any)
	bm := readJSON(t, filepath.Join("..", "..", "mcpb", "manifest.json")).(map[string]any)
	if pm["version"] != bm["version"] {
		t.Errorf("plugin.json's version %v, the bundle's %v", pm["version"], bm["version"])
	}
}

// TestClaudePluginSchemaCatches feeds the checks the mistakes they are for.
func TestClaudePluginSchemaCatches(t *testing.T) {
	t.Parallel()
	decode := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name  string
		check func(any) []string
		doc   string
		want  string
	}{
		{"manifest without a name", func(v any) []string { e, _ := pluginManifest(v); return e }, `{"version":"1.0.0"}`, "plugin.json: no name"},
		{"a name with spaces", func(v any) []string { e, _ := pluginManifest(v); return e }, `{"name":"my plugin"}`, "not kebab-case"},
		{"keywords as a string", func(v any) []string { e, _ := pluginManifest(v); return e }, `{"name":"p","keywords":"books"}`, "keywords: string"},
		{"a misspelt field", func(v any) []string { e, _ := pluginManifest(v); return e }, `{"name":"p","userconfig":{}}`, "userconfig: a field the schema does not name"},
		{"an option of no type", func(v any) []string { e, _ := pluginManifest(v); return e },
			`{"name":"p","userConfig":{"library":{"type":"folder","title":"t","description":"d"}}}`, `type: "folder"`},
		{"an unknown event", func(v any) []string { e, _ := pluginHooks(v); return e }, `{"hooks":{"PromptSubmit":[]}}`, "no such event"},
		{"a matcher where none is taken", func(v any) []string { e, _ := pluginHooks(v); return e },
			`{"hooks":{"UserPromptSubmit":[{"matcher":"*","hooks":[{"type":"command","command":"x"}]}]}}`, "takes no matcher"},
		{"user_config in shell form", func(v any) []string { e, _ := pluginHooks(v); return e },
			`{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"grimoire --library ${user_config.library}"}]}]}}`, "belongs in args"},
		{"a timeout as a string", func(v any) []string { e, _ := pluginHooks(v); return e },
			`{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"x","timeout":"5"}]}]}}`, "timeout: string"},
		{"a server without a command", func(v any) []string { e, _ := pluginServers(v); return e }, `{"mcpServers":{"g":{"args":[]}}}`, "no command"},
		{"a marketplace without an owner", pluginMarketplace, `{"name":"m","plugins":[]}`, "no owner"},
		{"a source outside ./", pluginMarketplace, `{"name":"m","owner":{"name":"o"},"plugins":[{"name":"p","source":"claude-plugin"}]}`, "starting with ./"},
		{"a licence misspelt", pluginMarketplace, `{"name":"m","owner":{"name":"o"},"plugins":[{"name":"p","source":"./p","licence":"MIT"}]}`, "licence: a field the schema does not name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := tc.check(decode(tc.doc))
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Errorf("errors %q, want one with %q", errs, tc.want)
			}
		})
	}
}

// pluginCommand returns the command of the plugin's only handler for
// event.
func pluginCommand(t *testing.T, event string) string {
	t.Helper()
	_, handlers := pluginHooks(readJSON(t, filepath.Join(pluginDir, "hooks", "hooks.json")))
	if len(handlers[event]) != 1 {
		t.Fatalf("hooks.json: %d handlers for %s", len(handlers[event]), event)
	}
	return handlers[event][0]["command"].(string)
}

// shells are the POSIX shells here that Claude Code runs a hook's command
// with (sh on Linux and macOS, bash there and in Git Bash on Windows).
func shells(t *testing.T) []string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the test puts a shell script on PATH as grimoire")
	}
	var found []string
	for _, name := range []string{"sh", "bash"} {
		if p, err := exec.LookPath(name); err == nil {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		t.Skip("no sh or bash here")
	}
	return found
}

// runShell runs command as Claude Code runs a plugin's shell-form hook:
// through shell, with the plugin's environment and only env besides.
func runShell(t *testing.T, shell, command, stdin string, env ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, shell, "-c", command)
	cmd.Dir = t.TempDir()
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "CLAUDE_PLUGIN_ROOT=" + pluginDir}, env...)
	cmd.Stdin = strings.NewReader(stdin)
	return collect(t, cmd)
}

// grimoireOnPath returns a folder to put on PATH that holds a grimoire: the
// test binary, given the budget a loaded test machine needs (the default
// is for people).
func grimoireOnPath(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "grimoire"), "#!/bin/sh\nexec "+shellQuote(binary)+" \"$@\" --budget 1m\n")
	if err := os.Chmod(filepath.Join(dir, "grimoire"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestClaudePluginHookRuns runs the plugin's prompt hook as Claude Code
// would, through each shell, with the options in the environment, on
// Claude Code's JSON: the hook option set, left empty, and set to off.
func TestClaudePluginHookRuns(t *testing.T) {
	t.Parallel()
	lib := owlLibrary(t)
	command := pluginCommand(t, "UserPromptSubmit")
	path := "PATH=" + grimoireOnPath(t) + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, shell := range shells(t) {
		for _, gate := range []string{"normal", "", "off"} {
			r := runShell(t, shell, command, promptJSON(t, "Why do owls cough up pellets of bone and fur?"),
				path, "CLAUDE_PLUGIN_OPTION_LIBRARY="+lib, "CLAUDE_PLUGIN_OPTION_HOOK="+gate)
			if gate == "off" {
				if r.stdout != "" || r.stderr != "" || r.code != 0 {
					t.Errorf("%s: the plugin's hook, off: exit %d, stdout %q, stderr %q", shell, r.code, r.stdout, r.stderr)
				}
				continue
			}
			if got := hookContext(t, r.stdout); !strings.Contains(got, "“On Owls” by A. Birder") {
				t.Errorf("%s: the plugin's hook with the option %q printed %s", shell, gate, got)
			}
		}
	}
}

// TestClaudePluginWithoutGrimoire runs the plugin's hooks with no grimoire
// on PATH: the session's start says once what to install, and the prompt
// hook says nothing and succeeds, on every prompt. With grimoire there,
// the start says nothing.
func TestClaudePluginWithoutGrimoire(t *testing.T) {
	t.Parallel()
	start := pluginCommand(t, "SessionStart")
	prompt := pluginCommand(t, "UserPromptSubmit")
	empty := "PATH=" + t.TempDir()
	for _, shell := range shells(t) {
		r := runShell(t, shell, start, `{"hook_event_name":"SessionStart","source":"startup"}`, empty)
		var said struct {
			SystemMessage string `json:"systemMessage"`
		}
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&said); err != nil || r.code != 0 || r.stderr != "" ||
			!strings.Contains(said.SystemMessage, "grimoire is not installed") || !strings.Contains(said.SystemMessage, "go install github.com/grimoire-search/grimoire/cmd/grimoire@latest") {
			t.Errorf("%s: the session's start without grimoire: exit %d, stdout %q (%v), stderr %q", shell, r.code, r.stdout, err, r.stderr)
		}
		r = runShell(t, shell, prompt, promptJSON(t, "Why do owls cough up pellets of bone and fur?"), empty, "CLAUDE_PLUGIN_OPTION_LIBRARY="+t.TempDir())
		if r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Errorf("%s: the prompt hook without grimoire: exit %d, stdout %q, stderr %q", shell, r.code, r.stdout, r.stderr)
		}
		r = runShell(t, shell, start, `{"hook_event_name":"SessionStart","source":"startup"}`, "PATH="+grimoireOnPath(t))
		if r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Errorf("%s: the session's start with grimoire: exit %d, stdout %q, stderr %q", shell, r.code, r.stdout, r.stderr)
		}
	}
}
