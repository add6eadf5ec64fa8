// Package inject writes every text the agent or the user reads: the prompt contract given
// when a loop is armed, the continuation sent when a stop is blocked, the short notices shown
// to the user, and the slash-command files that install writes.
package inject

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// MaxTaskInline is the longest task repeated in full in a message to the agent. Claude Code
// caps every hook output string at 10,000 characters; a longer task is cut and the agent is
// pointed at the file that holds all of it.
const MaxTaskInline = 6000

// Words is what the texts need to know about the agent host they are shown in.
type Words struct {
	// Name is the host on ralph-loop's command line ("claude").
	Name string
	// Display is the host's name for people ("Claude Code").
	Display string
	// MessageCap is the most a message to the agent may take, in UTF-16 units, with room to
	// spare under the host's own limit (0: DefaultMessageCap).
	MessageCap int
	// Cap is the host's cap on consecutive stop blocks, for a host whose cap can be raised
	// or counts tool calls (the zero Cap: neither).
	Cap Cap
	// EscapesMarkup: the host hands the agent a block reason with <, > and & escaped.
	EscapesMarkup bool
	// ContextEscapesMarkup: the host hands the agent the context added to the user's prompt
	// (the contract) with < and > escaped.
	ContextEscapesMarkup bool
	// HidesPromptNotice: the host shows the user no notice from the prompt hook, so the
	// arming notice's warning about the host's cap is repeated at the loop's first stop.
	HidesPromptNotice bool
	// Sigil starts the loop commands as the user types them in the host ("" or "/":
	// /ralph-loop; Codex's TUI takes "$": $ralph-loop, a skill).
	Sigil string
	// QueuesCommands: the host holds a slash command typed while the agent works until the
	// turn ends, which a loop does not let happen (Qwen Code queues it, Gemini CLI refuses
	// it): a cancel mid-loop is Esc, then the cancel at the idle prompt. Set for Qwen Code.
	QueuesCommands bool
	// BlockLabel is how the host labels the reason of a blocked stop on its screen when it
	// calls it an error ("Stop hook error" in Qwen Code's TUI), "" when it does not: the
	// first block's notice says it is not one.
	BlockLabel string
	// AnswerLabel is how the host labels a prompt that a hook blocked when it shows the
	// user the hook's answer ("Agent execution blocked" in Gemini CLI, "UserPromptExpansion
	// blocked" in Qwen Code), "" when it shows it as an answer: ralph-loop answers the cancel
	// so (nothing of it may reach the model), and the answer says the label is no error.
	AnswerLabel string
	// LabelsPrompts: the host follows a blocked prompt with BlockLabel too (Gemini CLI's
	// failure note follows every block of a prompt).
	LabelsPrompts bool
	// SteersCommands: a command typed while the agent works goes to the agent within the
	// turn, never to the prompt hook (Copilot CLI), so a cancel so typed must be typed again
	// once the turn has ended.
	SteersCommands bool
	// SandboxOn says how the user turns the host's sandbox on for the agent's shell ("" when
	// ralph-loop cannot say).
	SandboxOn string
	// SkipsHooks says when the host skips hooks without a word ("" if it never does), for
	// a loop whose Stop hook never ran.
	SkipsHooks string
	// PopupPicksCommand: the host's list of commands takes the first Enter on a typed
	// command, which only picks it (opencode, Kilo Code, Codex's $ skills): the cancel
	// command's description, shown in that list, says to press Enter again to send it.
	PopupPicksCommand bool
}

// Cap is what texts say of a host's cap on consecutive stop blocks (hook.Facts.BlockCap is
// the cap itself).
type Cap struct {
	// Setting is how the cap is raised (a variable or a setting); "" when it cannot be.
	Setting string
	// CountsTools: tool calls between stops do not reset the host's count of blocks.
	CountsTools bool
	// CountsOverride: the cap setting counts the block it overrides, so that a setting of N
	// lets N-1 blocks through (Qwen Code); the texts name the setting's value.
	CountsOverride bool
	// Max is the most the cap setting can be raised to (0: no limit known).
	Max int
}

// capValue is the value of the host's cap setting that lets blockCap blocks through.
func (w Words) capValue(blockCap int) int {
	if w.Cap.CountsOverride {
		return blockCap + 1
	}
	return blockCap
}

// capAtMax reports whether the host's cap setting is already as high as it goes.
func (w Words) capAtMax(blockCap int) bool {
	return w.Cap.Max > 0 && w.capValue(blockCap) >= w.Cap.Max
}

// DefaultMessageCap is the message cap of a host that states none: Claude Code's, whose
// hook output strings are cut at 10,000 characters (UTF-16 units), with room to spare.
const DefaultMessageCap = 9500

func (w Words) msgCap() int {
	if w.MessageCap > 0 {
		return w.MessageCap
	}
	return DefaultMessageCap
}

func (w Words) display() string {
	if w.Display != "" {
		return w.Display
	}
	return "the host"
}

func (w Words) sigil() string {
	if w.Sigil != "" {
		return w.Sigil
	}
	return "/"
}

// Arm is how the user starts a loop in the host: /ralph-loop, or $ralph-loop in Codex.
func (w Words) Arm() string { return w.sigil() + "ralph-loop" }

// cancel is how the user ends a loop in the host: /cancel-ralph, or $cancel-ralph in Codex.
func (w Words) cancel() string { return w.sigil() + "cancel-ralph" }

// units counts s as JavaScript does: UTF-16 code units.
func units(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// cutUnits returns the longest prefix of s of at most n UTF-16 units.
func cutUnits(s string, n int) string {
	u := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if u+w > n {
			return s[:i]
		}
		u += w
	}
	return s
}

// lastUnits returns the longest suffix of s of at most n UTF-16 units.
func lastUnits(s string, n int) string {
	r := []rune(s)
	u := 0
	i := len(r)
	for i > 0 {
		w := 1
		if r[i-1] >= 0x10000 {
			w = 2
		}
		if u+w > n {
			break
		}
		u += w
		i--
	}
	return string(r[i:])
}

// taskBlock returns the task as the agent should read it: whole when it fits in budget
// UTF-16 units (and MaxTaskInline bytes), otherwise its beginning and the path of the file
// that holds all of it.
func taskBlock(l *state.Loop, budget int) string {
	if len(l.Task) <= MaxTaskInline && units(l.Task) <= budget {
		return l.Task
	}
	note := fmt.Sprintf("\n[… the task is %d bytes long; this is its beginning. Read the whole task in %s before you go on.]", len(l.Task), l.TaskFile)
	if l.TaskFile == "" {
		note = fmt.Sprintf("\n[… the task is %d bytes long; this is its beginning.]", len(l.Task))
	}
	head := l.Task
	if len(head) > MaxTaskInline {
		cut := MaxTaskInline
		for cut > 0 && !startsRune(head[cut]) {
			cut--
		}
		head = head[:cut]
	}
	return cutUnits(head, max(budget-units(note), 0)) + note
}

func startsRune(b byte) bool { return b&0xC0 != 0x80 }

// ULW is the instruction every /ulw-loop continuation (and its contract) starts with.
const ULW = "ULTRAWORK: work autonomously and thoroughly until the task is completely done. Do not stop to ask " +
	"questions or for confirmation: make reasonable decisions yourself and keep going. Verify your work (run the " +
	"tests, check the results) before you claim completion."

// Plural returns "1 thing" or "n things".
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Contract is the context given to the agent when a loop is armed.
func Contract(l *state.Loop, w Words) string {
	marker := promise.Marker(l.CompletionPromise)
	var b strings.Builder
	if l.Mode == state.ModeULW {
		b.WriteString(ULW + "\n\n")
	}
	fmt.Fprintf(&b, "ralph-loop: a loop is now active for this session. Keep working on the task below until it is completely done; you have up to %s",
		Plural(l.MaxIterations, "iteration", "iterations"))
	if l.MaxTime > 0 {
		fmt.Fprintf(&b, " and %s", time.Duration(l.MaxTime))
	}
	b.WriteString(".\n\n")
	var rules strings.Builder
	rules.WriteString("RULES:\n")
	fmt.Fprintf(&rules, "1. Only when the task is fully complete, output exactly %s, alone on the last line of your reply.\n", marker)
	fmt.Fprintf(&rules, "2. The marker must match exactly: the same tags, text, case and spacing. No variants: a bare %q, other tags or a paraphrase do not count.\n", l.CompletionPromise)
	rules.WriteString("3. If the task is not fully done, do not output the marker: not to end the loop, not because you are stuck, not because the iterations run out. Keep working instead.\n")
	n := 4
	if l.MinToolCalls > 0 && l.OnPromiseNoWork == state.NoWorkReject {
		fmt.Fprintf(&rules, "%d. The marker counts only after real work: at least %s since the loop started.\n", n, Plural(l.MinToolCalls, "tool call", "tool calls"))
		n++
	}
	if len(l.Checks) > 0 {
		fmt.Fprintf(&rules, "%d. When you output the marker, these checks run in %s and must all pass (exit 0), or the loop goes on:\n", n, l.Cwd)
		for _, c := range l.Checks {
			fmt.Fprintf(&rules, "   %s\n", cutUnits(c, 300))
		}
	}
	rules.WriteString("Each time you try to stop without the marker, you will be given this task again.")
	if w.ContextEscapesMarkup {
		rules.WriteString("\n(This text reaches you with its angle brackets escaped as HTML entities; write the marker with plain angle brackets.)")
	}
	budget := w.msgCap() - units(b.String()) - units(rules.String()) - 20
	fmt.Fprintf(&b, "TASK:\n%s\n\n", taskBlock(l, budget))
	b.WriteString(rules.String())
	return b.String()
}

// Why a stop was blocked.
const (
	BlockNoPromise = iota
	BlockNoWork
	BlockCheckFailed
	// BlockWrongToken: no marker, but <promise> tags around another token.
	BlockWrongToken
	// BlockEarly: the promise came before --min-iterations.
	BlockEarly
	// BlockUnrecorded: the loop's state could not be updated, so nothing was judged.
	BlockUnrecorded
	// BlockUnread: the iteration's output could not be read to its end (Why.Unread says
	// why), so it could not be checked.
	BlockUnread
	// BlockBusy: the promise came while work the host runs in the background (the loop's
	// Background) is not done.
	BlockBusy
	// BlockOverdue: background work (Why.Late) has run longer than the loop's --max-wait.
	BlockOverdue
)

// Why says why a stop was blocked: one of the Block kinds, with the failed check
// (BlockCheckFailed) or the other marker seen (BlockWrongToken).
type Why struct {
	Kind  int
	Check *CheckFailure
	Other string
	// Unread says why the output could not be read to its end (BlockUnread).
	Unread string
	// Resumed: the loop goes on after a stop let through for the user's message.
	Resumed bool
	// Partial (BlockNoPromise): the stop read only part of the agent's output (the host
	// hands over the end of it, and its transcript did not show the rest yet).
	Partial bool
	// Late are the background tasks that have run past --max-wait at At (BlockOverdue).
	Late []state.Task
	At   time.Time
}

// EscapedNote tells the agent, in a host that escapes the block reason (EscapesMarkup), how
// to read the marker in it. It holds no <, > or &, so the escaping leaves it as it is.
const EscapedNote = "(In this message every less-than sign, greater-than sign and ampersand is shown as an HTML entity: " +
	"lt, gt or amp between an ampersand and a semicolon. Read them as the plain characters, and write the completion marker " +
	"with the plain characters, exactly as the loop's rules give it, never with entities.)"

// CheckFailure describes the check that failed, for BlockCheckFailed.
type CheckFailure struct {
	Index, Total int
	Command      string
	Outcome      string // "exited with code 2 after 3.1s", "timed out after 120s"
	Tail         string // the end of its output
	LogPath      string
}

// Continuation is the block reason the agent reads when its stop is blocked; l is the loop
// after the block (its Iteration is the one starting). It stays under the host's cap on
// hook output: the check's output and the task are cut to fit.
func Continuation(l *state.Loop, w Why, words Words) string {
	why, f := w.Kind, w.Check
	marker := promise.Marker(l.CompletionPromise)
	var b strings.Builder
	if l.Mode == state.ModeULW {
		b.WriteString(ULW + "\n\n")
	}
	fmt.Fprintf(&b, "%s%d/%d. ", continuationPrefix, l.Iteration, l.MaxIterations)
	if words.EscapesMarkup {
		b.WriteString(EscapedNote + " ")
	}
	if w.Resumed {
		b.WriteString("The user's message has been answered; the loop now goes on. ")
	}
	b.WriteString("Your stop was blocked: ")
	switch why {
	case BlockNoWork:
		fmt.Fprintf(&b, "you output the completion marker, but only %s been made since the loop started and at least %d %s required. Do the real work first.\n",
			Plural(l.ToolCalls, "tool call has", "tool calls have"), l.MinToolCalls, map[bool]string{true: "is", false: "are"}[l.MinToolCalls == 1])
	case BlockCheckFailed:
		fmt.Fprintf(&b, "you output the completion marker, but check %d of %d failed: `%s` %s.\n", f.Index, f.Total, cutUnits(f.Command, 500), f.Outcome)
	case BlockWrongToken:
		fmt.Fprintf(&b, "the completion marker was not in your output. You wrote %s, which is not the marker: the marker is exactly %s.\n", cutUnits(w.Other, 300), marker)
	case BlockEarly:
		early(&b, l)
	case BlockUnrecorded:
		b.WriteString("ralph-loop could not update this loop's state (the user is told why), so nothing you output was judged this time.\n")
	case BlockUnread:
		fmt.Fprintf(&b, "your output could not be checked: %s. It is read on at your next stop; a completion marker of this iteration does not count.\n", w.Unread)
	case BlockBusy:
		busy(&b, l, words)
	case BlockOverdue:
		overdue(&b, l, w.Late, w.At)
	case BlockNoPromise:
		if w.Partial {
			b.WriteString("the completion marker was not in the part of your output ralph-loop could read (the host's transcript " +
				"did not show all of it). If your output held the marker, output it again, alone on the last line.\n")
			break
		}
		fallthrough
	default:
		b.WriteString("the completion marker was not in your output.\n")
	}
	var end strings.Builder
	if why == BlockCheckFailed {
		fmt.Fprintf(&end, "The full output is in %s.\n", f.LogPath)
		if l.CheckHint != "" {
			fmt.Fprintf(&end, "Hint: %s\n", cutUnits(l.CheckHint, 1000))
		}
		fmt.Fprintf(&end, "Fix what fails, and output exactly %s only when the task is done and the checks pass.\n\n", marker)
	} else {
		fmt.Fprintf(&end, "Keep working on the task. Only when it is fully complete, output exactly %s (exact match, no variants), alone on the last line. If it is not done, do not output it.\n\n", marker)
	}
	end.WriteString("TASK:\n")
	if why == BlockCheckFailed && f.Tail != "" {
		// The output gets what the task leaves, up to what was asked for; the task keeps
		// at least its first thousand characters.
		room := words.msgCap() - units(b.String()) - units(end.String()) - min(units(l.Task), 1000) - 200
		tail := lastUnits(f.Tail, max(room, 200))
		if tail != f.Tail {
			fmt.Fprintf(&b, "The end of its output:\n…%s\n", tail)
		} else {
			fmt.Fprintf(&b, "Its output (the end, at most %d characters):\n%s\n", l.CheckOutputChars, tail)
		}
	}
	b.WriteString(end.String())
	b.WriteString(taskBlock(l, words.msgCap()-units(b.String())))
	return b.String()
}

// PausedForPrice tells the user, at a stop let through, that the loop waits for a model's
// price: a cost budget cannot be kept without it, and a model the table lacks is no reason
// to end the loop (anything can write such a line into a transcript).
func PausedForPrice(l *state.Loop, w Words) string {
	return fmt.Sprintf("ralph-loop: loop paused at iteration %d/%d: %s has no known price, so the cost budget of %s cannot be kept "+
		"(so far: %s). Set its price under %q in %s (USD per million tokens: input, cache_write, cache_read, output), then send "+
		"any message to go on; %s ends the loop", l.Iteration, l.MaxIterations, strings.Join(l.Spent.Unpriced, ", "),
		spend.Dollars(l.MaxCost), l.Spent, args.SettingPrices, args.UserSettingsName, w.cancel())
}

// PriceResumed tells the user that the prices they set counted the tokens the loop held.
func PriceResumed(l *state.Loop, priced []string) string {
	return fmt.Sprintf("ralph-loop: the loop goes on: %s priced from your settings, %s so far (budget %s)",
		strings.Join(priced, ", "), l.Spent, spend.Dollars(l.MaxCost))
}

// StillPaused tells the user that the loop still waits for a price (or that the settings
// could not be read: err).
func StillPaused(l *state.Loop, w Words, err error) string {
	if err != nil {
		return fmt.Sprintf("ralph-loop: the loop is still paused: its prices could not be read (%v); fix the file, or type %s", err, w.cancel())
	}
	return fmt.Sprintf("ralph-loop: the loop is still paused: %s has no known price (set one under %q in %s, or type %s)",
		strings.Join(l.Spent.Unpriced, ", "), args.SettingPrices, args.UserSettingsName, w.cancel())
}

// BlockNotice is the short line shown to the user when a stop is blocked.
func BlockNotice(l *state.Loop, w Why) string {
	why, f := w.Kind, w.Check
	if why == BlockWrongToken {
		return fmt.Sprintf("ralph-loop: iteration %d/%d: %s is not the marker %s, continuing", l.Iteration, l.MaxIterations,
			cutUnits(w.Other, 80), promise.Marker(l.CompletionPromise))
	}
	if why == BlockCheckFailed {
		return fmt.Sprintf("ralph-loop: iteration %d/%d: promise rejected, check %d/%d failed: %s %s", l.Iteration, l.MaxIterations,
			f.Index, f.Total, cutUnits(f.Command, 80), f.Outcome)
	}
	if why == BlockNoWork {
		return fmt.Sprintf("ralph-loop: iteration %d/%d: promise rejected, no real work yet (%d/%d tool calls)", l.Iteration, l.MaxIterations, l.ToolCalls, l.MinToolCalls)
	}
	if why == BlockEarly {
		return earlyNotice(l)
	}
	if why == BlockUnread {
		return fmt.Sprintf("ralph-loop: iteration %d/%d: stop blocked, the agent's output could not be checked: %s", l.Iteration, l.MaxIterations, w.Unread)
	}
	if why == BlockBusy {
		return BusyNotice(l)
	}
	if why == BlockOverdue {
		return OverdueNotice(l, w.Late)
	}
	if w.Resumed {
		return fmt.Sprintf("ralph-loop: iteration %d/%d: the loop resumes after your message", l.Iteration, l.MaxIterations)
	}
	return fmt.Sprintf("ralph-loop: iteration %d/%d: no promise yet, continuing", l.Iteration, l.MaxIterations)
}

// Armed is the notice shown to the user when a loop is armed. blockCap is the host's cap on
// consecutive stop blocks (0: none); stopTimeout is the Stop hook's timeout, which the
// checks must fit in (0: unknown).
func Armed(l *state.Loop, replaced *state.Loop, words Words, blockCap int, stopTimeout time.Duration) string {
	kind := "loop"
	if l.Mode == state.ModeULW {
		kind = "ultrawork loop"
	}
	s := fmt.Sprintf("ralph-loop: %s armed: up to %s", kind, Plural(l.MaxIterations, "iteration", "iterations"))
	if l.ArmedBy == "resume" {
		s = fmt.Sprintf("ralph-loop: %s resumed at iteration %d/%d: up to %s", kind, l.Iteration, l.MaxIterations,
			Plural(l.MaxIterations, "iteration", "iterations"))
	}
	if l.MaxTime > 0 {
		s += fmt.Sprintf(" or %s", time.Duration(l.MaxTime))
	}
	if l.MaxTokens > 0 {
		s += fmt.Sprintf(" or %s tokens", spend.Count(l.MaxTokens))
	}
	if l.MaxCost > 0 {
		s += " or " + spend.Dollars(l.MaxCost)
	}
	s += ", done on " + promise.Marker(l.CompletionPromise)
	if l.MinToolCalls > 0 {
		s += fmt.Sprintf(" after at least %s", Plural(l.MinToolCalls, "tool call", "tool calls"))
	}
	if len(l.Checks) > 0 {
		s += fmt.Sprintf(" and %s (%s each at most", Plural(len(l.Checks), "passing check", "passing checks"), time.Duration(l.CheckTimeout))
		// Checks run with sh -c outside the host's permission prompts: name each, and the
		// file a repository put them in.
		src := l.Sources["check"]
		switch src {
		case "", "flag", "default":
			s += "): "
		default:
			s += ", from " + src + ", run with sh -c without asking): "
		}
		for i, c := range l.Checks {
			if i > 0 {
				s += "; "
			}
			s += "`" + Printable(cutUnits(c, 200)) + "`"
		}
		if need := CheckTime(l); stopTimeout > 0 && need > stopTimeout {
			s += fmt.Sprintf(". Warning: the checks may take up to %s, more than the Stop hook's timeout of %s; checks still running then are "+
				"stopped and fail: lower --check-timeout or raise the Stop hook's \"timeout\" in the settings", need, stopTimeout)
		}
	}
	s += armedExtras(l)
	if replaced != nil {
		s += fmt.Sprintf(" (replaces the loop started %s, now %s)", replaced.StartedAt.Local().Format("15:04:05"), state.Superseded)
	}
	if w := CapWarning(l, words, blockCap); w != "" {
		s += ". " + w
	}
	return s
}

// Printable makes text from a repository or a task safe to show in a terminal: control
// characters (escape sequences, carriage returns, backspaces) and the invisible marks that
// reorder or hide text are written as \x.. or \u.... escapes; everything else is kept.
func Printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		case r >= 0x80 && r < 0xa0, r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfeff:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CheckTime is the longest the loop's checks may take, with a margin for the hook itself.
func CheckTime(l *state.Loop) time.Duration {
	return time.Duration(len(l.Checks))*time.Duration(l.CheckTimeout) + 10*time.Second
}

// CapWarning explains, when it applies, that the host will end a turn before the loop's last
// iteration.
func CapWarning(l *state.Loop, w Words, blockCap int) string {
	if blockCap <= 0 || l.MaxIterations-1 <= blockCap {
		return ""
	}
	if w.Cap.Setting == "" {
		return fmt.Sprintf("Note: %s ends a turn after %d stop blocks in a row and this cannot be raised, so the loop can run at most %s",
			w.display(), blockCap, Plural(blockCap+1, "iteration", "iterations"))
	}
	what := "stop blocks in a row without a tool call"
	if w.Cap.CountsTools {
		what = "stop blocks in a row"
	}
	if !w.Cap.CountsOverride {
		return fmt.Sprintf("Note: %s ends a turn after %d %s (%s); run \"ralph-loop install --host %s\" and start a new session to raise it",
			w.display(), blockCap, what, w.Cap.Setting, w.Name)
	}
	s := fmt.Sprintf("Note: %s ends a turn after %d %s (%s=%d", w.display(), blockCap, what, w.Cap.Setting, w.capValue(blockCap))
	if w.capAtMax(blockCap) {
		s += ", its maximum"
	}
	s += fmt.Sprintf("), so this loop can run at most %s in one turn", Plural(blockCap+1, "iteration", "iterations"))
	if !w.capAtMax(blockCap) {
		s += fmt.Sprintf("; run \"ralph-loop install --host %s\" and start a new session to raise it", w.Name)
	}
	return s
}

// Accepted is the notice shown when the promise ends the loop.
func Accepted(l *state.Loop) string {
	s := fmt.Sprintf("ralph-loop: promise accepted at iteration %d/%d after %s", l.Iteration, l.MaxIterations, Plural(l.ToolCalls, "tool call", "tool calls"))
	if len(l.Checks) > 0 {
		s += fmt.Sprintf(" and %s passed", Plural(len(l.Checks), "check", "checks"))
	}
	s += ": loop complete"
	if l.ToolCalls < l.MinToolCalls {
		s += fmt.Sprintf(" (warning: fewer than the %d required, accepted by --on-promise-no-work=%s)", l.MinToolCalls, l.OnPromiseNoWork)
	}
	return s
}

// TimeUp is the notice shown when the time budget ends the loop.
func TimeUp(l *state.Loop) string {
	return fmt.Sprintf("ralph-loop: the time budget of %s ran out at iteration %d/%d without the promise: loop over", time.Duration(l.MaxTime), l.Iteration, l.MaxIterations)
}

// BudgetOut is the notice shown when the loop's token or cost budget ends it.
func BudgetOut(l *state.Loop) string {
	return fmt.Sprintf("ralph-loop: %s, at iteration %d/%d: loop over", l.EndReason, l.Iteration, l.MaxIterations)
}

// MaxReached is the notice shown when the iteration limit ends the loop.
func MaxReached(l *state.Loop) string {
	return fmt.Sprintf("ralph-loop: iteration limit reached (%d/%d) without the promise: loop over", l.Iteration, l.MaxIterations)
}

// CutReason is the end reason of a loop that the host's block cap cut.
func CutReason(w Words, blockCap int) string {
	what := "stop blocks in a row without a tool call"
	if w.Cap.CountsTools {
		what = "stop blocks in a row"
	}
	if w.Cap.Setting == "" {
		return fmt.Sprintf("%s ends a turn after %d %s and this cannot be raised, so the loop could not go on", w.display(), blockCap, what)
	}
	return fmt.Sprintf("%s ends a turn after %d %s (%s=%d), so the loop could not go on", w.display(), blockCap, what, w.Cap.Setting, w.capValue(blockCap))
}

// CutByHost explains why the loop ended when the host's block cap was about to end the turn.
func CutByHost(l *state.Loop, w Words, blockCap int) string {
	s := fmt.Sprintf("ralph-loop: loop ended at iteration %d/%d: %s", l.Iteration, l.MaxIterations, CutReason(w, blockCap))
	if w.Cap.Setting != "" && !w.capAtMax(blockCap) {
		s += fmt.Sprintf("; run \"ralph-loop install --host %s\" and start a new session to raise the cap", w.Name)
	}
	return s
}

// NoProgressReason is the end reason of a loop whose iteration ended with no reply from the
// model.
func NoProgressReason(w Words) string {
	return w.display() + " ended an iteration without a reply from the model (its loop detector aborted a turn that repeated itself, " +
		"or the turn was interrupted), so the loop stops here instead of going on without the model"
}

// NoProgress is the notice shown when a loop ends because an iteration had no model reply.
func NoProgress(l *state.Loop, w Words) string {
	return fmt.Sprintf("ralph-loop: loop ended at iteration %d/%d without the promise: %s%s", l.Iteration, l.MaxIterations,
		NoProgressReason(w), resumeHint(l, w))
}

// EndHalted is the end reason of a loop whose last turn the host halted with no stop (how:
// the host's words for it), seen at the user's next prompt.
func EndHalted(w Words, how string) string {
	return fmt.Sprintf("%s ended the loop's last turn with no stop (%s), so the loop does not go on with the next prompt", w.display(), how)
}

// NoProgressHalted is the notice shown when the user's prompt finds the loop's last turn
// halted by the host (EndHalted): the loop has ended, and the prompt is answered on its own.
func NoProgressHalted(l *state.Loop, w Words) string {
	return fmt.Sprintf("ralph-loop: loop ended at iteration %d/%d without the promise: %s; this message is answered on its own%s",
		l.Iteration, l.MaxIterations, l.EndReason, resumeHint(l, w))
}

// CommandInterrupted is the notice shown when the user stopped a command of the loop
// (Gemini CLI's Esc), which ended the turn and with it the loop.
func CommandInterrupted(l *state.Loop, w Words) string {
	return fmt.Sprintf("ralph-loop: loop cancelled at iteration %d/%d: you pressed Esc while a command of the loop ran (%s stopped it and ended the turn)%s",
		l.Iteration, l.MaxIterations, w.display(), resumeHint(l, w))
}

// Cancelled is the reason shown when /cancel-ralph ends a loop.
func Cancelled(l *state.Loop) string {
	if l.Unverified != "" {
		return "ralph loop cancelled (its state had been changed outside ralph-loop and could not be verified: " + l.Unverified + ")"
	}
	return fmt.Sprintf("ralph loop cancelled at iteration %d/%d", l.Iteration, l.MaxIterations)
}

// clock is a time of day for people.
func clock(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.Local().Format("15:04:05")
}

// left is how many iterations a loop that ended at l.Iteration has left to a --resume.
func left(l *state.Loop) int {
	n := l.MaxIterations - l.Iteration
	if l.Status == state.SessionEnded || l.Status == state.Cancelled {
		n++ // the iteration in progress was not finished
	}
	return max(n, 0)
}

// resumeHint says how to pick up a loop that did not finish its task.
func resumeHint(l *state.Loop, w Words) string {
	if n := left(l); n > 0 {
		return fmt.Sprintf("; %s --resume picks it up with the %s it had left", w.Arm(), Plural(n, "iteration", "iterations"))
	}
	return "; " + w.Arm() + " --resume --max-iterations N picks it up with N in all"
}

// EndedUnseen tells the user how a loop ended that they did not see end: a cancel from a
// terminal or from inside the session, the session's end, or anything else.
func EndedUnseen(l *state.Loop, w Words) string {
	if l.Unverified != "" {
		return fmt.Sprintf("ralph-loop: this session's loop, whose state could not be verified, was ended at %s by %s", clock(l.EndedAt), EndedBy(l))
	}
	at := fmt.Sprintf("at iteration %d/%d (%s)", l.Iteration, l.MaxIterations, clock(l.EndedAt))
	switch {
	case l.EndedBy == state.ByTerminal:
		return "ralph-loop: you cancelled this session's loop with \"ralph-loop cancel\" in a terminal " + at + resumeHint(l, w)
	case l.EndedBy == state.ByCommand:
		return "ralph-loop: this session's loop was cancelled by \"ralph-loop cancel\", run by a program without a terminal " +
			"(" + notSeen + "; not " + w.cancel() + ") " + at + resumeHint(l, w)
	case l.EndedBy == state.ByInside:
		return "ralph-loop: this session's loop was cancelled by \"ralph-loop cancel\" run inside this session (a tool call or a shell command, not " +
			w.cancel() + ") " + at + resumeHint(l, w)
	case l.Status == state.SessionEnded:
		return "ralph-loop: this session's loop ended with the session " + at + resumeHint(l, w)
	case l.Status == state.PromiseAccepted:
		return "ralph-loop: this session's loop ended: promise accepted " + at
	}
	return fmt.Sprintf("ralph-loop: this session's loop ended %s %s: %s%s", l.Status, at, l.EndReason, resumeHint(l, w))
}

// NoStopSeen says, for an active loop that no stop has reached since it was armed (age
// ago), why that may be and what to do.
func NoStopSeen(w Words, age string) string {
	s := fmt.Sprintf("no stop has reached this loop since it was armed %s ago: expected while the agent's first turn runs; "+
		"if that turn has ended, %s did not run ralph-loop's Stop hook", age, w.display())
	if w.SkipsHooks != "" {
		s += " (" + w.SkipsHooks + ")"
	}
	return s + fmt.Sprintf(": run \"ralph-loop install --host %s\" and start a new session", w.Name)
}

// AlreadyEnded answers a cancel for a loop that had already ended.
func AlreadyEnded(l *state.Loop) string {
	if l.Status == state.Cancelled && l.EndedBy == state.ByUser {
		return fmt.Sprintf("ralph loop cancelled at iteration %d/%d (%s)", l.Iteration, l.MaxIterations, l.EndReason)
	}
	return fmt.Sprintf("ralph-loop: no active loop: the last one ended %s at iteration %d/%d (%s)", l.Status, l.Iteration, l.MaxIterations, l.EndReason)
}

// Yielded is the notice shown when a stop is let through for the user's message.
func Yielded(l *state.Loop, w Words) string {
	return fmt.Sprintf("ralph-loop: loop paused at iteration %d/%d to answer your message; it resumes after that (%s ends it)",
		l.Iteration, l.MaxIterations, w.cancel())
}

// StillActive is the notice shown when a session with an active loop resumes.
func StillActive(l *state.Loop, w Words) string {
	return fmt.Sprintf("ralph-loop: this session's loop is still active at iteration %d/%d and goes on at the next stop (%s ends it)",
		l.Iteration, l.MaxIterations, w.cancel())
}

// CommandNotRecognised answers a prompt that holds a loop command where it cannot be read
// as one (inside text the host put around it).
func CommandNotRecognised(w Words) string {
	return "ralph-loop: this prompt holds a loop command inside text " + w.display() + " put around it, so nothing was started; " +
		"type the command again at the start of the prompt (a long task can be kept in a file and the task can name it)"
}

// Answer is ralph-loop's answer to a loop command it handled in full (the cancel), as the
// host shows it: where it labels it a blocked prompt (Words.AnswerLabel, and the line it
// adds after a block, Words.BlockLabel, with Words.LabelsPrompts), it says those are the
// way the answer is shown, not an error, and that nothing went to the model.
func Answer(answer string, w Words) string {
	if w.AnswerLabel == "" {
		return answer
	}
	labels := fmt.Sprintf("%q", w.AnswerLabel)
	if w.LabelsPrompts && w.BlockLabel != "" {
		labels += fmt.Sprintf(" and %q", w.BlockLabel)
	}
	return fmt.Sprintf("%s (ralph-loop answered %s itself, and nothing went to the model: %s labels such an answer %s, which is no error)",
		answer, w.cancel(), w.display(), labels)
}

// NothingToCancel is the reason shown when /cancel-ralph finds no active loop.
const NothingToCancel = "no active ralph loop in this session"

// ArgError is the reason shown when /ralph-loop has bad arguments, in the form host h takes.
func ArgError(err error, w Words) string {
	return fmt.Sprintf("ralph-loop: %v; nothing was started. Usage: %s %s (%s --help for all)", err, w.Arm(), shortUsage, w.Arm())
}

// shortUsage is the loop commands' usage with the most used flags.
const shortUsage = `"TASK" [--max-iterations N] [--completion-promise TOKEN] [--min-tool-calls N] [--on-promise-no-work reject|warn|accept] [--check CMD]... [--max-time D]`

// Help is the reason shown for /ralph-loop --help.
func Help(w Words) string {
	p := w.sigil()
	return `ralph-loop: keep working on a task, in this session, until it is really done.
usage: ` + p + `ralph-loop "TASK" [flags]   (` + p + `ulw-loop: the same, demanding autonomous, verified work)
       ` + p + `ralph-loop --resume [flags]  (pick up this session's last loop where it ended)
` + args.HelpLines(false) + `
Defaults come from .ralph/settings.json and .ralph/settings.local.json in the project.
` + w.cancel() + ` ends the loop; "ralph-loop status" and "ralph-loop log" in a terminal show it.`
}

// IsContinuation reports whether text is a continuation this package wrote (a blocked stop's
// reason), which hosts that hand it back to their prompt hook (Gemini CLI, Copilot CLI)
// must not take for the user's prompt.
func IsContinuation(text string) bool {
	text = strings.TrimPrefix(text, ULW+"\n\n")
	return strings.HasPrefix(text, continuationPrefix)
}

// continuationPrefix starts every continuation (after the ultrawork preamble).
const continuationPrefix = "ralph-loop: iteration "

// EscHint tells the user of a host that holds commands typed while the agent works how to
// end a loop mid-turn, and what their next message does after Esc.
func EscHint(w Words) string {
	return fmt.Sprintf("%s cannot end the loop while the agent works (%s holds it until the turn ends): press Esc to stop the agent, "+
		"then type %s to end the loop (any other message goes on with it)", w.cancel(), w.display(), w.cancel())
}

// EscEnds is the first block's notice on a host that refuses a slash command typed while the
// agent works (Gemini CLI: "Slash commands cannot be queued") and ends the loop when the user
// interrupts the agent, since that stop comes with no reply.
func EscEnds(w Words) string {
	return fmt.Sprintf("while the agent works, press Esc to end the loop (%s refuses a slash command typed then: \"Slash commands cannot be queued\"; %s works at the idle prompt)",
		w.display(), w.cancel())
}

// AfterInterrupt is the notice of the first stop after the user interrupted a blocked turn
// (Esc) and sent a message that was not the cancel: the loop went on with it.
func AfterInterrupt(l *state.Loop, w Words) string {
	return fmt.Sprintf("the loop went on with your message after the turn you interrupted (Esc, then %s, ends it)", w.cancel())
}

// ContinuationIteration returns the iteration a continuation this package wrote names.
func ContinuationIteration(text string) (int, bool) {
	text = strings.TrimPrefix(text, ULW+"\n\n")
	rest, ok := strings.CutPrefix(text, continuationPrefix)
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "/")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// StaleContinuation is the reason a continuation sent after its loop ended (or went past
// it) is refused: what the user and the agent read instead of it.
func StaleContinuation(l *state.Loop, iteration int) string {
	if l == nil || l.Status != state.Active {
		return fmt.Sprintf("ralph-loop: a continuation of iteration %d, queued by the host before the loop ended, was dropped: the loop is over, nothing more runs for it", iteration)
	}
	return fmt.Sprintf("ralph-loop: a continuation of iteration %d, queued by the host, was dropped: the loop is at iteration %d/%d", iteration, l.Iteration, l.MaxIterations)
}

// BlockLabelNote tells the user, at the first block, that the host's label for the task
// sent back is not an error.
func BlockLabelNote(w Words) string {
	return fmt.Sprintf("(%s shows the task sent back to the agent as %q: that is the loop going on, not an error)", w.display(), w.BlockLabel)
}
