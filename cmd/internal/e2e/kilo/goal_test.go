package kilo

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// Kilo's own /goal keeps the agent going too (after each turn that made progress it starts
// another, until the agent reports the goal done): a loop armed beside it would push the
// agent twice. Kilo pauses its goal for any message or command that comes, /ralph-loop too,
// before the plugin sees the command (seen: the session's metadata, where /goal keeps the
// goal, says paused by then, even in the pause between two goal turns); /goal resume would
// set it going again beside the loop. The arming notice says so, with how to clear it. A
// session without a goal is told nothing.
func TestGoal(t *testing.T) {
	// Three answers for the loop of the session without a goal, then the goal's first turn.
	w := newWorld(t, Script{Turns: []Turn{Text("Not yet."), Text("Not yet."), Text("Not yet."),
		Shell("Working on the goal.", "echo 1 >> log.txt"), Text("Step 1 done.")}, WhenDone: Text("Working.")}, "user")
	ctx := context.Background()

	// A session without a goal: nothing said of one.
	plain, err := w.Srv.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.Srv.Command(ctx, plain, "ralph-loop", `"Create y.txt" --max-iterations 3`)
	e2e.WaitLoop(t, w.Env, "ended", func(l e2e.Loop) bool { return l.Status != "ACTIVE" })
	if toasts := w.Toasts(); !strings.Contains(toasts, "loop armed") || strings.Contains(toasts, "goal") {
		t.Errorf("the toasts of a session without a goal: %s", toasts)
	}

	// The plugin shows one toast at a time, for 4 s and a quarter more, and of those that come
	// meanwhile only the latest: the first loop's last one (the iteration limit's) waits out
	// the arming toast, so let it be shown and go before the second loop's note comes (a
	// fixed sleep from the loop's end was too short when the loop ended early in its
	// arming toast's time).
	var last time.Time
	if !e2e.Until(30*time.Second, func() bool {
		for _, ev := range w.Srv.Events() {
			if ev.Type == "tui.toast.show" && strings.Contains(string(ev.Properties), "iteration limit reached") {
				last = ev.At
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the first loop's end was not shown; the toasts: %s", w.Toasts())
	}
	time.Sleep(time.Until(last.Add(5 * time.Second)))

	id, err := w.Srv.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.Srv.Command(ctx, id, "goal", "Create x.txt containing hi")
	// The goal's first turn ends (a command-executed event named goal said it was set): the
	// session is idle, the goal active, its next turn 5 s away.
	if !e2e.Until(60*time.Second, func() bool {
		set, busy := false, false
		for _, ev := range w.Srv.Events() {
			var p struct {
				Name      string
				SessionID string
				Status    struct{ Type string }
			}
			json.Unmarshal(ev.Properties, &p)
			switch {
			case p.SessionID != id:
			case ev.Type == "command.executed" && p.Name == "goal":
				set = true
			case ev.Type == "session.status" && p.Status.Type == "busy":
				busy = set
			case ev.Type == "session.status" && p.Status.Type == "idle" && busy:
				return true
			}
		}
		return false
	}) {
		t.Fatal("the goal's first turn did not end")
	}
	w.Srv.Command(ctx, id, "ralph-loop", `"Create x.txt containing hi" --max-iterations 3`)
	w.Saw(t, `Note: this session also has Kilo Code's own goal ("Create x.txt containing hi"), paused: /goal resume would set it going beside this loop`,
		"Clear it with /goal clear, or end this loop first with /cancel-ralph")
}
