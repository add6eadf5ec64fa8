// Package args parses the arguments of /ralph-loop and of "ralph-loop start": POSIX shell
// word rules (quotes and backslashes, never any expansion), then the loop flags.
package args

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ralph-loop/ralph-loop/promise"
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
	// Session allows --session ID (for "ralph-loop start").
	Session bool
}

// Parsed is the outcome of Parse.
type Parsed struct {
	Config state.Config
	// Given lists the flags set explicitly, by name without dashes.
	Given   map[string]bool
	Session string
}

// Parse reads loop flags and the task from words. Unquoted words that start with "--" are
// flags, in the forms --flag value and --flag=value, until a bare "--"; all other words
// form the task, joined by a space, or by a newline where the original had one.
func Parse(words []Word, opt Options) (Parsed, error) {
	p := Parsed{Config: state.DefaultConfig(), Given: map[string]bool{}}
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
			name, value, hasValue := strings.Cut(w.Text, "=")
			if name == "--help" || name == "-h" {
				return p, ErrHelp
			}
			if !strings.HasPrefix(name, "--") || !known(name, opt) {
				return p, fmt.Errorf("unknown flag %s (quote task words that start with '-')", name)
			}
			key := name[2:]
			if p.Given[key] {
				return p, fmt.Errorf("%s is given twice", name)
			}
			if !hasValue {
				if i+1 == len(words) {
					return p, fmt.Errorf("%s needs a value", name)
				}
				i++
				value = words[i].Text
				newline = newline || words[i].NewlineBefore
			}
			if err := p.set(key, value); err != nil {
				return p, fmt.Errorf("%s: %w", name, err)
			}
			p.Given[key] = true
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
	if strings.TrimSpace(p.Config.Task) == "" {
		return p, errors.New("no task given")
	}
	return p, nil
}

// Flag names, without dashes.
const (
	FlagMaxIterations     = "max-iterations"
	FlagCompletionPromise = "completion-promise"
	FlagMinToolCalls      = "min-tool-calls"
	FlagOnPromiseNoWork   = "on-promise-no-work"
	FlagSession           = "session"
)

func known(name string, opt Options) bool {
	switch name[2:] {
	case FlagMaxIterations, FlagCompletionPromise, FlagMinToolCalls, FlagOnPromiseNoWork:
		return true
	case FlagSession:
		return opt.Session
	}
	return false
}

func (p *Parsed) set(key, value string) error {
	var err error
	switch key {
	case FlagMaxIterations:
		p.Config.MaxIterations, err = count(value, 1)
	case FlagMinToolCalls:
		p.Config.MinToolCalls, err = count(value, 0)
	case FlagCompletionPromise:
		err = promise.Validate(value)
		p.Config.CompletionPromise = value
	case FlagOnPromiseNoWork:
		switch value {
		case state.NoWorkReject, state.NoWorkWarn, state.NoWorkAccept:
			p.Config.OnPromiseNoWork = value
		default:
			err = fmt.Errorf("%q is not one of reject, warn, accept", value)
		}
	case FlagSession:
		err = state.ValidSessionID(value)
		p.Session = value
	}
	return err
}

// count parses a decimal count (leading zeros allowed: "08" is 8) of at least lo.
func count(s string, lo int) (int, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > MaxCount {
		if err == nil || errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%q is too large (at most %d)", s, MaxCount)
		}
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	if int(n) < lo {
		return 0, fmt.Errorf("%q must be at least %d", s, lo)
	}
	return int(n), nil
}

// Usage is the one-paragraph help for /ralph-loop.
const Usage = `usage: /ralph-loop "TASK" [--max-iterations N (default 25)] [--completion-promise TOKEN (default DONE)] [--min-tool-calls N (default 1)] [--on-promise-no-work reject|warn|accept (default reject)]`

// Quote returns s as one shell word that Split (and any POSIX shell) reads back as s.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
