package opencode

import (
	"path/filepath"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook"
	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// fixture makes the plugin's events from the ones captured under opencode 1.18.33 (the
// plugin that "ralph-loop install --host opencode" writes, in opencode serve), or under Kilo
// 7.7.7 (host Kilo, dir testdata/kilo).
type fixture struct {
	t    *testing.T
	host Host
	dir  string
}

func (f fixture) Host() hook.Host      { return f.host }
func (fixture) Env() map[string]string { return map[string]string{} }

func (f fixture) base(name string, s hosttest.Session, fields map[string]any) []byte {
	fields["sessionID"], fields["directory"] = s.ID, s.Cwd
	dir := f.dir
	if dir == "" {
		dir = "opencode"
	}
	return hosttest.Patch(hosttest.Load(f.t, filepath.Join("../../testdata", dir, name)), fields)
}

func (f fixture) Prompt(s hosttest.Session, text string) []byte {
	return f.base("chat.message.json", s, map[string]any{"prompt": text})
}

// Stop hands over the iteration's messages, as the plugin does.
func (f fixture) Stop(s hosttest.Session, last string) []byte {
	msgs := []any{map[string]any{"id": "msg_1", "role": "assistant", "parts": []any{map[string]any{"text": last, "synthetic": false}}}}
	return f.base("session.idle.no-promise.json", s, map[string]any{"messages": msgs})
}

func (f fixture) ToolUsed(s hosttest.Session, id string) []byte {
	return f.base("tool.execute.after.json", s, map[string]any{"callID": id})
}

func (f fixture) ToolCheck(s hosttest.Session, command string) []byte {
	return f.base("tool.execute.before.json", s, map[string]any{"args.command": command})
}

func (f fixture) SessionEnd(s hosttest.Session) []byte {
	return f.base("session.deleted.json", s, map[string]any{})
}

// Said does nothing: the plugin hands the iteration's text over with the stop.
func (fixture) Said(hosttest.Session, string, string) {}

// Reply reads the plugin's reply. A refused prompt is replaced by a request that the agent
// pass the reason on, which the notice carries too.
func (fixture) Reply(kind hook.Kind, stdout []byte, code int) (hosttest.Reply, error) {
	var r hosttest.Reply
	var out Output
	if ok, err := hosttest.ReadReply(stdout, code, &out); !ok {
		return r, err
	}
	r.Notice, r.Context = out.Notice, out.Append
	switch {
	case out.Continue != "":
		r.Block, r.Reason = true, out.Continue
	case out.Replace != nil:
		r.Block, r.Reason = true, out.Notice
	case out.Deny != "":
		r.Deny = true
	}
	return r, nil
}

func TestConformance(t *testing.T) { hosttest.Run(t, fixture{t: t}) }

func TestKiloConformance(t *testing.T) { hosttest.Run(t, fixture{t: t, host: Kilo, dir: "kilo"}) }
