package codex

import (
	"fmt"
	"strconv"
	"strings"
)

// config.toml is edited as text, line by line, for one kind of table only: the
// [hooks.state."KEY"] tables that hold hook trust, in the form Codex's /hooks screen writes.
// Everything else in the file is kept byte for byte. A file that spells the hooks state any
// other way (an inline table, dotted keys) is not edited: ErrTOML, and the caller says what
// the user does instead, rather than risk a duplicate key that would stop Codex loading it.

// tomlLine is one line of config.toml as far as the trust tables go.
type tomlLine struct {
	text string
	// header: the line opens a table; table is its dotted path as written, stateKey the
	// KEY of a [hooks.state."KEY"] header ("" for other tables).
	header   bool
	table    string
	stateKey string
	// key is the bare key of a key = value line ("" for others); value its value.
	key, value string
}

// parseTOML splits config.toml into lines and checks that hook state appears only as
// [hooks.state."KEY"] tables.
func parseTOML(text string) ([]tomlLine, error) {
	raw := strings.SplitAfter(text, "\n")
	if len(raw) > 0 && raw[len(raw)-1] == "" {
		raw = raw[:len(raw)-1]
	}
	lines := make([]tomlLine, 0, len(raw))
	table := ""
	inMulti := ""
	for i, r := range raw {
		ln := tomlLine{text: r}
		s := strings.TrimSpace(r)
		if inMulti != "" {
			if strings.Count(s, inMulti)%2 == 1 {
				inMulti = ""
			}
			lines = append(lines, ln)
			continue
		}
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(s, q)%2 == 1 {
				inMulti = q
			}
		}
		switch {
		case strings.HasPrefix(s, "[["):
			table = "[[" // an array of tables: nothing of ours
			ln.header, ln.table = true, table
		case strings.HasPrefix(s, "["):
			end := strings.LastIndexByte(s, ']')
			if end < 0 {
				return nil, fmt.Errorf("%w: line %d: %q", ErrTOML, i+1, s)
			}
			table = strings.TrimSpace(s[1:end])
			ln.header, ln.table = true, table
			if rest, ok := strings.CutPrefix(table, "hooks.state."); ok {
				k, tail, err := tomlString(rest)
				if err != nil || strings.TrimSpace(tail) != "" {
					return nil, fmt.Errorf("%w: line %d: hook state table %q is not [hooks.state.\"KEY\"]", ErrTOML, i+1, s)
				}
				ln.stateKey = k
			}
		case s == "" || strings.HasPrefix(s, "#"):
		default:
			k, v, ok := strings.Cut(s, "=")
			k = strings.TrimSpace(k)
			if !ok {
				break
			}
			ln.key, ln.value = k, strings.TrimSpace(v)
			first, _, _ := strings.Cut(k, ".")
			first = strings.Trim(strings.TrimSpace(first), `"'`)
			switch {
			case table == "" && first == "hooks",
				table == "hooks" && first == "state",
				table == "hooks.state":
				return nil, fmt.Errorf("%w: line %d: hook state written as %q; only [hooks.state.\"KEY\"] tables are edited", ErrTOML, i+1, s)
			}
		}
		lines = append(lines, ln)
	}
	return lines, nil
}

// tomlString reads a TOML basic or literal string at the start of s; it returns the string
// and what follows it.
func tomlString(s string) (string, string, error) {
	switch {
	case strings.HasPrefix(s, "'"):
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", fmt.Errorf("unterminated string")
		}
		return s[1 : 1+end], s[2+end:], nil
	case strings.HasPrefix(s, `"`):
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				v, err := strconv.Unquote(s[:i+1])
				if err != nil {
					return "", "", err
				}
				return v, s[i+1:], nil
			}
		}
		return "", "", fmt.Errorf("unterminated string")
	}
	return "", "", fmt.Errorf("not a string")
}

// tomlQuote writes s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TrustedHashes returns the trusted_hash of each [hooks.state."KEY"] table in config.toml
// (nothing if the file spells hook state another way).
func TrustedHashes(config string) map[string]string {
	lines, err := parseTOML(config)
	out := map[string]string{}
	if err != nil {
		return out
	}
	key := ""
	for _, ln := range lines {
		switch {
		case ln.header:
			key = ln.stateKey
		case key != "" && ln.key == "trusted_hash":
			if v, tail, err := tomlString(ln.value); err == nil && (strings.TrimSpace(tail) == "" || strings.HasPrefix(strings.TrimSpace(tail), "#")) {
				out[key] = v
			}
		}
	}
	return out
}

// SetTrust returns config.toml with a trusted_hash for each entry: an existing
// [hooks.state."KEY"] table gets its trusted_hash set (its other keys kept), a missing one
// is added at the end.
func SetTrust(config string, entries []TrustEntry) (string, error) {
	lines, err := parseTOML(config)
	if err != nil {
		return config, err
	}
	want := map[string]string{}
	for _, e := range entries {
		want[e.Key] = e.Hash
	}
	done := map[string]bool{}
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		b.WriteString(ln.text)
		h, ok := want[ln.stateKey]
		if !ln.header || !ok || done[ln.stateKey] {
			continue
		}
		done[ln.stateKey] = true
		if !strings.HasSuffix(ln.text, "\n") {
			b.WriteString("\n")
		}
		b.WriteString("trusted_hash = " + tomlQuote(h) + "\n")
		for i+1 < len(lines) && !lines[i+1].header {
			i++
			if lines[i].key != "trusted_hash" {
				b.WriteString(lines[i].text)
			}
		}
	}
	out := b.String()
	for _, e := range entries {
		if done[e.Key] {
			continue
		}
		done[e.Key] = true
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if out != "" && !strings.HasSuffix(out, "\n\n") {
			out += "\n"
		}
		out += "[hooks.state." + tomlQuote(e.Key) + "]\ntrusted_hash = " + tomlQuote(e.Hash) + "\n"
	}
	return out, nil
}

// RemoveTrust returns config.toml without the trusted_hash of the keys given; a table left
// with nothing else is removed with its header.
func RemoveTrust(config string, keys []string) (string, error) {
	lines, err := parseTOML(config)
	if err != nil {
		return config, err
	}
	drop := map[string]bool{}
	for _, k := range keys {
		drop[k] = true
	}
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		if !ln.header || !drop[ln.stateKey] {
			b.WriteString(ln.text)
			continue
		}
		var body []tomlLine
		for i+1 < len(lines) && !lines[i+1].header {
			i++
			if lines[i].key != "trusted_hash" {
				body = append(body, lines[i])
			}
		}
		kept := false
		for _, l := range body {
			if l.key != "" {
				kept = true
			}
		}
		if kept {
			b.WriteString(ln.text)
			for _, l := range body {
				b.WriteString(l.text)
			}
			continue
		}
		// The table goes; so does the blank line before it, if one was written.
		s := b.String()
		if strings.HasSuffix(s, "\n\n") {
			b.Reset()
			b.WriteString(s[:len(s)-1])
		}
		for _, l := range body {
			if strings.TrimSpace(l.text) != "" {
				b.WriteString(l.text) // comments stay
			}
		}
	}
	return b.String(), nil
}

// RenameTrust returns config.toml with the [hooks.state] tables of the keys in renames
// moved to their new keys: a handler that moves in hooks.json (when one before it is
// removed) keeps its trust.
func RenameTrust(config string, renames map[string]string) (string, error) {
	lines, err := parseTOML(config)
	if err != nil {
		return config, err
	}
	var b strings.Builder
	for _, ln := range lines {
		if to, ok := renames[ln.stateKey]; ok && ln.header {
			nl := ""
			if strings.HasSuffix(ln.text, "\n") {
				nl = "\n"
			}
			b.WriteString("[hooks.state." + tomlQuote(to) + "]" + nl)
			continue
		}
		b.WriteString(ln.text)
	}
	return b.String(), nil
}
