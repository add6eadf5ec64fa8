package state

import "github.com/ralph-loop/ralph-loop/spend"

// The lists of fields of the types the state files hold (see json.go), each in the order of
// the struct's fields, with the name and the option of its json tag. A field added to one of
// these types is added here too; json_test.go fails until it is.

func (l *Loop) jsonFields(fs *fields) {
	fs.add("version", (*jsonInt)(&l.Version), always)
	fs.add("loop_id", (*jsonString)(&l.LoopID), always)
	fs.add("session_id", (*jsonString)(&l.SessionID), always)
	fs.add("host", (*jsonString)(&l.Host), always)
	fs.add("cwd", (*jsonString)(&l.Cwd), always)
	fs.add("armed_by", (*jsonString)(&l.ArmedBy), always)
	fs.add("resumes", (*jsonString)(&l.Resumes), omitEmpty)
	l.Config.jsonFields(fs)
	fs.add("status", (*jsonString)(&l.Status), always)
	fs.add("iteration", (*jsonInt)(&l.Iteration), always)
	fs.add("tool_calls", (*jsonInt)(&l.ToolCalls), always)
	fs.add("task_file", (*jsonString)(&l.TaskFile), omitEmpty)
	fs.add("started_at", (*jsonTime)(&l.StartedAt), always)
	fs.add("updated_at", (*jsonTime)(&l.UpdatedAt), always)
	fs.add("ended_at", jsonTimePtr{&l.EndedAt}, omitEmpty)
	fs.add("end_reason", (*jsonString)(&l.EndReason), omitEmpty)
	fs.add("ended_by", (*jsonString)(&l.EndedBy), omitEmpty)
	fs.add("told", (*jsonBool)(&l.Told), omitEmpty)
	fs.add("warnings", (*jsonStrings)(&l.Warnings), omitEmpty)
	fs.add("unverified", (*jsonString)(&l.Unverified), omitEmpty)
	fs.add("spent", objectOf((*spentJSON)(&l.Spent)), omitZero)
	fs.add("ledger", objectOf((*ledgerJSON)(&l.Ledger)), omitZero)
	fs.add("transcript", objectOf(&l.Transcript), always)
	fs.add("tools_offset", (*jsonInt64)(&l.ToolsOffset), always)
	fs.add("window_start", (*jsonTime)(&l.WindowStart), always)
	fs.add("tool_ids", (*jsonStrings)(&l.ToolIDs), omitEmpty)
	fs.add("missed", (*jsonString)(&l.Missed), omitEmpty)
	fs.add("recorded", (*jsonBool)(&l.Recorded), omitEmpty)
	fs.add("unshown", (*jsonStrings)(&l.Unshown), omitEmpty)
	fs.add("unlogged", (*jsonStrings)(&l.Unlogged), omitEmpty)
	fs.add("blocks_since_tool", (*jsonInt)(&l.BlocksSinceTool), always)
	fs.add("blocks_in_turn", (*jsonInt)(&l.BlocksInTurn), omitEmpty)
	fs.add("yielded", (*jsonBool)(&l.Yielded), omitEmpty)
	fs.add("await_cancel", (*jsonBool)(&l.AwaitCancel), omitEmpty)
	fs.add("turn", (*jsonString)(&l.Turn), omitEmpty)
	fs.add("last_key", (*jsonString)(&l.LastKey), omitEmpty)
	fs.add("last_key_at", (*jsonTime)(&l.LastKeyAt), omitZero)
	fs.add("last_action", (*jsonString)(&l.LastAction), always)
	fs.add("last_seen_at", (*jsonTime)(&l.LastSeenAt), always)
	fs.add("owner", ptr[Owner]{&l.Owner, func(o *Owner) fielder { return o }}, omitEmpty)
	fs.add("pending", slice[Pending]{&l.Pending, func(p *Pending) fielder { return p }}, omitEmpty)
	fs.add("seq", (*jsonUint64)(&l.Seq), omitEmpty)
	fs.add("settings", slice[Setting]{&l.Settings, func(s *Setting) fielder { return s }}, omitEmpty)
	fs.add("settings_refused", (*jsonStrings)(&l.SettingsRefused), omitEmpty)
	fs.add("sandbox", (*jsonString)(&l.Sandbox), omitEmpty)
	fs.add("sandbox_roots", ptr[SandboxRoots]{&l.SandboxRoots, func(r *SandboxRoots) fielder { return r }}, omitEmpty)
	fs.add("hook_binaries", ptr[HookBinaries]{&l.HookBinaries, func(h *HookBinaries) fielder { return h }}, omitEmpty)
	fs.add("pause", ptr[Pause]{&l.Pause, func(p *Pause) fielder { return p }}, omitEmpty)
	fs.add("work", objectOf(&l.Work), omitZero)
	fs.add("background", slice[Task]{&l.Background, func(t *Task) fielder { return t }}, omitEmpty)
	fs.add("wait_since", (*jsonTime)(&l.WaitSince), omitZero)
}

func (t *Task) jsonFields(fs *fields) {
	fs.add("id", (*jsonString)(&t.ID), always)
	fs.add("kind", (*jsonString)(&t.Kind), omitEmpty)
	fs.add("name", (*jsonString)(&t.Name), omitEmpty)
	fs.add("command", (*jsonString)(&t.Command), omitEmpty)
	fs.add("since", (*jsonTime)(&t.Since), omitZero)
}

func (c *Config) jsonFields(fs *fields) {
	fs.add("task", (*jsonString)(&c.Task), always)
	fs.add("mode", (*jsonString)(&c.Mode), always)
	fs.add("max_iterations", (*jsonInt)(&c.MaxIterations), always)
	fs.add("completion_promise", (*jsonString)(&c.CompletionPromise), always)
	fs.add("promise_match", (*jsonString)(&c.PromiseMatch), omitEmpty)
	fs.add("min_tool_calls", (*jsonInt)(&c.MinToolCalls), always)
	fs.add("on_promise_no_work", (*jsonString)(&c.OnPromiseNoWork), always)
	fs.add("max_time", &c.MaxTime, omitEmpty)
	fs.add("max_tokens", (*jsonInt64)(&c.MaxTokens), omitEmpty)
	fs.add("max_cost", (*jsonFloat)(&c.MaxCost), omitEmpty)
	fs.add("prices", structMap[spend.Price]{&c.Prices, func(p *spend.Price) fielder { return (*priceJSON)(p) }}, omitEmpty)
	fs.add("unpriced", (*jsonString)(&c.Unpriced), omitEmpty)
	fs.add("checks", (*jsonStrings)(&c.Checks), omitEmpty)
	fs.add("check_timeout", &c.CheckTimeout, always)
	fs.add("check_output_chars", (*jsonInt)(&c.CheckOutputChars), always)
	fs.add("check_hint", (*jsonString)(&c.CheckHint), omitEmpty)
	fs.add("task_from", (*jsonString)(&c.TaskFrom), omitEmpty)
	fs.add("min_iterations", (*jsonInt)(&c.MinIterations), omitEmpty)
	fs.add("max_stalls", (*jsonInt)(&c.MaxStalls), omitEmpty)
	fs.add("max_wait", &c.MaxWait, omitEmpty)
	fs.add("checkpoint", (*jsonBool)(&c.Checkpoint), omitEmpty)
	fs.add("notify", (*jsonBool)(&c.Notify), omitEmpty)
	fs.add("sources", (*jsonStrMap)(&c.Sources), omitEmpty)
}

func (r *SandboxRoots) jsonFields(fs *fields) {
	fs.add("writable", (*jsonStrings)(&r.Writable), omitEmpty)
	fs.add("read_only", (*jsonStrings)(&r.ReadOnly), omitEmpty)
}

func (h *HookBinaries) jsonFields(fs *fields) {
	fs.add("stamp", (*jsonString)(&h.Stamp), always)
	fs.add("paths", (*jsonStrings)(&h.Paths), omitEmpty)
}

func (p *Pause) jsonFields(fs *fields) {
	fs.add("at", (*jsonTime)(&p.At), always)
	fs.add("error", (*jsonString)(&p.Error), omitEmpty)
	fs.add("why", (*jsonString)(&p.Why), always)
	fs.add("until", jsonTimePtr{&p.Until}, omitEmpty)
}

func (w *Work) jsonFields(fs *fields) {
	fs.add("repo", (*jsonString)(&w.Repo), omitEmpty)
	fs.add("git_dir", (*jsonString)(&w.GitDir), omitEmpty)
	fs.add("objects", (*jsonString)(&w.Objects), omitEmpty)
	fs.add("tree", (*jsonString)(&w.Tree), omitEmpty)
	fs.add("head", (*jsonString)(&w.Head), omitEmpty)
	fs.add("checks", (*jsonString)(&w.Checks), omitEmpty)
	fs.add("moved", (*jsonBool)(&w.Moved), omitEmpty)
	fs.add("stalls", (*jsonInt)(&w.Stalls), omitEmpty)
	fs.add("tools", (*jsonInt)(&w.Tools), omitEmpty)
	fs.add("same", (*jsonInt)(&w.Same), omitEmpty)
	fs.add("note", (*jsonString)(&w.Note), omitEmpty)
}

func (s *Setting) jsonFields(fs *fields) {
	fs.add("file", (*jsonString)(&s.File), always)
	fs.add("key", (*jsonString)(&s.Key), omitEmpty)
	fs.add("sum", (*jsonString)(&s.Sum), always)
}

func (p *Pending) jsonFields(fs *fields) {
	fs.add("at", (*jsonTime)(&p.At), always)
	fs.add("what", (*jsonString)(&p.What), always)
	fs.add("why", (*jsonString)(&p.Why), always)
}

func (o *Owner) jsonFields(fs *fields) {
	fs.add("pid", (*jsonInt)(&o.PID), always)
	fs.add("start", (*jsonUint64)(&o.Start), always)
	fs.add("boot", (*jsonString)(&o.Boot), omitEmpty)
	fs.add("comm", (*jsonString)(&o.Comm), always)
	fs.add("stdin", (*jsonString)(&o.Stdin), always)
	fs.add("peer", (*jsonBool)(&o.Peer), omitEmpty)
	fs.add("same_session", (*jsonBool)(&o.SameSession), omitEmpty)
	fs.add("pid_ns", (*jsonUint64)(&o.PidNS), omitEmpty)
}

func (t *TranscriptPos) jsonFields(fs *fields) {
	fs.add("path", (*jsonString)(&t.Path), omitEmpty)
	fs.add("offset", (*jsonInt64)(&t.Offset), always)
	fs.add("unseen", (*jsonBool)(&t.Unseen), omitEmpty)
	fs.add("unseen_at", (*jsonTime)(&t.UnseenAt), omitZero)
	fs.add("late_marker", (*jsonBool)(&t.LateMarker), omitEmpty)
	fs.add("in_line", (*jsonBool)(&t.InLine), omitEmpty)
	fs.add("usage_id", (*jsonString)(&t.UsageID), omitEmpty)
	fs.add("model", (*jsonString)(&t.Model), omitEmpty)
}

// The lists of the spend package's types, which the loop holds.
type (
	spentJSON  spend.Spent
	tokensJSON spend.Tokens
	ledgerJSON spend.Ledger
	priceJSON  spend.Price
)

func (s *spentJSON) jsonFields(fs *fields) {
	(*tokensJSON)(&s.Tokens).jsonFields(fs)
	fs.add("cost_usd", (*jsonFloat)(&s.CostUSD), always)
	fs.add("unpriced", (*jsonStrings)(&s.Unpriced), omitEmpty)
	fs.add("held", structMap[spend.Tokens]{&s.Held, func(t *spend.Tokens) fielder { return (*tokensJSON)(t) }}, omitEmpty)
}

func (t *tokensJSON) jsonFields(fs *fields) {
	fs.add("input", (*jsonInt64)(&t.Input), always)
	fs.add("cache_write", (*jsonInt64)(&t.CacheWrite), always)
	fs.add("cache_read", (*jsonInt64)(&t.CacheRead), always)
	fs.add("output", (*jsonInt64)(&t.Output), always)
}

func (l *ledgerJSON) jsonFields(fs *fields) {
	fs.add("ids", (*jsonStrings)(&l.IDs), omitEmpty)
	fs.add("last", (*jsonTime)(&l.Last), omitZero)
	fs.add("model", (*jsonString)(&l.Model), omitEmpty)
}

func (p *priceJSON) jsonFields(fs *fields) {
	fs.add("input", (*jsonFloat)(&p.Input), always)
	fs.add("cache_write", (*jsonFloat)(&p.CacheWrite), always)
	fs.add("cache_read", (*jsonFloat)(&p.CacheRead), always)
	fs.add("output", (*jsonFloat)(&p.Output), always)
}

// The lines of the logs and the witness.

func (e *Event) jsonFields(fs *fields) {
	fs.add("version", (*jsonInt)(&e.Version), always)
	fs.add("at", (*jsonTime)(&e.At), always)
	fs.add("loop_id", (*jsonString)(&e.LoopID), always)
	fs.add("iteration", (*jsonInt)(&e.Iteration), always)
	fs.add("action", (*jsonString)(&e.Action), always)
	fs.add("reason", (*jsonString)(&e.Reason), always)
	fs.add("tokens", (*jsonInt64)(&e.Tokens), omitEmpty)
	fs.add("cost_usd", floatPtr{&e.CostUSD}, omitEmpty)
	fs.add("checkpoint", (*jsonString)(&e.Checkpoint), omitEmpty)
}

func (u *ToolUse) jsonFields(fs *fields) {
	fs.add("version", (*jsonInt)(&u.Version), always)
	fs.add("loop_id", (*jsonString)(&u.LoopID), always)
	fs.add("tool_use_id", (*jsonString)(&u.ToolUseID), always)
	fs.add("denied", (*jsonBool)(&u.Denied), omitEmpty)
	fs.add("wrote", (*jsonBool)(&u.Wrote), omitEmpty)
}

func (w *witness) jsonFields(fs *fields) {
	fs.add("version", (*jsonInt)(&w.Version), always)
	fs.add("session_id", (*jsonString)(&w.SessionID), always)
	fs.add("loop_id", (*jsonString)(&w.LoopID), always)
	fs.add("owner", ptr[Owner]{&w.Owner, func(o *Owner) fielder { return o }}, omitEmpty)
}

// floatPtr is a *float64 field (nil: null).
type floatPtr struct{ p **float64 }

func (v floatPtr) encode(e *encoder) error {
	if *v.p == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	return (*jsonFloat)(*v.p).encode(e)
}
func (v floatPtr) empty() bool { return *v.p == nil }
func (v floatPtr) zero() bool  { return *v.p == nil }
func (v floatPtr) copyTo(dst jsonValue) {
	p := dst.(floatPtr).p
	if *v.p == nil {
		*p = nil
		return
	}
	f := **v.p
	*p = &f
}
func (v floatPtr) decode(d *decoder) error {
	if null, err := d.null(); null || err != nil {
		*v.p = nil
		return err
	}
	if *v.p == nil {
		*v.p = new(float64)
	}
	return (*jsonFloat)(*v.p).decode(d)
}
