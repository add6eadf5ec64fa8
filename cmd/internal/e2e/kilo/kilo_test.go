package kilo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/opencode"
)

// family is Kilo's flavour of opencode's family suite (see opencode.Family): Kilo runs
// the scenarios opencode does, and keeps here only its own.
var family = opencode.Family{Suite: &suite, Flavor: Kilo}

func newWorld(t *testing.T, script Script, scopes ...string) *opencode.World {
	t.Helper()
	return family.World(t, nil, script, scopes...)
}

// 1-4, 7. The family's scenarios (see opencode.Family), on Kilo: 1 BlockedThenPromise; 2
// PromiseWithoutWork, the loop started from the project's plugin (committed, it runs the
// ralph-loop on PATH); 3 IterationLimit, 6 iterations (Kilo has no cap of its own); 4
// Cancel; 7 RunRefusesLoop: "kilo run" exits after an idle unless the plugin's
// continuation starts the next turn in time, which it does not always do (3 runs of 6 here
// lost it).
func TestBlockedThenPromise(t *testing.T) { family.BlockedThenPromise(t) }

func TestPromiseWithoutWork(t *testing.T) {
	family.PromiseWithoutWork(t, `!/ralph-loop "Create x.txt containing hi"`, "path", "project")
}

func TestIterationLimit(t *testing.T) { family.IterationLimit(t, 6) }

func TestCancel(t *testing.T) { family.Cancel(t) }

func TestRunRefusesLoop(t *testing.T) {
	family.RunRefusesLoop(t, "kilo run can exit before the loop's next turn starts")
}

// 5. A session without a loop is left alone: nothing added to the prompt, nothing said, no
// continuation, no state; and its tool calls run no ralph-loop at all (the plugin finds no
// active marker for the session), which a ralph-loop that logs its runs shows.
func TestNoLoopUntouched(t *testing.T) {
	e := family.Env(t)
	counted := filepath.Join(e.Bin, "counted-ralph-loop")
	runs := filepath.Join(e.Tmp, "runs.log")
	if err := e2e.WriteProgram(counted, []byte("#!/bin/sh\necho \"$*\" >> '"+runs+"'\nexec '"+suite.RalphLoop+"' \"$@\"\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.RalphLoopCmd(context.Background(), "install", "--host", "kilo", "--binary", counted); err != nil {
		t.Fatal(err)
	}
	os.Remove(runs) // install ran it too
	w := opencode.Serve(t, e, Script{Turns: []Turn{
		Shell("", "echo hi > x.txt"), Shell("", "echo there >> x.txt"), Shell("", "cat x.txt"),
		Text("Done: x.txt. <promise>DONE</promise>"),
	}})
	w.Start(t, "Create x.txt containing hi", opencode.Always)
	if n := len(w.Srv.Fake.MainRequests()); n != 4 {
		t.Errorf("%d agent requests, want 4", n)
	}
	// Kilo adds its <environment_details> to the prompt; ralph-loop adds nothing.
	if got := e2e.LastUser(t, w.Srv.Fake, 0); !strings.HasPrefix(got, "Create x.txt containing hi\n") || strings.Contains(got, "ralph-loop") {
		t.Errorf("the prompt reached the model as %q", got)
	}
	if s := w.Toasts(); s != "" {
		t.Errorf("ralph-loop spoke: %s", s)
	}
	w.NoErrors(t)
	if loops, err := e.Status(context.Background()); err != nil || len(loops) != 0 {
		t.Errorf("loops %+v, %v; want none", loops, err)
	}
	b, _ := os.ReadFile(runs)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	sort.Strings(lines)
	t.Logf("ralph-loop ran %d times for 3 tool calls: %q", len(lines), lines)
	// One to learn where the markers are, one for the prompt, one for the idle: none for the
	// three tool calls (six runs before).
	if want := []string{"hook --host kilo", "hook --host kilo", "hook --host kilo --active-dir"}; strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("ralph-loop ran %q, want %q", lines, want)
	}
}

// 6. The guard on Kilo's file tools: the agent's write into ralph-loop's state directory is
// denied (the tool's result says why), nothing is written, and the loop goes on.
func TestGuardWrite(t *testing.T) {
	w := newWorld(t, Script{}, "user")
	planted := e2e.Planted(w.State)
	w.Srv.Fake.SetScript(Script{Turns: []Turn{
		fakechat.Tool("Writing.", "write", map[string]any{"filePath": planted, "content": "{}"}),
		Text("Done."),
	}, WhenDone: Text("Working."), MaxMain: 3})
	w.Start(t, `!/ralph-loop "Keep the notes" --max-iterations 5`, w.Failed)
	w.Expect(t, e2e.OnlyLoop(t, w.Env), "ACTIVE", 3, 0)
	e2e.Denied(t, w.Srv.Fake, planted, "the write", "ralph-loop", "denied")
}

// 9. "kilo run --attach" to a running "kilo serve" leaves the loop to the server, whose
// plugin goes on after run has exited: a headless loop that ends with the promise.
func TestRunAttachLoops(t *testing.T) {
	w := newWorld(t, e2e.Done(Shell), "user")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.Opencode, "run", "--attach", w.Srv.URL, "--dir", w.Project, "--command", "ralph-loop", "Create x.txt containing hi")
	cmd.Dir = w.Project
	cmd.Env = w.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kilo run --attach: %v\n%s", err, out)
	}
	for !w.Ended() {
		if ctx.Err() != nil {
			t.Fatalf("the loop did not end: %+v", e2e.OnlyLoop(t, w.Env))
		}
		time.Sleep(200 * time.Millisecond)
	}
	w.Expect(t, e2e.OnlyLoop(t, w.Env), "PROMISE_ACCEPTED", 2, 1)
	e2e.ReadFile(t, filepath.Join(w.Project, "x.txt"), "hi\n")
}

// TestHookTime is make bench's figure for Kilo Code (see opencode.Family.HookTime).
func TestHookTime(t *testing.T) { family.HookTime(t) }
