package claude

import (
	"bytes"
	"encoding/json"
	"path"

	"github.com/ralph-loop/ralph-loop/hook/install"
	"github.com/ralph-loop/ralph-loop/inject"
)

// PluginVersion is the version of the Claude Code plugin. Claude Code updates an installed
// plugin only when its version changes, so it goes up with every change to the plugin's
// files.
const PluginVersion = "1.0.2"

// PluginDir is where the plugin lives in the repository, which is also its marketplace
// (.claude-plugin/marketplace.json at the root).
const PluginDir = "plugins/ralph-loop"

// PluginFiles are the files of ralph-loop's Claude Code plugin and of the marketplace that
// lists it, by their path in the repository. The plugin's hooks are the ones a project-scope
// install writes: they run the ralph-loop found on PATH (which leaves every event to any other
// set of ralph-loop's hooks in the settings, so none runs twice), and on a machine without one they
// do nothing but tell the user once, at the session's start (and when a prompt names
// ralph), how to install it. A plugin cannot set Claude Code's environment, so the block cap
// stays at Claude Code's default of 8 blocks without a tool call in between.
func PluginFiles() map[string][]byte {
	const desc = "Keep the agent working on a task, in its current session, until it prints an exact completion promise after real work: /ralph-loop, /ulw-loop, /cancel-ralph"
	files := map[string][]byte{}
	files[".claude-plugin/marketplace.json"] = indent(map[string]any{
		"name":  "ralph-loop",
		"owner": map[string]any{"name": "The ralph-loop authors"},
		"plugins": []any{map[string]any{
			"name":        "ralph-loop",
			"source":      "./" + PluginDir,
			"description": desc,
			"version":     PluginVersion,
		}},
	})
	files[path.Join(PluginDir, ".claude-plugin/plugin.json")] = indent(map[string]any{
		"name":        "ralph-loop",
		"version":     PluginVersion,
		"description": desc,
		"license":     "MIT",
	})
	files[path.Join(PluginDir, "hooks/hooks.json")] = pluginHooks()
	for _, cf := range inject.CommandsFor("claude") {
		files[path.Join(PluginDir, "commands", cf.Name)] = []byte(cf.Content)
	}
	return files
}

// pluginHooks is hooks/hooks.json: Installer's events, in its order, each running the
// portable command.
func pluginHooks() []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"hooks\": {")
	for i, ev := range Installer.Events {
		if i > 0 {
			b.WriteString(",")
		}
		entry := struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int64  `json:"timeout"`
		}{"command", install.PortableCommandAt(Installer, ev, install.ScopePlugin), int64(ev.Timeout.Seconds())}
		group := struct {
			Matcher string `json:"matcher,omitempty"`
			Hooks   []any  `json:"hooks"`
		}{ev.Matcher, []any{entry}}
		b.WriteString("\n    " + string(marshal(ev.Name, "")) + ": " + string(marshal([]any{group}, "    ")))
	}
	b.WriteString("\n  }\n}\n")
	return b.Bytes()
}

// marshal encodes v indented by two spaces after prefix, leaving <, > and & as they are
// (they are shell syntax in the commands).
func marshal(v any, prefix string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	_ = enc.Encode(v) // maps, slices and strings: never fails
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func indent(v any) []byte {
	return append(marshal(v, ""), '\n')
}
