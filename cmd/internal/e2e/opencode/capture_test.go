package opencode

import (
	"context"
	"os"
	"testing"
)

func TestCaptureTmp(t *testing.T) {
	suite.Need(t)
	os.Setenv("RL_REAL", ralphBin)
	e, _ := NewEnv(t.TempDir(), opencodeBin, ralphBin)
	if _, err := e.RalphLoopCmd(context.Background(), "install", "--host", "opencode", "--binary", "/tmp/rlwrap.sh"); err != nil {
		t.Fatal(err)
	}
	srv, err := e.Serve(context.Background(), Script{Turns: []Turn{
		Text("I'm done."),
		Shell("Let me actually do it.", "echo hi > x.txt"),
		Shell("Let me end this loop.", "ralph-loop cancel --all"),
		Text("x.txt is written. <promise>DONE</promise>"),
		Text("Plain answer."),
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	w := &world{Env: e, srv: srv}
	id := w.start(t, `!/ralph-loop "Create x.txt containing hi" --max-iterations 5`, w.ended)
	w.send(t, id, "thanks, now something else", always)
	w.send(t, id, "!/cancel-ralph ", always)
	srv.request(context.Background(), "DELETE", "/session/"+id, nil, nil)
	w.start(t, "/ralph-loop Typed task --max-iterations 2", always)
	_ = id
}
