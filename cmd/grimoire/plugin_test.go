package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
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
	kebabCase  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	optionKey  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	userConfig = regexp.MustCompile(`\$\{user_config\.([^}]*)\}`)
	semver     = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)
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
	manifestErrs, options := pluginManifest(readJSON(t, filepath.Join(pluginDir, ".claude-plugin", "plugin.json")))
	hookErrs, handlers := pluginHooks(readJSON(t, filepath.Join(pluginDir, "hooks", "hooks.json")))
	serverErrs, servers := pluginServers(readJSON(t, filepath.Join(pluginDir, ".mcp.json")))
	marketErrs := pluginMarketplace(readJSON(t, filepath.Join(pluginDir, ".claude-plugin", "marketplace.json")))
	for _, e := range slices.Concat(manifestErrs, hookErrs, serverErrs, marketErrs) {
		t.Error(e)
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
	if len(prompt) != 1 || prompt[0]["command"] != "grimoire" || !strings.Contains(fmt.Sprint(prompt[0]["args"]), " hook claude-code ") {
		t.Errorf("the UserPromptSubmit handlers: %v", prompt)
	}
	for _, h := range prompt {
		uses("hooks.json", h["args"].([]any))
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := tc.check(decode(tc.doc))
			if !strings.Contains(strings.Join(errs, "\n"), tc.want) {
				t.Errorf("errors %q, want one with %q", errs, tc.want)
			}
		})
	}
}

// TestClaudePluginHookRuns runs the plugin's hook as Claude Code would,
// with the options substituted, on Claude Code's JSON: the hook option
// set, left empty, and set to off.
func TestClaudePluginHookRuns(t *testing.T) {
	lib := owlLibrary(t)
	_, handlers := pluginHooks(readJSON(t, filepath.Join(pluginDir, "hooks", "hooks.json")))
	for _, gate := range []string{"normal", "", "off"} {
		var args []string
		for _, a := range handlers["UserPromptSubmit"][0]["args"].([]any) {
			args = append(args, strings.NewReplacer("${user_config.library}", lib, "${user_config.hook}", gate).Replace(a.(string)))
		}
		// The budget a loaded test machine needs; the default is for people.
		args = append(args, "--budget", "1m")
		r := grimoireIn(t, t.TempDir(), promptJSON(t, "Why do owls cough up pellets of bone and fur?"), args...)
		if gate == "off" {
			if r.stdout != "" || r.stderr != "" || r.code != 0 {
				t.Errorf("the plugin's hook, off: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			continue
		}
		if got := hookContext(t, r.stdout); !strings.Contains(got, "“On Owls” by A. Birder") {
			t.Errorf("the plugin's hook with the option %q printed %s", gate, got)
		}
	}
}
