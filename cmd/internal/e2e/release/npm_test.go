package release

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/inject"
)

// npmWorld is a fresh npm prefix and home, with a PATH of the prefix's bin and node's
// directory only: no Go.
type npmWorld struct {
	reg    *registry
	root   string
	prefix string
	env    []string
	path   string
}

func newNPMWorld(t *testing.T, root string) *npmWorld {
	t.Helper()
	stand := map[string]map[string]any{}
	for _, p := range [][2]string{{"linux", "x64"}, {"linux", "arm64"}, {"darwin", "x64"}, {"darwin", "arm64"}, {"win32", "x64"}, {"win32", "arm64"}} {
		name := inject.NPMPackage + "-" + p[0] + "-" + p[1]
		stand[name] = map[string]any{"name": name, "version": version, "os": []string{p[0]}, "cpu": []string{p[1]}}
	}
	w := &npmWorld{reg: startRegistry(t, filepath.Join(repo, "dist", "npm"), stand), root: root, prefix: filepath.Join(root, "prefix")}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal(err)
	}
	nodeDir := filepath.Dir(node)
	w.path = filepath.Join(w.prefix, "bin") + string(os.PathListSeparator) + nodeDir + string(os.PathListSeparator) + "/bin"
	for _, dir := range filepath.SplitList(w.path) {
		if _, err := os.Stat(filepath.Join(dir, "go")); err == nil {
			t.Skipf("go is in %s, beside node: no PATH with node and without Go here", dir)
		}
	}
	w.env = []string{
		"PATH=" + w.path, "HOME=" + filepath.Join(root, "home"), "TMPDIR=" + os.TempDir(),
		"npm_config_registry=" + w.reg.URL + "/", "npm_config_prefix=" + w.prefix,
		"npm_config_cache=" + filepath.Join(root, "npm-cache"), "npm_config_userconfig=" + filepath.Join(root, "npmrc"),
		"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false",
		"XDG_STATE_HOME=" + filepath.Join(root, "state"), "XDG_DATA_HOME=" + filepath.Join(root, "data"),
	}
	os.MkdirAll(filepath.Join(root, "home"), 0o755)
	return w
}

// run runs a command (looked up on the world's PATH) in dir.
func (w *npmWorld) run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out, err := w.try(dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func (w *npmWorld) try(dir, name string, args ...string) (string, error) {
	path := name
	for _, d := range filepath.SplitList(w.path) {
		if _, err := os.Stat(filepath.Join(d, name)); err == nil {
			path = filepath.Join(d, name)
			break
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = w.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// noWarning fails t if out, what a command printed, has anything that reads as something
// gone wrong: an npm warning or error (npm 11 prints "npm warn ..."), a deprecation.
func noWarning(t *testing.T, what, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if low := strings.ToLower(line); strings.HasPrefix(low, "npm warn") || strings.HasPrefix(low, "npm err") || strings.Contains(low, "deprecated") {
			t.Errorf("%s printed %q:\n%s", what, line, out)
		}
	}
}

// The user's way: npm install -g @ralph-loop/cli puts the native binary itself on PATH;
// ralph-loop install --host claude from it, then the demo's loop runs through the real Claude
// Code with nothing but what npm installed; after npm rm -g, a session with the hooks left
// behind shows no hook error, and says once that ralph-loop is gone and how to get it.
func TestNPMInstall(t *testing.T) {
	need(t)
	root := t.TempDir()
	w := newNPMWorld(t, root)
	noWarning(t, "npm install -g", w.run(t, root, "npm", "install", "-g", inject.NPMPackage))

	onPath := filepath.Join(w.prefix, "bin", "ralph-loop")
	real, err := filepath.EvalSymlinks(onPath)
	if err != nil {
		t.Fatal(err)
	}
	// Its first run makes it a script the system runs with the native binary.
	w.run(t, root, "ralph-loop", "version")
	w.runsNative(t, real)
	if got := strings.TrimSpace(w.run(t, root, "ralph-loop", "version", "--short")); got != version {
		t.Errorf("ralph-loop version --short: %q, want %q", got, version)
	}
	// And the dashboard of "ralph-loop watch" beside the native binary, where watch looks
	// for it.
	dash := exec.Command(filepath.Join(filepath.Dir(w.runsNative(t, real)), inject.DashboardProgram))
	if out, err := dash.CombinedOutput(); dash.ProcessState == nil || dash.ProcessState.ExitCode() != 2 ||
		!strings.Contains(string(out), inject.DashboardAlone) {
		t.Errorf("the dashboard beside the native ralph-loop, run alone: %v %s", err, out)
	}

	env, err := e2e.NewEnv(filepath.Join(root, "claude"), claudeBin, onPath)
	if err != nil {
		t.Fatal(err)
	}
	w.env = append(w.env, "HOME="+env.Home, "XDG_STATE_HOME="+env.State)
	out := w.run(t, env.Project, "ralph-loop", "install", "--host", "claude")
	// The hooks run npm's link on PATH, not the package's file it points to: an upgrade
	// (npm install -g again) replaces the package's directory, and the link stays.
	e2e.Contains(t, "ralph-loop install", out, "hooks run: "+onPath+" hook --host claude")
	pathEnv := []string{"PATH=" + w.path}

	res, err := env.Run(context.Background(), e2e.Session{Script: e2e.DemoScript, Prompts: []string{e2e.DemoPrompt}, Env: pathEnv})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("claude exit %d: %s", res.ExitCode, res.Stderr)
	}
	loops, err := e2e.DecodeStatus(w.run(t, env.Project, "ralph-loop", "status", "--session", res.SessionID, "--json"))
	if err != nil || len(loops) != 1 {
		t.Fatalf("status: %v %v", loops, err)
	}
	if l := loops[0]; l.Status != "PROMISE_ACCEPTED" || l.Iteration != 3 || l.ToolCalls != 2 {
		t.Errorf("loop %s at iteration %d with %d tool calls; want PROMISE_ACCEPTED at 3 with 2", l.Status, l.Iteration, l.ToolCalls)
	}
	if b, _ := os.ReadFile(filepath.Join(env.Project, "hello.txt")); string(b) != "hello, world\n" {
		t.Errorf("hello.txt: %q", b)
	}

	w.run(t, root, "npm", "rm", "-g", inject.NPMPackage)
	if _, err := os.Lstat(onPath); !os.IsNotExist(err) {
		t.Fatalf("npm rm -g left %s: %v", onPath, err)
	}
	res, err = env.Run(context.Background(), e2e.Session{
		Script: e2e.Script{Turns: []e2e.Turn{
			e2e.Bash("I'll create the file.", "echo hi > x.txt"),
			e2e.Text("Done: x.txt is written."),
		}},
		Prompts: []string{`/ralph-loop "Create x.txt containing hi" --max-iterations 5`},
		Env:     pathEnv,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Errorf("claude exit %d after npm rm -g: %s", res.ExitCode, res.Stderr)
	}
	told := 0
	for _, n := range res.Notices() {
		low := strings.ToLower(n)
		if strings.Contains(low, "which is gone") {
			told++
			e2e.Contains(t, "the notice", n, "npm install -g "+inject.NPMPackage, "npx "+inject.NPMPackage+" uninstall")
			continue
		}
		if strings.Contains(low, "error") || strings.Contains(low, "not found") || strings.Contains(low, "failed") || strings.Contains(low, "block") ||
			strings.Contains(low, "no usable answer") {
			t.Errorf("a hook failed or blocked after npm rm -g: %q", n)
		}
	}
	for _, bad := range []string{"not found", "hook error", "ralph-loop: error"} {
		if strings.Contains(res.Stderr, bad) {
			t.Errorf("stderr has %q:\n%s", bad, res.Stderr)
		}
	}
	if told == 0 {
		t.Errorf("the user was not told that ralph-loop is gone; notices: %q", res.Notices())
	}
	if f := res.Feedback(); len(f) != 0 {
		t.Errorf("a stop was blocked after npm rm -g: %q", f)
	}
}

// The package has no install script (npm 11 warns of every package with one): right after
// npm install -g (scripts off or not) the command on PATH is a node launcher; its first run
// passes on the native binary's output and exit code, and puts the binary in its place.
func TestNPMLauncher(t *testing.T) {
	need(t)
	root := t.TempDir()
	w := newNPMWorld(t, root)
	w.run(t, root, "npm", "install", "-g", "--ignore-scripts", inject.NPMPackage)
	onPath := filepath.Join(w.prefix, "bin", "ralph-loop")
	b, err := os.ReadFile(onPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "#!/usr/bin/env node") {
		t.Errorf("after npm install -g, the command on PATH is not the launcher: %q", b[:min(len(b), 20)])
	}
	out, err := w.try(root, "ralph-loop", "nosuchcommand")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(out, `unknown command "nosuchcommand"`) {
		t.Errorf("the launcher does not pass on the exit code and output: %v\n%s", err, out)
	}
	w.runsNative(t, onPath)
	if got := strings.TrimSpace(w.run(t, root, "ralph-loop", "version", "--short")); got != version {
		t.Errorf("ralph-loop version --short: %q, want %q", got, version)
	}
}

// runsNative checks that the command at path is run by the system with this platform's
// native binary, which npm installed: "#!<binary> --npm-shebang"; it returns the binary.
func (w *npmWorld) runsNative(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	interp, ok := strings.CutSuffix(strings.TrimPrefix(line, "#!"), " "+inject.NPMShebang)
	if !ok || !strings.HasPrefix(line, "#!") || !strings.HasPrefix(interp, filepath.Join(w.prefix, "lib", "node_modules", inject.NPMPackage)+"/") {
		t.Errorf("the command on PATH (%s) is not run with the native binary npm installed: it starts %q", path, b[:min(len(b), 200)])
		return ""
	}
	if head, err := os.ReadFile(interp); err != nil || !bytes.HasPrefix(head, []byte("\x7fELF")) {
		t.Errorf("%s, which runs the command on PATH, is not a native binary: %v", interp, err)
	}
	return interp
}

// Twenty ralph-loops started together right after npm install -g, and again right after npm
// installs it again over itself (an upgrade's files), all answer as the native binary
// does: the launcher never puts in its place a file node cannot run (issue 36: a node
// SyntaxError, 5 of 5 at a 20 ms gap, a Stop hook of an active loop among them).
func TestNPMStartedTogether(t *testing.T) {
	need(t)
	root := t.TempDir()
	w := newNPMWorld(t, root)
	onPath := filepath.Join(w.prefix, "bin", "ralph-loop")
	for _, install := range [][]string{{"install", "-g", inject.NPMPackage}, {"install", "-g", "--force", inject.NPMPackage}} {
		w.run(t, root, "npm", install...)
		if b, _ := os.ReadFile(onPath); !strings.HasPrefix(string(b), "#!/usr/bin/env node") {
			t.Fatalf("after npm %s, the command on PATH is not the launcher: %q", strings.Join(install, " "), b[:min(len(b), 40)])
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		outs := make([]string, 20)
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				out, err := w.try(root, "ralph-loop", "version", "--short")
				outs[i] = strings.TrimSpace(out)
				if err != nil {
					outs[i] += " (" + err.Error() + ")"
				}
			}()
		}
		close(start)
		wg.Wait()
		failed := 0
		for i, got := range outs {
			if got != version {
				if failed++; failed <= 3 {
					t.Errorf("after npm %s: process %d of 20 printed %q", strings.Join(install, " "), i, got[:min(len(got), 300)])
				}
			}
		}
		if failed > 0 {
			t.Errorf("after npm %s: %d of 20 processes did not answer as the native binary", strings.Join(install, " "), failed)
		}
		w.runsNative(t, onPath)
	}
}

// The one-line install: npx @ralph-loop/cli install runs a copy from npx's cache, which npm
// may remove at any time; it installs the package with npm install -g and writes hooks that
// run the ralph-loop that put on PATH, never the npx copy.
func TestNPXInstall(t *testing.T) {
	need(t)
	root := t.TempDir()
	w := newNPMWorld(t, root)
	out := w.run(t, root, "npx", "--yes", inject.NPMPackage, "install", "--host", "claude")
	noWarning(t, "npx "+inject.NPMPackage+" install", out)
	real, err := filepath.EvalSymlinks(filepath.Join(w.prefix, "bin", "ralph-loop"))
	if err != nil {
		t.Fatalf("npx %s install put no ralph-loop on PATH: %v\n%s", inject.NPMPackage, err, out)
	}
	e2e.Contains(t, "npx "+inject.NPMPackage+" install", out, "hooks run: "+real+" hook --host claude")
	settings, err := os.ReadFile(filepath.Join(root, "home", ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The hook line names the binary it runs first: "b=PATH e=EVENT …; … exec \"$b\" hook --host claude; … # ralph-loop hook".
	if strings.Contains(string(settings), "_npx") || !strings.Contains(string(settings), "b="+real+" ") ||
		!strings.Contains(string(settings), `exec \"$b\" hook --host claude;`) {
		t.Errorf("the hooks do not run the installed ralph-loop (%s):\n%s", real, settings)
	}
	if got := strings.TrimSpace(w.run(t, root, "ralph-loop", "version", "--short")); got != version {
		t.Errorf("ralph-loop version --short: %q, want %q", got, version)
	}
}
