package inject

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ralph-loop/ralph-loop/state"
)

func loop(task string) *state.Loop {
	return &state.Loop{Config: state.Config{Task: task, MaxIterations: 25, CompletionPromise: "DONE", MinToolCalls: 1, OnPromiseNoWork: "reject"},
		Iteration: 3, TaskFile: "/state/sessions/s/task-x.md"}
}

// claude is Claude Code's facts, as hook/claude states them (that package imports this one).
var claude = Words{Name: "claude", Display: "Claude Code", MessageCap: 9500, Cap: Cap{Setting: "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"}}

// Claude Code caps hook output strings at 10,000 characters (UTF-16 units).
func utf16Units(s string) int { return len(utf16.Encode([]rune(s))) }

func TestContract(t *testing.T) {
	c := Contract(loop("Make every test in ./parser pass"), claude)
	for _, want := range []string{
		"Make every test in ./parser pass",
		"Only when the task is fully complete, output exactly <promise>DONE</promise>",
		"must match exactly",
		"No variants",
		"If the task is not fully done, do not output the marker",
		"at least 1 tool call since the loop started",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("contract lacks %q:\n%s", want, c)
		}
	}
}

func TestContinuation(t *testing.T) {
	l := loop("Fix `x` in $HOME")
	c := Continuation(l, Why{Kind: BlockNoPromise}, claude)
	for _, want := range []string{"iteration 3/25", "the completion marker was not in your output", "<promise>DONE</promise>", "TASK:\nFix `x` in $HOME"} {
		if !strings.Contains(c, want) {
			t.Errorf("continuation lacks %q:\n%s", want, c)
		}
	}
	c = Continuation(l, Why{Kind: BlockNoWork}, claude)
	if !strings.Contains(c, "only 0 tool calls have been made since the loop started and at least 1 is required") {
		t.Errorf("no-work continuation:\n%s", c)
	}
	// Only part of the output read: the agent is not told the marker was not in it.
	c = Continuation(l, Why{Kind: BlockNoPromise, Partial: true}, claude)
	if !strings.Contains(c, "not in the part of your output ralph-loop could read") || !strings.Contains(c, "output it again") ||
		strings.Contains(c, "was not in your output") {
		t.Errorf("continuation after a partial read:\n%s", c)
	}
}

func TestLongTaskStaysUnderHostCap(t *testing.T) {
	for _, unit := range []string{"x", "é", "完", "😀"} {
		task := strings.Repeat(unit, 1<<20/len(unit))
		l := loop(task)
		for name, s := range map[string]string{
			"contract":     Contract(l, claude),
			"continuation": Continuation(l, Why{Kind: BlockNoWork}, claude),
		} {
			if utf16Units(s) >= 10000 {
				t.Errorf("%s of a 1 MB task of %q: %d characters", name, unit, utf16Units(s))
			}
			if !utf8.ValidString(s) {
				t.Errorf("%s of a task of %q: cut inside a character", name, unit)
			}
			if !strings.Contains(s, l.TaskFile) || !strings.Contains(s, "Read the whole task") {
				t.Errorf("%s does not point at the task file", name)
			}
		}
	}
	short := loop(strings.Repeat("x", MaxTaskInline))
	if strings.Contains(Continuation(short, Why{Kind: BlockNoPromise}, claude), "task file") {
		t.Error("a task of MaxTaskInline bytes was cut")
	}
}

func TestNotices(t *testing.T) {
	l := loop("t")
	for _, s := range []string{BlockNotice(l, Why{Kind: BlockNoPromise}), BlockNotice(l, Why{Kind: BlockNoWork}), BlockNotice(l, Why{Kind: BlockWrongToken, Other: "<promise>X</promise>"}), Accepted(l), MaxReached(l),
		CutByHost(l, claude, 8), Cancelled(l), Armed(l, nil, claude, 8, 0), Armed(l, nil, claude, 0, 0)} {
		if strings.Contains(s, "\n") || !strings.HasPrefix(s, "ralph") {
			t.Errorf("notice %q is not one line starting with ralph", s)
		}
	}
	if w := CapWarning(l, claude, 8); w == "" {
		t.Error("no cap warning for 25 iterations under a cap of 8")
	}
	l.MaxIterations = 9
	if w := CapWarning(l, claude, 8); w != "" {
		t.Errorf("cap warning for 9 iterations (8 blocks) under a cap of 8: %q", w)
	}
}

func TestCommandFiles(t *testing.T) {
	for _, c := range CommandsFor("claude") {
		if strings.Contains(c.Content, "!`") || strings.Contains(c.Content, "\n!") {
			t.Errorf("%s has a shell line", c.Name)
		}
		if !strings.Contains(c.Content, "\n"+c.Description+"\n") || !strings.Contains(c.Content, "disable-model-invocation: true") {
			t.Errorf("%s frontmatter", c.Name)
		}
	}
}

func TestPrintable(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"go test ./...", "go test ./..."},
		{"ünïcödé ✓ 完了", "ünïcödé ✓ 完了"},
		{"a\x1b]0;pwned\x07b", `a\x1b]0;pwned\x07b`},
		{"rm -rf /\rgo test", `rm -rf /\x0dgo test`},
		{"x\x1b[2Ky", `x\x1b[2Ky`},
		{"tab\there", `tab\x09here`},
		{"\u202egnp.exe", `\u202egnp.exe`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"c1\u009bx", `c1\u009bx`},
	} {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// qwenWords are Qwen Code's facts: a cap setting of N lets N-1 blocks through, counted
// across tool calls, raisable to 100; the prompt hook's context arrives escaped.
var qwenWords = Words{Name: "qwen", Display: "Qwen Code", Cap: Cap{Setting: "stopHookBlockingCap", CountsTools: true,
	CountsOverride: true, Max: 100}, ContextEscapesMarkup: true, HidesPromptNotice: true}

func TestCapTextsCountingTheOverride(t *testing.T) {
	l := loop("t")
	l.MaxIterations = 10
	for _, c := range []struct {
		blockCap int
		want     []string
		not      string
	}{
		{7, []string{"after 7 stop blocks in a row (stopHookBlockingCap=8)", "at most 8 iterations in one turn", `"ralph-loop install --host qwen"`}, "maximum"},
		{8, []string{"(stopHookBlockingCap=9)", "at most 9 iterations"}, "maximum"},
	} {
		w := CapWarning(l, qwenWords, c.blockCap)
		for _, s := range c.want {
			if !strings.Contains(w, s) {
				t.Errorf("cap %d: warning %q lacks %q", c.blockCap, w, s)
			}
		}
		if strings.Contains(w, c.not) {
			t.Errorf("cap %d: warning %q says %q", c.blockCap, w, c.not)
		}
	}
	if w := CapWarning(l, qwenWords, 9); w != "" {
		t.Errorf("warning for 10 iterations under a setting of 10: %q", w)
	}
	l.MaxIterations = 150
	w := CapWarning(l, qwenWords, 99)
	if !strings.Contains(w, "(stopHookBlockingCap=100, its maximum), so this loop can run at most 100 iterations") || strings.Contains(w, "install") {
		t.Errorf("warning at the maximum cap: %q", w)
	}
	if r := CutReason(qwenWords, 7); r != "Qwen Code ends a turn after 7 stop blocks in a row (stopHookBlockingCap=8), so the loop could not go on" {
		t.Errorf("cut reason %q", r)
	}
	if s := CutByHost(l, qwenWords, 7); !strings.Contains(s, "install --host qwen") {
		t.Errorf("cut notice below the maximum does not say how to raise the cap: %q", s)
	}
	if s := CutByHost(l, qwenWords, 99); strings.Contains(s, "install") || !strings.Contains(s, "stopHookBlockingCap=100") {
		t.Errorf("cut notice at the maximum: %q", s)
	}
}

func TestContractEscapedContext(t *testing.T) {
	l := loop("t")
	if c := Contract(l, qwenWords); !strings.Contains(c, "escaped as HTML entities") {
		t.Errorf("the contract for a host that escapes the context does not say so: %q", c)
	}
	if c := Contract(l, claude); strings.Contains(c, "HTML entities") {
		t.Errorf("the contract for Claude Code speaks of escaping: %q", c)
	}
}

// Every text that names a loop command names it as the user's host takes it: Codex's TUI
// refuses /ralph-loop and takes $ralph-loop.
func TestCommandsAsTheHostTakesThem(t *testing.T) {
	codex := Words{Name: "codex", Display: "Codex", Sigil: "$"}
	l := loop("Fix it")
	now := time.Now()
	l.Status, l.EndedAt = state.SessionEnded, &now
	for what, text := range map[string]string{
		"the resume hint": EndedUnseen(l, codex),
		"the usage":       ArgError(errors.New("unknown flag --x"), codex),
	} {
		if !strings.Contains(text, "$ralph-loop") || strings.Contains(text, "/ralph-loop") {
			t.Errorf("%s for Codex: %q", what, text)
		}
	}
	if text := EndedUnseen(l, claude); !strings.Contains(text, "/ralph-loop --resume") {
		t.Errorf("the resume hint for Claude Code: %q", text)
	}
}
