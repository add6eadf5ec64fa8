package codex

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
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
var matcherEvents = []string{"PreToolUse", "PostToolUse", "PermissionRequest", "SessionStart", "PreCompact", "PostCompact"}

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
	if h.Matcher != "" && slices.Contains(matcherEvents, h.Event) {
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

// TrustEntry is one handler's trust as config.toml records it.
type TrustEntry struct {
	Key, Hash string
	// Event and Ours say whose handler it is (Trusted).
	Event string
	Ours  bool
}

// Handlers lists the command handlers of a hooks.json file with their trust keys and
// hashes, ours telling which are ralph-loop's. Empty content has none.
func Handlers(hooksPath string, hooksJSON []byte, ours func(cmd string) bool) ([]TrustEntry, error) {
	if len(strings.TrimSpace(string(hooksJSON))) == 0 {
		return nil, nil
	}
	var hf hooksFile
	if err := json.Unmarshal(hooksJSON, &hf); err != nil {
		return nil, fmt.Errorf("read %s: %w", hooksPath, err)
	}
	events := make([]string, 0, len(hf.Hooks))
	for e := range hf.Hooks {
		events = append(events, e)
	}
	sort.Strings(events)
	var out []TrustEntry
	for _, e := range events {
		for gi, g := range hf.Hooks[e] {
			for hi, h := range g.Hooks {
				if h.Type != "command" {
					continue
				}
				t := 0
				if h.Timeout != nil {
					t = max(*h.Timeout, 1)
				}
				out = append(out, TrustEntry{Key: TrustKey(hooksPath, e, gi, hi), Event: e, Ours: ours(h.Command),
					Hash: TrustHash(Handler{Event: e, Matcher: g.Matcher, Command: h.Command, Timeout: t})})
			}
		}
	}
	return out, nil
}

// Retrust returns config.toml with the trust of a hooks file brought from what it held
// (before) to what it will hold (after): ralph-loop's handlers in after trusted, the
// entries of its handlers that are gone removed, and the other handlers that moved (a group
// before them removed) keeping their trust under their new keys. Nothing else changes.
func Retrust(config string, before, after []TrustEntry) (string, error) {
	now := map[string]TrustEntry{}
	for _, e := range after {
		now[e.Key] = e
	}
	var gone []string
	for _, e := range before {
		if n, ok := now[e.Key]; e.Ours && (!ok || !n.Ours || n.Hash != e.Hash) {
			gone = append(gone, e.Key)
		}
	}
	out, err := RemoveTrust(config, gone)
	if err != nil {
		return config, err
	}
	// The user's handlers, per event, in order: a handler that moved is the one with the
	// same hash at the same rank among the others.
	renames := map[string]string{}
	trusted := TrustedHashes(out)
	rank := func(l []TrustEntry) map[string][]TrustEntry {
		m := map[string][]TrustEntry{}
		for _, e := range l {
			if !e.Ours {
				m[e.Event] = append(m[e.Event], e)
			}
		}
		return m
	}
	was, is := rank(before), rank(after)
	for ev, l := range was {
		for i, e := range l {
			if i < len(is[ev]) && is[ev][i].Hash == e.Hash && is[ev][i].Key != e.Key && trusted[e.Key] == e.Hash {
				renames[e.Key] = is[ev][i].Key
			}
		}
	}
	if len(renames) > 0 {
		// A stale table at a new key would make the key appear twice.
		var stale []string
		for _, to := range renames {
			if _, ok := trusted[to]; ok {
				if _, moving := renames[to]; !moving {
					stale = append(stale, to)
				}
			}
		}
		if out, err = RemoveTrust(out, stale); err != nil {
			return config, err
		}
		if out, err = RenameTrust(out, renames); err != nil {
			return config, err
		}
	}
	var set []TrustEntry
	for _, e := range after {
		if e.Ours {
			set = append(set, e)
		}
	}
	return SetTrust(out, set)
}

// ErrTOML means config.toml could not be read as far as the trust entries go.
var ErrTOML = errors.New("unreadable config.toml")
