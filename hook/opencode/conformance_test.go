package opencode

import (
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes the plugin's events from the ones captured under opencode 1.18.33 (the
// plugin that "ralph-loop install --host opencode" writes, in opencode serve), or under Kilo
// 7.7.7 (host Kilo, dir testdata/kilo).
type fixture struct{ hosttest.Payloads }

func newFixture(t *testing.T, host Host, dir string) fixture {
	return fixture{hosttest.Payloads{T: t, Adapter: host, Dir: dir, Session: [3]string{"sessionID", "directory", ""}, Events: events}}
}

// events are the payloads the fixture makes its events from.
var events = map[hook.Kind]hosttest.Event{
	hook.Prompt:     {File: "chat.message.json", Field: "prompt"},
	hook.ToolUsed:   {File: "tool.execute.after.json", Field: "callID"},
	hook.ToolCheck:  {File: "tool.execute.before.json", Field: "args.command"},
	hook.SessionEnd: {File: "session.deleted.json"},
}

// Stop hands over the iteration's messages, as the plugin does.
func (f fixture) Stop(s hosttest.Session, last string) []byte {
	msgs := []any{map[string]any{"id": "msg_1", "role": "assistant", "parts": []any{map[string]any{"text": last, "synthetic": false}}}}
	return f.Base("session.idle.no-promise.json", s, map[string]any{"messages": msgs})
}

// Said does nothing: the plugin hands the iteration's text over with the stop.
func (fixture) Said(hosttest.Session, string, string) {}

// Reply reads the plugin's reply. A refused prompt is replaced by a request that the agent
// pass the reason on, which the notice carries too.
func (fixture) Reply(_ hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	return hosttest.ReplyFrom(stdout, code, func(out Output) hosttest.Reply {
		var refused string
		if out.Replace != nil {
			refused = out.Notice
		}
		return hosttest.ShimReply(out.Notice, out.Append, out.Continue, refused, out.Deny != "")
	})
}

func TestConformance(t *testing.T) { hosttest.Run(t, newFixture(t, Host{}, "opencode")) }

func TestKiloConformance(t *testing.T) { hosttest.Run(t, newFixture(t, Kilo, "kilo")) }
