package claudeshape

import (
	"io"
	"unicode/utf8"
)

// Output is the hook output object of the hosts whose protocol has Claude Code's shape
// (Claude Code, Codex, Gemini CLI, and Qwen Code and Factory Droid through Claude Code's
// encoder). Each host fills only the fields its events accept (Codex refuses any other);
// empty fields are left out.
type Output struct {
	Decision           string    `json:"decision,omitempty"`
	Reason             string    `json:"reason,omitempty"`
	SystemMessage      string    `json:"systemMessage,omitempty"`
	HookSpecificOutput *Specific `json:"hookSpecificOutput,omitempty"`
}

// Specific is Output's hookSpecificOutput: context added to a prompt, or a tool call's
// permission decision.
type Specific struct {
	HookEventName            string `json:"hookEventName"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// WriteOutput writes out as the hook's output JSON (nothing for an empty one) and returns
// the hook's exit code: 0, or 1 with the error when the output could not be written. It is
// wire.WriteJSON(w, out), written without encoding/json's reflection (a Stop hook's reply; its
// test holds the two to the same bytes).
func WriteOutput(w io.Writer, out Output) (int, error) {
	if out == (Output{}) {
		return 0, nil
	}
	if _, err := w.Write(out.appendJSON(make([]byte, 0, 512+len(out.Reason)))); err != nil {
		return 1, err
	}
	return 0, nil
}

// appendJSON appends o as WriteJSON writes it: the fields in order, empty ones left out,
// then a newline.
func (o *Output) appendJSON(b []byte) []byte {
	b = append(b, '{')
	n := 0
	field := func(name, v string) {
		if v == "" {
			return
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = appendString(b, v)
	}
	field("decision", o.Decision)
	field("reason", o.Reason)
	field("systemMessage", o.SystemMessage)
	if h := o.HookSpecificOutput; h != nil {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, `"hookSpecificOutput":{"hookEventName":`...)
		b = appendString(b, h.HookEventName)
		n = 1
		field("additionalContext", h.AdditionalContext)
		field("permissionDecision", h.PermissionDecision)
		field("permissionDecisionReason", h.PermissionDecisionReason)
		b = append(b, '}')
	}
	return append(b, '}', '\n')
}

// appendString appends s as a JSON string as encoding/json writes it without HTML escaping:
// quotes, backslashes and control characters escaped, invalid UTF-8 as U+FFFD, and the line
// and paragraph separators escaped.
func appendString(b []byte, s string) []byte {
	const digits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', digits[c>>4], digits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', digits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
