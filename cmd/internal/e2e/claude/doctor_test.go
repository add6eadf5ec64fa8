package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// doctor runs "ralph-loop doctor" in the project, as the user would in a terminal there
// (claude on PATH, the environment given), and returns its output and exit code.
func doctor(t *testing.T, env *e2e.Env, extra ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(env.RalphLoop, "doctor")
	cmd.Dir = env.Project
	path := "PATH=" + filepath.Dir(env.Claude) + string(os.PathListSeparator) + filepath.Dir(env.RalphLoop) + string(os.PathListSeparator) + os.Getenv("PATH")
	cmd.Env = env.Environ("", append([]string{path, "NO_COLOR=1"}, extra...))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	case err != nil:
		t.Fatalf("ralph-loop doctor: %v: %s", err, out.String())
	}
	return out.String(), 0
}

var capLine = regexp.MustCompile(`block cap: the host ends a turn after (\d+) stop blocks in a row`)

// What doctor says of Claude Code's block cap is what Claude Code does: with the cap that
// install sets in the settings' env (not in doctor's own environment), with another value
// there, and with the variable also in the environment Claude Code starts in.
func TestDoctorBlockCap(t *testing.T) {
	for _, c := range []struct {
		name     string
		settings string // the project settings' env value ("": as installed)
		local    string // the local settings' ("": none)
		process  string // CLAUDE_CODE_STOP_HOOK_BLOCK_CAP where claude starts ("": unset)
	}{
		{name: "as installed"},
		{name: "settings 3", settings: "3"},
		{name: "settings 3, environment 5", settings: "3", process: "5"},
		{name: "settings 3, local settings 4", settings: "3", local: "4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := newEnv(t)
			if c.settings != "" {
				setSettingsEnv(t, filepath.Join(env.Project, ".claude", "settings.json"), c.settings)
			}
			if c.local != "" {
				local := filepath.Join(env.Project, ".claude", "settings.local.json")
				os.WriteFile(local, []byte("{}"), 0o644)
				setSettingsEnv(t, local, c.local)
			}
			var extra []string
			if c.process != "" {
				extra = append(extra, "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP="+c.process)
			}
			out, _ := doctor(t, env, extra...)
			m := capLine.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("doctor names no block cap:\n%s", out)
			}
			said, _ := strconv.Atoi(m[1])
			const max = 10
			res := run(t, env, e2e.Session{
				Script:  e2e.Script{WhenDone: e2e.Text("Still thinking, not done.")},
				Prompts: []string{`/ralph-loop "Think it through" --max-iterations ` + strconv.Itoa(max) + ` --min-tool-calls 0 --max-stalls 0`},
				Env:     extra,
			})
			blocks := len(res.Feedback())
			// Claude Code lets cap blocks through, then ends the turn; the loop's own limit
			// lets max-1 through.
			want := min(said, max-1)
			if blocks != want {
				t.Errorf("doctor says the cap is %d, so %d blocks; Claude Code let %d through\ndoctor:\n%s", said, want, blocks, out)
			}
		})
	}
}

// setSettingsEnv sets CLAUDE_CODE_STOP_HOOK_BLOCK_CAP in a settings file's env.
func setSettingsEnv(t *testing.T, path, value string) {
	t.Helper()
	m := readJSON(t, path)
	m["env"] = map[string]any{"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": value}
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// After "claude plugin install" (and no ralph-loop install), doctor finds the plugin's
// hooks and says what they run: not "none found", not a problem.
func pluginDoctor(t *testing.T, env *e2e.Env) {
	out, code := doctor(t, env)
	e2e.Contains(t, "doctor", out, "hooks: the plugin ralph-loop@ralph-loop", "run the ralph-loop on PATH, "+env.RalphLoop)
	if strings.Contains(out, "none found") || strings.Contains(out, "installed for no host") || code != 0 {
		t.Errorf("doctor, exit %d, does not see the plugin:\n%s", code, out)
	}
}
