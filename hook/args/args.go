// Package args parses the arguments of /ralph-loop and of "ralph-loop start": POSIX shell
// word rules (quotes and backslashes, never any expansion), then the loop flags.
package args

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// MaxCount bounds --max-iterations and --min-tool-calls.
const MaxCount = 1_000_000

// ErrHelp is returned when the arguments ask for help.
var ErrHelp = errors.New("help requested")

// Word is one shell word.
type Word struct {
	Text string
	// Quoted is true when the word starts with a quote or a backslash: such a word is never
	// taken for a flag, so `"--fast is broken"` can be a task.
	Quoted bool
	// NewlineBefore is true when the blank space before the word held a newline.
	NewlineBefore bool
}

// Split breaks s into words the way a POSIX shell does, without expanding anything: '…'
// keeps everything literally, "…" keeps everything but \" \\ \$ \` and \newline, and
// outside quotes a backslash keeps the next character (a backslash-newline joins lines).
// Blanks are space, tab, CR and newline.
func Split(s string) ([]Word, error) {
	var (
		words   []Word
		cur     strings.Builder
		inWord  bool
		quoted  bool
		newline bool
	)
	end := func() {
		if inWord {
			words = append(words, Word{Text: cur.String(), Quoted: quoted, NewlineBefore: newline})
			cur.Reset()
			inWord, quoted, newline = false, false, false
		}
	}
	start := func(q bool) {
		if !inWord {
			inWord, quoted = true, q
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\r', '\n':
			end()
			if c == '\n' {
				newline = true
			}
		case '\\':
			if i+1 == len(s) {
				start(false)
				cur.WriteByte('\\')
				continue
			}
			if s[i+1] == '\n' { // line continuation
				i++
				continue
			}
			start(true)
			i++
			cur.WriteByte(s[i])
		case '\'':
			start(true)
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' quote at column %d (write it as \\' or put the task in \"…\")", column(s, i))
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case '"':
			start(true)
			j := i + 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					switch s[j+1] {
					case '"', '\\', '$', '`':
						j++
					case '\n':
						j++
						continue
					}
				}
				cur.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated \" quote at column %d", column(s, i))
			}
			i = j
		default:
			start(false)
			cur.WriteByte(c)
		}
	}
	end()
	return words, nil
}

// column is the 1-based character column of byte i in its line.
func column(s string, i int) int {
	line := s[strings.LastIndexByte(s[:i], '\n')+1 : i]
	return len([]rune(line)) + 1
}

// Options says which extra flags are allowed.
type Options struct {
	// Session allows --session ID, --host NAME and --ulw (for "ralph-loop start").
	Session bool
}

// Parsed is the outcome of Parse.
type Parsed struct {
	Config state.Config
	// Given lists the flags set explicitly, by name without dashes.
	Given   map[string]bool
	Session string
	// Host is the host named with --host ("ralph-loop start"), unchecked.
	Host string
	// Resume asks to pick up the session's last loop instead of a new task.
	Resume bool
	// TaskFile is the file the task is to be read from (--task-file), not read yet: see
	// ReadTask.
	TaskFile string
	// values are the loop flags' values as typed, in order, for Resolve to lay over the
	// settings files.
	values [][2]string
}

// Parse reads loop flags and the task from words. Unquoted words that start with "--" are
// flags, in the forms --flag value and --flag=value, until a bare "--"; all other words
// form the task, joined by a space, or by a newline where the original had one. A lone
// unquoted "help" asks for help, like --help.
func Parse(words []Word, opt Options) (Parsed, error) {
	p := Parsed{Config: state.DefaultConfig(), Given: map[string]bool{}}
	if len(words) == 1 && !words[0].Quoted && words[0].Text == "help" {
		return p, ErrHelp
	}
	var task strings.Builder
	flags := true
	newline := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		newline = newline || w.NewlineBefore
		if flags && !w.Quoted && strings.HasPrefix(w.Text, "-") && w.Text != "-" {
			if w.Text == "--" {
				flags = false
				continue
			}
			used, err := p.flag(words[i:], opt)
			if err != nil {
				return p, err
			}
			for _, v := range words[i+1 : i+used] {
				newline = newline || v.NewlineBefore
			}
			i += used - 1
			continue
		}
		if task.Len() > 0 {
			if newline {
				task.WriteByte('\n')
			} else {
				task.WriteByte(' ')
			}
		}
		task.WriteString(w.Text)
		newline = false
	}
	p.Config.Task = task.String()
	return p, p.checkTask()
}

// flag reads the flag words[0] names, with its value (in the word or the next one), into
// p, and returns how many words it took.
func (p *Parsed) flag(words []Word, opt Options) (used int, err error) {
	name, value, hasValue := strings.Cut(words[0].Text, "=")
	if name == "--help" || name == "-h" {
		return 0, ErrHelp
	}
	key := strings.TrimPrefix(name, "--")
	f, ok := lookup(key, opt)
	if !strings.HasPrefix(name, "--") || !ok {
		if s := suggest(strings.TrimLeft(name, "-"), opt); s != "" {
			return 0, fmt.Errorf("unknown flag %s (did you mean --%s?)", name, s)
		}
		return 0, fmt.Errorf("unknown flag %s (quote task words that start with '-')", name)
	}
	if p.Given[key] && !f.Repeatable {
		return 0, fmt.Errorf("%s is given twice", name)
	}
	used = 1
	switch {
	case f.Arg == "" && hasValue && f.NoSettings:
		return 0, fmt.Errorf("%s takes no value", name)
	case f.Arg != "" && !hasValue && len(words) == 1:
		return 0, fmt.Errorf("%s needs a value", name)
	case f.Arg != "" && !hasValue:
		value, used = words[1].Text, 2
	}
	if err := f.set(p, value); err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	if !f.NoSettings {
		// A switch that settings can turn on can be turned off again with --name=false.
		if f.Arg == "" && value == "" {
			value = "true"
		}
		p.values = append(p.values, [2]string{key, value})
	}
	p.Given[key] = true
	return used, nil
}

// checkTask checks that the task comes from one place: typed, or --task-file, or (with
// --resume) the last loop's.
func (p *Parsed) checkTask() error {
	typed := strings.TrimSpace(p.Config.Task) != ""
	switch {
	case p.Resume && (typed || p.TaskFile != ""):
		return errors.New("--resume takes no task: it picks up the last loop's")
	case p.Resume:
		return nil
	case typed && p.TaskFile != "":
		return fmt.Errorf("a task and --%s are given: the task comes from one or the other", FlagTaskFile)
	case !typed && p.TaskFile == "":
		return errors.New("no task given")
	}
	return nil
}

// MaxTaskFile bounds the file --task-file reads.
const MaxTaskFile = 1 << 20

// ReadTask reads the task from the file --task-file named, relative to dir (the session's
// directory), into p.Config.Task, and records where it came from. It does nothing when no
// file was named. Only a regular file (maybe through a link) of at most MaxTaskFile bytes
// with some text in it is taken.
func ReadTask(p *Parsed, dir string) error {
	if p.TaskFile == "" {
		return nil
	}
	path := p.TaskFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := state.ReadRegular(path, MaxTaskFile)
	if err != nil {
		return fmt.Errorf("--%s: %w", FlagTaskFile, err)
	}
	if strings.TrimSpace(string(data)) == "" {
		return fmt.Errorf("--%s: %s holds no task", FlagTaskFile, path)
	}
	p.Config.Task = strings.TrimSuffix(string(data), "\n")
	p.Config.TaskFrom = path
	return nil
}

// validate refuses settings that contradict each other.
func validate(c state.Config) error {
	if c.MinIterations > c.MaxIterations {
		return fmt.Errorf("--%s %d is more than --%s %d: the promise could never be accepted", FlagMinIterations, c.MinIterations,
			FlagMaxIterations, c.MaxIterations)
	}
	return nil
}

// Flag names, without dashes.
const (
	FlagMaxIterations     = "max-iterations"
	FlagCompletionPromise = "completion-promise"
	FlagPromiseMatch      = "promise-match"
	FlagMinToolCalls      = "min-tool-calls"
	FlagOnPromiseNoWork   = "on-promise-no-work"
	FlagMaxTime           = "max-time"
	FlagMaxTokens         = "max-tokens"
	FlagMaxCost           = "max-cost"
	FlagCheck             = "check"
	FlagCheckTimeout      = "check-timeout"
	FlagCheckOutputChars  = "check-output-chars"
	FlagCheckHint         = "check-hint"
	FlagMinIterations     = "min-iterations"
	FlagMaxStalls         = "max-stalls"
	FlagMaxWait           = "max-wait"
	FlagCheckpoint        = "checkpoint"
	FlagNotify            = "notify"
	FlagTaskFile          = "task-file"
	FlagResume            = "resume"
	FlagSession           = "session"
	FlagHost              = "host"
	FlagULW               = "ulw"
)

// MaxCheckOutputChars bounds --check-output-chars: the output shares the host's cap on hook
// output with the rest of the continuation.
const MaxCheckOutputChars = 8000

// known reports whether a settings key names a loop flag.
func known(key string) bool {
	f, ok := lookup(key, Options{})
	return ok && !f.NoSettings
}

// setConfig sets one loop setting from its text.
func setConfig(c *state.Config, key, value string) error {
	f, ok := lookup(key, Options{})
	if !ok || f.NoSettings {
		return fmt.Errorf("unknown setting %q", key)
	}
	p := Parsed{Config: *c}
	err := f.set(&p, value)
	*c = p.Config
	return err
}

// ParseDuration parses a positive duration such as 45m, 1h30m or 2d (days are 24h).
func ParseDuration(s string) (time.Duration, error) {
	t := s
	days := time.Duration(0)
	if i := strings.IndexByte(t, 'd'); i > 0 {
		n, err := strconv.ParseUint(t[:i], 10, 16)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration such as 90s, 45m, 2h or 1d", s)
		}
		days, t = time.Duration(n)*24*time.Hour, t[i+1:]
	}
	d := time.Duration(0)
	if t != "" {
		var err error
		if d, err = time.ParseDuration(t); err != nil {
			return 0, fmt.Errorf("%q is not a duration such as 90s, 45m, 2h or 1d", s)
		}
	}
	if d+days <= 0 {
		return 0, fmt.Errorf("%q must be longer than 0", s)
	}
	return d + days, nil
}

// count parses a decimal count (leading zeros allowed: "08" is 8) from lo to hi.
func count(s string, lo, hi int) (int, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > uint64(hi) {
		if err == nil || errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%q is too large (at most %d)", s, hi)
		}
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	if int(n) < lo {
		return 0, fmt.Errorf("%q must be at least %d", s, lo)
	}
	return int(n), nil
}

// Quote returns s as one shell word that Split (and any POSIX shell) reads back as s.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
