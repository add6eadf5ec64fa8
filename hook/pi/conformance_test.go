package pi

import (
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes the extension's events from the ones captured under pi 0.73.1 (the
// extension that "ralph-loop install --host pi" writes, in pi --mode rpc).
type fixture struct{ hosttest.Payloads }

// events are the payloads the fixture makes its events from.
var events = map[hook.Kind]hosttest.Event{
	hook.ToolUsed:   {File: "tool_result.json", Field: "callID"},
	hook.ToolCheck:  {File: "tool_call.json", Field: "args.command"},
	hook.SessionEnd: {File: "session_shutdown.json"},
}

// Prompt runs a loop command as the extension's command does; other text is the user's
// input.
func (f fixture) Prompt(s hosttest.Session, text string) []byte {
	if strings.HasPrefix(text, "/") {
		return f.Base("command.json", s, map[string]any{"prompt": text})
	}
	return f.Base("input.busy.json", s, map[string]any{"prompt": text, "busy": false})
}

// Stop hands over the run's messages, as the extension does at agent_end.
func (f fixture) Stop(s hosttest.Session, last string) []byte {
	msgs := []any{map[string]any{"role": "assistant", "stopReason": "stop", "model": "fake-model",
		"content": []any{map[string]any{"type": "text", "text": last}}}}
	return f.Base("agent_end.no-promise.json", s, map[string]any{"messages": msgs})
}

// Said does nothing: the extension hands the run's text over with the stop.
func (fixture) Said(hosttest.Session, string, string) {}

// Reply reads the extension's reply. A refused prompt (or a command's answer) is dropped
// and shown to the user.
func (fixture) Reply(_ hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	return hosttest.ReplyFrom(stdout, code, func(out Output) hosttest.Reply {
		return hosttest.ShimReply(out.Notice, out.Send, out.Continue, out.Refuse, out.Deny != "")
	})
}

func TestConformance(t *testing.T) {
	hosttest.Run(t, fixture{hosttest.Payloads{T: t, Adapter: Host{}, Dir: "pi", Session: [3]string{"sessionID", "directory", ""}, Events: events}})
}
