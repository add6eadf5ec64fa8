package cursor

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes Cursor's payloads from the ones built from its documentation (not
// captured: see testdata/cursor/README.md). Each session's turns have generation ids of
// their own: the agent's messages (afterAgentResponse) and the stop that ends the turn share
// one, and the next turn (the follow-up) has the next.
type fixture struct {
	t   *testing.T
	gen map[string]int // each session's current turn
}

func (fixture) Host() hook.Host        { return Host{} }
func (fixture) Env() map[string]string { return map[string]string{} }

func (f fixture) load(name string) []byte {
	return hosttest.Load(f.t, filepath.Join("../../testdata/cursor", name))
}

func (f fixture) generation(s hosttest.Session) string {
	return fmt.Sprintf("gen-%s-%d", s.ID, f.gen[s.ID])
}

func (f fixture) base(name string, s hosttest.Session, fields map[string]any) []byte {
	fields["conversation_id"], fields["workspace_roots"], fields["generation_id"] = s.ID, []string{s.Cwd}, f.generation(s)
	return hosttest.Patch(f.load(name), fields)
}

func (f fixture) Prompt(s hosttest.Session, text string) []byte {
	return f.base("beforeSubmitPrompt.json", s, map[string]any{"prompt": text})
}

// Stop has no text: the turn's text came in SaidEvent. The next turn is a new generation.
func (f fixture) Stop(s hosttest.Session, _ string) []byte {
	in := f.base("stop.json", s, map[string]any{})
	f.gen[s.ID]++
	return in
}

func (f fixture) ToolUsed(s hosttest.Session, id string) []byte {
	return f.base("postToolUse.json", s, map[string]any{"tool_use_id": id})
}

func (f fixture) ToolCheck(s hosttest.Session, command string) []byte {
	return f.base("preToolUse.json", s, map[string]any{"tool_input.command": command, "cwd": s.Cwd, "tool_input.working_directory": s.Cwd})
}

func (f fixture) SessionEnd(s hosttest.Session) []byte {
	return f.base("sessionEnd.json", s, map[string]any{"session_id": s.ID})
}

// Said writes no transcript: Cursor's stop reads none.
func (fixture) Said(hosttest.Session, string, string) {}

// SaidEvent is the turn's afterAgentResponse.
func (f fixture) SaidEvent(s hosttest.Session, text string) []byte {
	return f.base("afterAgentResponse.json", s, map[string]any{"text": text})
}

// Reply reads stdout: a follow-up continues a stop, continue:false refuses a prompt (with
// its user_message), permission:deny refuses a tool call. Notices go to stderr, which the
// suite does not see.
func (fixture) Reply(kind hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	var r hosttest.Reply
	var out struct {
		Followup   *string `json:"followup_message"`
		Continue   *bool   `json:"continue"`
		Message    string  `json:"user_message"`
		Agent      string  `json:"agent_message"`
		Permission string  `json:"permission"`
	}
	if ok, err := hosttest.ReadReply(stdout, code, &out); !ok {
		return r, err
	}
	switch kind {
	case hook.Stop:
		if out.Followup != nil {
			r.Block, r.Reason = true, *out.Followup
		}
	case hook.Prompt:
		if out.Continue != nil && !*out.Continue {
			r.Block, r.Reason = true, out.Message
		}
	case hook.ToolCheck:
		r.Deny, r.Reason = out.Permission == "deny", out.Agent
	}
	return r, nil
}

func TestConformance(t *testing.T) { hosttest.Run(t, fixture{t: t, gen: map[string]int{}}) }
