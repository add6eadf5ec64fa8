package codex

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ralph-loop/ralph-loop/hook/args"
)

// Codex runs a hook from hooks.json only once it is trusted: the user's config.toml holds,
// for each handler,
//
//	[hooks.state."<abs hooks.json path>:<event>:<group index>:<handler index>"]
//	trusted_hash = "sha256:<hex>"
//
// where <event> is the event's snake_case label and the hash is of the handler as Codex
// normalises it (TrustHash). An untrusted or changed hook is skipped without a word. This is
// what Codex's own /hooks screen writes; project hooks also need the project to be trusted
// ([projects."<dir>"] trust_level = "trusted"), which Codex asks for when it first starts
// there.

// Handler is one command handler of a hooks.json group, as ralph-loop writes it.
type Handler struct {
	Event   string // "Stop", "UserPromptSubmit", …
	Matcher string // "" for none
	Command string
	Timeout int // seconds; 0 for Codex's default
}

// EventLabel is Codex's snake_case name of a hook event in trust keys ("Stop" → "stop",
// "UserPromptSubmit" → "user_prompt_submit").
func EventLabel(event string) string {
	var b strings.Builder
	for i, r := range event {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// matcherEvents are the events whose groups' matchers Codex reads; for the others it drops
// the matcher before hashing.
var matcherEvents = map[string]bool{"PreToolUse": true, "PostToolUse": true, "PermissionRequest": true, "SessionStart": true,
	"PreCompact": true, "PostCompact": true}

// TrustKey is the key of a handler's entry in config.toml's [hooks.state] table: the hooks
// file's absolute path, the event's label, and the handler's place in the file.
func TrustKey(hooksFile, event string, group, handler int) string {
	return fmt.Sprintf("%s:%s:%d:%d", hooksFile, EventLabel(event), group, handler)
}

// TrustHash is the hash Codex 0.169.0 computes for a command handler (its currentHash in
// "codex app-server" hooks/list): the SHA-256 of the compact JSON, keys sorted, of
// {"event_name", "matcher" (if any), "hooks": [{"type": "command", "command", "timeout"
// (600 when unset), "async": false}]}.
func TrustHash(h Handler) string {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var b strings.Builder
	b.WriteString(`{"event_name":`)
	writeJSONString(&b, EventLabel(h.Event))
	b.WriteString(`,"hooks":[{"async":false,"command":`)
	writeJSONString(&b, h.Command)
	b.WriteString(`,"timeout":` + strconv.Itoa(timeout) + `,"type":"command"}]`)
	if h.Matcher != "" && matcherEvents[h.Event] {
		b.WriteString(`,"matcher":`)
		writeJSONString(&b, h.Matcher)
	}
	b.WriteString("}")
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// writeJSONString writes s as serde_json does: only ", \ and control characters are
// escaped (\b \f \n \r \t, the others as \u00xx); everything else, <, > and & and U+2028
// included, is written as it is.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		case r == utf8.RuneError:
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// Home is Codex's configuration directory: $CODEX_HOME, or ~/.codex ("" when neither is
// known).
func Home(getenv func(string) string) string {
	if d := getenv(HomeEnv); d != "" {
		return d
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".codex")
	}
	return ""
}

// HookCommand is the command line of the hooks for a binary.
func HookCommand(binary string) string {
	return args.Quote(binary) + " hook --host " + Name
}

// IsHookCommand reports whether a hook command line is ralph-loop's Codex hook (from any
// path).
func IsHookCommand(cmd string) bool {
	w, err := args.Split(cmd)
	if err != nil || len(w) != 4 {
		return false
	}
	base := filepath.Base(w[0].Text)
	return (base == "ralph-loop" || base == "ralph-loop.exe") && w[1].Text == "hook" && w[2].Text == "--host" && w[3].Text == Name
}

// hooksFile is the part of hooks.json read here.
type hooksFile struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout *int   `json:"timeout"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// HooksFiles are the hooks.json files Codex reads for a session in dir: the user's, then
// the project's (.codex/hooks.json in dir or a parent, up to the repository's root).
func HooksFiles(getenv func(string) string, dir string) []string {
	var files []string
	if home := Home(getenv); home != "" {
		files = append(files, filepath.Join(home, "hooks.json"))
	}
	for d := dir; d != ""; {
		files = append(files, filepath.Join(d, ".codex", "hooks.json"))
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return files
}

// StopTimeout returns the timeout of ralph-loop's Stop hook in the hooks.json files (the
// longest, if there are several), and whether one was found.
func StopTimeout(files []string) (time.Duration, bool) {
	best, found := 0, false
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var hf hooksFile
		if json.Unmarshal(data, &hf) != nil {
			continue
		}
		for _, g := range hf.Hooks["Stop"] {
			for _, h := range g.Hooks {
				if h.Type != "command" || !IsHookCommand(h.Command) {
					continue
				}
				t := DefaultTimeout
				if h.Timeout != nil {
					t = max(*h.Timeout, 1)
				}
				if !found || t > best {
					best, found = t, true
				}
			}
		}
	}
	return time.Duration(best) * time.Second, found
}

func stopTimeout(getenv func(string) string, cwd string) time.Duration {
	if d, ok := StopTimeout(HooksFiles(getenv, cwd)); ok {
		return d
	}
	return DefaultTimeout * time.Second
}

// TrustEntry is one handler's trust as config.toml records it.
type TrustEntry struct {
	Key, Hash string
}

// Trusted reports which of the handlers a hooks.json file holds are ralph-loop's and
// whether each is trusted by the config.toml text given: the handlers' entries, and those
// missing or with another hash.
func Trusted(hooksPath string, hooksJSON []byte, configTOML string) (want []TrustEntry, missing []TrustEntry, err error) {
	var hf hooksFile
	if err := json.Unmarshal(hooksJSON, &hf); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", hooksPath, err)
	}
	have := TrustedHashes(configTOML)
	events := make([]string, 0, len(hf.Hooks))
	for e := range hf.Hooks {
		events = append(events, e)
	}
	sort.Strings(events)
	for _, e := range events {
		for gi, g := range hf.Hooks[e] {
			for hi, h := range g.Hooks {
				if h.Type != "command" || !IsHookCommand(h.Command) {
					continue
				}
				t := 0
				if h.Timeout != nil {
					t = max(*h.Timeout, 1)
				}
				entry := TrustEntry{Key: TrustKey(hooksPath, e, gi, hi), Hash: TrustHash(Handler{Event: e, Matcher: g.Matcher, Command: h.Command, Timeout: t})}
				want = append(want, entry)
				if have[entry.Key] != entry.Hash {
					missing = append(missing, entry)
				}
			}
		}
	}
	return want, missing, nil
}

// ErrTOML means config.toml could not be read as far as the trust entries go.
var ErrTOML = errors.New("unreadable config.toml")
