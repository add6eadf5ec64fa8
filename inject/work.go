package inject

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/args"
	"github.com/ralph-loop/ralph-loop/promise"
	"github.com/ralph-loop/ralph-loop/state"
)

// The texts of the stall breaker (--max-stalls), the checkpoints (--checkpoint) and a
// promise made before --min-iterations.

// EndStalled is the end reason of a loop the stall breaker ended: how many iterations in a
// row made no progress, and what they did instead.
func EndStalled(l *state.Loop) string {
	w := l.Work
	var saw []string
	switch {
	case w.Tools == 0:
		saw = append(saw, "no tool call")
	case w.Repo != "":
		saw = append(saw, fmt.Sprintf("%s, none of which changed a file of %s", Plural(w.Tools, "tool call", "tool calls"), w.Repo))
	default:
		saw = append(saw, Plural(w.Tools, "tool call", "tool calls"))
	}
	if w.Same > 0 {
		saw = append(saw, fmt.Sprintf("the same check result %s", Plural(w.Same, "time", "times")))
	}
	return fmt.Sprintf("%s in a row without progress (--max-stalls %d): %s", Plural(w.Stalls, "iteration", "iterations"), l.MaxStalls,
		strings.Join(saw, "; "))
}

// Stalled is the notice shown when the stall breaker ends a loop.
func Stalled(l *state.Loop, w Words) string {
	return fmt.Sprintf("ralph-loop: loop ended NO_PROGRESS at iteration %d/%d: %s%s", l.Iteration, l.MaxIterations, l.EndReason, resumeHint(l, w))
}

// early is what the agent reads when its promise came before --min-iterations.
func early(b *strings.Builder, l *state.Loop) {
	fmt.Fprintf(b, "you output the completion marker in iteration %d, but this loop accepts it only from iteration %d on (--min-iterations). "+
		"Check your work once more as if someone else had done it: run it, test it, read the changes again, and fix what is not right.\n",
		l.Iteration-1, l.MinIterations)
}

// ReasonEarly is for a promise made before --min-iterations.
func ReasonEarly(l *state.Loop) string {
	return fmt.Sprintf("promise found in iteration %d, before iteration %d (--min-iterations); continuing with iteration %d/%d",
		l.Iteration-1, l.MinIterations, l.Iteration, l.MaxIterations)
}

// earlyNotice is the user's line for a promise made before --min-iterations.
func earlyNotice(l *state.Loop) string {
	return fmt.Sprintf("ralph-loop: iteration %d/%d: promise noted, accepted from iteration %d on (--min-iterations), continuing",
		l.Iteration, l.MaxIterations, l.MinIterations)
}

// NoteNoWorkTree says why a loop's work tree is not recorded (err from finding it).
func NoteNoWorkTree(dir string, err error) string {
	return fmt.Sprintf("%s: %v", dir, err)
}

// NoteTreeFailed is the event log's note for a stop whose work tree could not be recorded.
func NoteTreeFailed(err error) string {
	return fmt.Sprintf("the work tree could not be recorded: %v", err)
}

// CheckpointMessage is the message of a checkpoint commit: iteration n of the loop (0:
// when it was armed).
func CheckpointMessage(l *state.Loop, n int) string {
	head := fmt.Sprintf("ralph-loop: loop %s, iteration %d/%d", l.LoopID, n, l.MaxIterations)
	if n == 0 {
		head = fmt.Sprintf("ralph-loop: loop %s armed", l.LoopID)
	}
	return fmt.Sprintf("%s\n\nsession %s, promise %s\ntask: %s\n", head, l.SessionID, promise.Marker(l.CompletionPromise), firstLine(l.Task, 200))
}

// armedExtras is what the arming notice adds for the task file, --min-iterations and the
// checkpoints.
func armedExtras(l *state.Loop) string {
	var s string
	if l.TaskFrom != "" {
		s += fmt.Sprintf("; the task was read from %s (%d bytes) and is kept as it is now", Printable(l.TaskFrom), len(l.Task))
	}
	if l.MinIterations > 1 {
		s += fmt.Sprintf("; a promise counts from iteration %d on", l.MinIterations)
	}
	if l.Checkpoint {
		if l.Work.Head != "" {
			s += fmt.Sprintf("; each iteration is recorded under refs/ralph-loop/%s/ in %s (\"ralph-loop log\", \"ralph-loop diff %s\")",
				l.LoopID, Printable(l.Work.Repo), l.LoopID)
		} else {
			s += fmt.Sprintf("; no checkpoints: %s", Printable(l.Work.Note))
		}
	}
	if l.Notify {
		s += "; you will be notified when it ends"
	}
	return s + fromProject(l)
}

// fromProject names the loop's settings a project's settings file gave (a file anyone
// working in the project can write, the agent too), each with the file, and the user's own
// settings such a file holds that are not used there (the prices of models). Checks are
// named with their file where they are listed.
func fromProject(l *state.Loop) string {
	var set, unused []string
	keys := make([]string, 0, len(l.Sources))
	for k := range l.Sources {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		src := l.Sources[k]
		switch {
		case src == "" || src == "default" || src == "flag" || k == "check":
		case k == "prices" || k == "unpriced":
			unused = append(unused, fmt.Sprintf("%q (%s)", k, src))
		default:
			set = append(set, fmt.Sprintf("--%s %s (%s)", k, args.Show(&l.Config, k), src))
		}
	}
	var s string
	if len(set) > 0 {
		s += "; from the project's settings: " + strings.Join(set, ", ")
	}
	if len(unused) > 0 {
		s += fmt.Sprintf("; not used: %s, which only your own settings (%s) set", strings.Join(unused, ", "), args.UserSettingsName)
	}
	return s
}

// firstLine is the first line of s, cut to n characters.
func firstLine(s string, n int) string {
	line, _, more := strings.Cut(s, "\n")
	if units(line) > n {
		return cutUnits(line, n-1) + "…"
	}
	if more {
		return line + " …"
	}
	return line
}

// HostNotes says, for start's help, where what a loop does depends on its host (the long
// form is docs/hosts.md's table).
const HostNotes = "Every loop flag works on every host. The stall breaker counts a changed file only in a git work tree " +
	"(elsewhere an iteration with a tool call counts as progress), and --checkpoint records nothing outside one. " +
	"A turn the model's API refused pauses the loop (PAUSED) where the host says so: Claude Code and Qwen Code " +
	"(StopFailure; Qwen Code not in -p runs) and Cursor (a stop with status error); on Gemini CLI and Factory Droid " +
	"the stop with no reply ends it NO_PROGRESS (resumable); Codex, Copilot CLI, opencode and Kilo Code say nothing " +
	"of it, and the loop waits for the next prompt. Codex's Interrupt (Esc, Ctrl-C) ends the loop, resumable. " +
	"The host's own active goal is named at arming on Claude Code (/goal) and Codex (as its rollout shows it); the " +
	"other hosts have none."
