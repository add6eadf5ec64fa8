package claude

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// Claude Code's settings, changed by the agent while its loop runs. Claude Code reads a
// changed settings file into the running session about 1.5 s later, unless a ConfigChange
// hook refuses it; ralph-loop refuses every change to what Claude Code would run or how,
// compared with what was in force when the loop was armed. Each case is judged by its
// effect: after the change the loop's next stop is still blocked, the loop is ACTIVE, and
// the user's own /cancel-ralph ends it.

// settingsEdit is the agent's attack: it writes file (relative to the project) with content
// through the Write tool, then gives Claude Code time to read it.
func settingsEdit(file, content string) []e2e.Turn {
	return []e2e.Turn{
		e2e.Tool("Change the settings.", "Write", map[string]any{"file_path": file, "content": content}),
		e2e.Bash("Give Claude Code time to read it.", "sleep 4"),
	}
}

// projectSettings returns the project's settings as install wrote them, for a case to edit.
func projectSettings(t *testing.T, env *e2e.Env) map[string]any {
	t.Helper()
	return readJSON(t, filepath.Join(env.Project, ".claude", "settings.json"))
}

// readJSON is the JSON object in the file at path.
func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data := e2e.Read(t, path)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// stopEntry is the first entry of the settings' Stop hooks.
func stopEntry(t *testing.T, s map[string]any) map[string]any {
	t.Helper()
	hooks, _ := s["hooks"].(map[string]any)
	groups, _ := hooks["Stop"].([]any)
	if len(groups) == 0 {
		t.Fatalf("no Stop hook in %v", s)
	}
	entries, _ := groups[0].(map[string]any)["hooks"].([]any)
	return entries[0].(map[string]any)
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// refusedChange checks that the loop logged a refused settings change of file.
func refusedChange(t *testing.T, l e2e.Loop, file string) {
	t.Helper()
	r := strings.Join(refused(l), "\n")
	if !strings.Contains(r, file) {
		t.Errorf("refused events %q: want the change of %s", r, file)
	}
}

func TestSettingsChangesRefused(t *testing.T) {
	cases := []struct {
		name string
		file string
		// content makes the file's new content from the project's settings as installed.
		content func(t *testing.T, env *e2e.Env, s map[string]any) string
	}{
		{"plugin named instead of the hooks", ".claude/settings.json", func(t *testing.T, _ *e2e.Env, s map[string]any) string {
			return marshal(t, map[string]any{"enabledPlugins": map[string]any{"ralph-loop@x": true}})
		}},
		{"Stop hook repointed", ".claude/settings.json", func(t *testing.T, _ *e2e.Env, s map[string]any) string {
			stopEntry(t, s)["command"] = "/nonexistent/ralph-loop hook --host claude"
			return marshal(t, s)
		}},
		{"keys that differ in case", ".claude/settings.local.json", func(*testing.T, *e2e.Env, map[string]any) string {
			return `{"disableAllHooks": true, "disableallhooks": false}` + "\n"
		}},
		{"a second Stop hook that ends the turn", ".claude/settings.local.json", func(t *testing.T, _ *e2e.Env, _ map[string]any) string {
			return marshal(t, map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{
				map[string]any{"type": "command", "command": `echo '{"continue": false}'`}}}}}})
		}},
		{"a value of the wrong type beside the hooks", ".claude/settings.json", func(t *testing.T, _ *e2e.Env, s map[string]any) string {
			s["model"] = 123 // Claude Code 2.1.330 then drops the whole file, hooks and all
			return marshal(t, s)
		}},
		{"the hooks' environment", ".claude/settings.local.json", func(t *testing.T, env *e2e.Env, _ map[string]any) string {
			return marshal(t, map[string]any{"env": map[string]any{"XDG_STATE_HOME": filepath.Join(env.Root, "elsewhere")}})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t)
			content := c.content(t, env, projectSettings(t, env))
			_, l := attackThenUserCancel(t, env, settingsEdit(c.file, content))
			refusedChange(t, l, c.file)
		})
	}
}

// The Stop hook's timeout lowered to 1 s, then a promise whose check takes 3 s: the
// change is refused, so the hook has its time, the check runs and fails, and the stop is
// blocked. Before, the change was taken and Claude Code let the stop through when it
// killed the hook.
func TestStopTimeoutChangeRefused(t *testing.T) {
	env := newEnv(t)
	s := projectSettings(t, env)
	stopEntry(t, s)["timeout"] = 1
	slow := e2e.Text("Still working on it.")
	slow.Delay = 3 * time.Second
	turns := append(settingsEdit(".claude/settings.json", marshal(t, s)),
		e2e.Text("All done. <promise>DONE</promise>"), slow, e2e.Text("Still working."), slow)
	res := run(t, env, e2e.Session{
		Script: e2e.Script{Turns: turns, MaxMain: 40},
		Inputs: []e2e.Input{
			{Prompt: `/ralph-loop "Write done.txt" --max-iterations 20 --check "sleep 3; exit 1"`},
			{Interrupt: true, Wait: func(r *e2e.Result) bool { return len(r.Feedback()) >= 1 }},
			{Prompt: "/cancel-ralph", Wait: e2e.AfterResults(1)},
		},
		Timeout: 4 * time.Minute,
	})
	l := loopOf(t, env, res.SessionID)
	if f := res.Feedback(); len(f) == 0 || !strings.Contains(f[0], "check") {
		t.Errorf("feedback %q: want the promise's stop blocked by its failing check", f)
	}
	if l.Status != "CANCELLED" || l.EndedBy != "user" {
		t.Errorf("loop %s (%s, by %q); want CANCELLED by the user's /cancel-ralph", l.Status, l.EndReason, l.EndedBy)
	}
	refusedChange(t, l, ".claude/settings.json")
}

// A refused change stays on disk, and Claude Code reads every settings file again with any
// change it takes (seen on 2.1.330). So after a refusal, no change is taken while that
// Claude Code runs, even in a later loop: here the agent's disableAllHooks is refused, the
// user ends the loop and arms a new one, and the agent then makes a harmless change to the
// user's settings, which would have brought the refused file in with it. Before, the
// second loop's record held the refused file as it was on disk, the harmless change was
// taken, and the hooks went quiet.
func TestRefusedSettingsStayRefused(t *testing.T) {
	env := newEnv(t)
	slow := e2e.Text("Still working on it.")
	slow.Delay = 3 * time.Second
	turns := append(settingsEdit(".claude/settings.local.json", `{"disableAllHooks": true}`+"\n"), e2e.Text("Not done yet."), slow)
	turns = append(turns, settingsEdit(filepath.Join(env.Home, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(ls)"]}}`+"\n")...)
	turns = append(turns, e2e.Text("Not done yet."), slow, e2e.Text("Still working."), slow)
	res := run(t, env, e2e.Session{
		Script: e2e.Script{Turns: turns, MaxMain: 40},
		Inputs: []e2e.Input{
			{Prompt: `/ralph-loop "Write done.txt" --max-iterations 20`},
			{Interrupt: true, Wait: func(r *e2e.Result) bool { return len(r.Feedback()) >= 1 }},
			{Prompt: "/cancel-ralph", Wait: e2e.AfterResults(1)},
			{Prompt: `/ralph-loop "Write done.txt" --max-iterations 20`, Wait: e2e.AfterResults(2)},
			{Interrupt: true, Wait: func(r *e2e.Result) bool { return len(r.Feedback()) >= 2 }},
			{Prompt: "/cancel-ralph", Wait: e2e.AfterResults(3)},
		},
		Timeout: 4 * time.Minute,
	})
	l := loopOf(t, env, res.SessionID)
	if l.Status != "CANCELLED" || l.EndedBy != "user" {
		t.Errorf("second loop %s (%s, by %q); want CANCELLED by the user's /cancel-ralph", l.Status, l.EndReason, l.EndedBy)
	}
	if f := res.Feedback(); len(f) < 2 || !strings.Contains(f[1], "Your stop was blocked") {
		t.Errorf("feedback %q: want the second loop's stop blocked", f)
	}
	if r := strings.Join(refused(l), "\n"); !strings.Contains(r, "refused before") {
		t.Errorf("second loop's refused events %q: want the user's settings change refused", r)
	}
}
