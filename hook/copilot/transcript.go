package copilot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/transcript"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
)

// Transcript reads Copilot CLI's session events ($COPILOT_HOME/session-state/<id>/
// events.jsonl): one {"type","data","id","timestamp"} object a line. The agent's text is in
// assistant.message (data.content), each tool call's end in tool.execution_complete
// (data.toolCallId, data.success, data.error.message), every hook's start in hook.start
// (data.hookType, data.input), and the user's prompts in user.message (data.content as
// typed, data.delivery "steering" for one handed to the agent within a running turn). tool.execution_start is written before the preToolUse hook
// runs, so a call the hook denied has one too: only its completion says it was denied.
// What the model used is in session.usage_record (data.usage: model, inputTokens,
// outputTokens, cacheReadTokens, cacheWriteTokens), one event per model call, side calls
// and subagents' included, each counted once by the event's id (the provider's apiCallId
// need not be unique). inputTokens includes the cache reads (seen against a fake reporting
// cached tokens); whether it includes cache writes is not known, so they are added, which
// can count too much, never too little. Its "cost" is not in USD and is not read.
var Transcript = transcript.Reader(scan)

// maxLine bounds a line that is decoded; longer lines (big tool results) are skipped
// unread, since none of the lines read are that long but an agent's message.
const maxLine = 8 << 20

// event is the part of a transcript line that is read.
type event struct {
	Type      string    `json:"type"`
	ID        string    `json:"id"`
	Timestamp time.Time `json:"timestamp"`
	Data      struct {
		Content    string `json:"content"`
		ToolCallID string `json:"toolCallId"`
		Success    bool   `json:"success"`
		Error      struct {
			Message string `json:"message"`
		} `json:"error"`
		HookType string `json:"hookType"`
		Usage    struct {
			Model      string `json:"model"`
			Input      int64  `json:"inputTokens"`
			Output     int64  `json:"outputTokens"`
			CacheRead  int64  `json:"cacheReadTokens"`
			CacheWrite int64  `json:"cacheWriteTokens"`
		} `json:"usage"`
		Delivery string `json:"delivery"`
		Input    struct {
			Timestamp json.Number `json:"timestamp"`
		} `json:"input"`
	} `json:"data"`
}

// wanted are the line types that are decoded; lines without one of them are skipped
// undecoded (a line that holds one but is of another type is decoded and then skipped).
var wanted = [][]byte{
	[]byte(`"type":"assistant.message"`),
	[]byte(`"type":"tool.execution_complete"`),
	[]byte(`"type":"hook.start"`),
	[]byte(`"type":"session.usage_record"`),
	[]byte(`"type":"user.message"`),
}

// scan reads the events from r, whose first byte is at offset base. Options.Last is the
// agentStop event's timestamp: SawLast reports that the stop hook's own hook.start line was
// read, so the turn's lines before it are all there. With SkipToUser, agent text before the
// first agentStop hook.start line read does not count (it is the end of an iteration already
// decided, which reached the file late): a marker in it is reported as LateFound.
func scan(r io.Reader, base int64, opt transcript.Options) (transcript.Result, error) {
	sc := scanner{res: transcript.Result{Offset: base}, u: transcript.NewDedup(opt.UsageSeen), opt: opt, skipText: opt.SkipToUser}
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		sc.res.Skipping = sc.skipText
		var long, complete bool
		var err error
		line, long, complete, err = readLine(br, line[:0], &base)
		if err != nil || !complete {
			return sc.res, err // an incomplete last line is read again next time
		}
		sc.res.Lines++
		sc.res.Offset = base
		if long || !isWanted(line) {
			continue
		}
		var ev event
		if err := json.Unmarshal(line, &ev); err != nil {
			sc.res.Bad++
			continue
		}
		sc.take(&ev)
	}
}

// readLine reads the next line into line (cut to nothing, and long set, past maxLine),
// advancing base by what it read. complete is false at the end of what is written (an
// incomplete last line is read again next time).
func readLine(br *bufio.Reader, line []byte, base *int64) (_ []byte, long, complete bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > maxLine {
				long, line = true, line[:0]
			} else {
				line = append(line, chunk...)
			}
		}
		*base += int64(len(chunk))
		switch {
		case err == nil:
			return line, long, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			return line, long, false, nil
		default:
			return line, long, false, err
		}
	}
}

// scanner is what a scan keeps between the events it reads.
type scanner struct {
	res      transcript.Result
	u        *transcript.Dedup
	opt      transcript.Options
	skipText bool
}

// take adds what one event says to the scan's result.
func (sc *scanner) take(ev *event) {
	res, opt := &sc.res, sc.opt
	switch ev.Type {
	case "assistant.message":
		if !transcript.After(ev.Timestamp, opt.TextAfter) {
			return
		}
		if sc.skipText {
			res.LateFound = res.LateFound || promise.ContainsMode(ev.Data.Content, opt.Token, opt.Mode)
			return
		}
		if promise.ContainsMode(ev.Data.Content, opt.Token, opt.Mode) {
			res.Found = true
		}
		if o, ok := promise.Other(ev.Data.Content, opt.Token); ok && !res.HasOther {
			res.Other, res.HasOther = o, true
		}
	case "tool.execution_complete":
		// A call that ran counts, failed or not; one a hook (or the user) denied did
		// not run.
		denied := !ev.Data.Success && strings.HasPrefix(ev.Data.Error.Message, "Denied")
		if ev.Data.ToolCallID != "" && !denied && transcript.After(ev.Timestamp, opt.ToolsAfter) {
			res.ToolIDs = append(res.ToolIDs, ev.Data.ToolCallID)
		}
	case "session.usage_record":
		x := ev.Data.Usage
		t := spend.Tokens{Input: max(0, x.Input-x.CacheRead), CacheWrite: x.CacheWrite, CacheRead: x.CacheRead, Output: x.Output}
		if transcript.After(ev.Timestamp, opt.ToolsAfter) && t.Valid() && x.Input >= 0 {
			sc.u.Add(res, ev.ID, spend.Record{Model: x.Model, At: ev.Timestamp, Tokens: t})
		}
	case "user.message":
		// Typed while the agent worked, Copilot CLI hands a prompt to the agent within
		// the turn ("steering") and never to userPromptSubmitted. Only a loop command
		// matters here (the agent has the rest): /cancel-ralph so typed is reported
		// as queued, so that the stop is let through for the user to confirm it.
		if ev.Data.Delivery == "steering" && isLoopCommand(ev.Data.Content) {
			res.Queue = append(res.Queue, transcript.QueueOp{Op: "enqueue", Content: strings.TrimSpace(ev.Data.Content)})
		}
	case "hook.start":
		if ev.Data.HookType != "agentStop" {
			return
		}
		sc.skipText = false
		if opt.Last != "" && ev.Data.Input.Timestamp.String() == opt.Last {
			res.SawLast = true
		}
	}
}

// isLoopCommand reports whether a prompt as the user typed it starts with one of the
// loop commands.
func isLoopCommand(s string) bool {
	s = strings.TrimSpace(s)
	for _, name := range skillCommands {
		if r, ok := strings.CutPrefix(s, "/"+name); ok && (r == "" || r[0] == ' ' || r[0] == '\n') {
			return true
		}
	}
	return false
}

func isWanted(line []byte) bool {
	for _, p := range wanted {
		if bytes.Contains(line, p) {
			return true
		}
	}
	return false
}
