package hook

import (
	"path/filepath"
	"strings"
)

// The guard keeps the agent from escaping its own loop: while a loop is active, a
// PreToolUse hook denies tool calls that would cancel or re-arm it (running "ralph-loop
// cancel", "start", "install", "uninstall" or "hook") or write, move or delete anything in
// ralph-loop's state directory. Only the user ends a loop: /cancel-ralph, or "ralph-loop
// cancel" typed outside the agent.
//
// It reads the tool call as written. It is a guard against an agent that takes the easy
// way out, not a sandbox: a command that builds the path at run time gets through.

// mutating are the ralph-loop subcommands that can end, replace or unhook a loop.
var mutating = map[string]bool{"cancel": true, "start": true, "install": true, "uninstall": true, "hook": true}

// readOnly are programs that only read the files they are given.
var readOnly = map[string]bool{"cat": true, "head": true, "tail": true, "less": true, "more": true, "ls": true, "wc": true,
	"grep": true, "egrep": true, "fgrep": true, "rg": true, "jq": true, "stat": true, "file": true, "diff": true, "cmp": true}

// prefixes are words that run the command after them.
var prefixes = map[string]bool{"sudo": true, "command": true, "exec": true, "env": true, "nohup": true, "time": true, "nice": true,
	"timeout": true, "builtin": true, "doas": true}

// fileTools are the tools that write the file named by their input.
var fileTools = map[string]bool{"Write": true, "Edit": true, "MultiEdit": true, "NotebookEdit": true}

// guard returns why a tool call must be denied, or "". home and stateHome are $HOME and
// $XDG_STATE_HOME, for commands that spell the state directory with them.
func guard(in Input, stateDir, home, stateHome string) string {
	stateDir = filepath.Clean(stateDir)
	if fileTools[in.ToolName] && in.FilePath != "" {
		p := in.FilePath
		if !filepath.IsAbs(p) {
			p = filepath.Join(in.Cwd, p)
		}
		if within(resolve(p), stateDir) || within(filepath.Clean(p), stateDir) {
			return "ralph-loop: this loop's state is not the agent's to change: " + in.ToolName + " of a file in " + stateDir +
				" is denied while the loop is active. Keep working on the task; only the user can end the loop (/cancel-ralph)."
		}
		return ""
	}
	if in.ToolName != "Bash" || in.Command == "" {
		return ""
	}
	for _, seg := range segments(in.Command) {
		prog, rest := program(seg)
		if prog == "" {
			continue
		}
		if base := filepath.Base(prog); base == "ralph-loop" || base == "ralph-loop.exe" {
			for _, w := range rest {
				if strings.HasPrefix(w, "-") {
					continue
				}
				if mutating[w] {
					return "ralph-loop: \"ralph-loop " + w + "\" would end or replace the loop, which only the user can do (/cancel-ralph). " +
						"Denied while the loop is active: keep working on the task, and output the promise only when it is truly done."
				}
				break
			}
		}
		for i, w := range seg {
			if !within(expand(w, home, stateHome), stateDir) {
				continue
			}
			redirect := i > 0 && (strings.HasSuffix(seg[i-1], ">") || seg[i-1] == ">|")
			if !readOnly[filepath.Base(prog)] || redirect {
				return "ralph-loop: commands that change " + stateDir + " (this loop's state) are denied while the loop is active. " +
					"Keep working on the task; only the user can end the loop (/cancel-ralph)."
			}
		}
	}
	return ""
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	if path == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolve follows symbolic links in the existing part of path.
func resolve(path string) string {
	dir, rest := filepath.Clean(path), ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return path
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = parent
	}
}

// expand makes a word that names a path comparable: ~, $HOME and $XDG_STATE_HOME spelled
// out, cleaned. Words that are not paths come back as "".
func expand(w, home, state string) string {
	if state == "" && home != "" {
		state = filepath.Join(home, ".local", "state")
	}
	for _, r := range []struct{ from, to string }{
		{"${XDG_STATE_HOME}", state}, {"$XDG_STATE_HOME", state}, {"${HOME}", home}, {"$HOME", home},
	} {
		if r.to != "" {
			w = strings.ReplaceAll(w, r.from, r.to)
		}
	}
	if home != "" && (w == "~" || strings.HasPrefix(w, "~/")) {
		w = home + w[1:]
	}
	if i := strings.IndexByte(w, '='); i > 0 && !strings.HasPrefix(w, "/") { // --flag=/path, VAR=/path
		w = w[i+1:]
	}
	if !filepath.IsAbs(w) {
		return ""
	}
	return resolve(w)
}

// program returns a segment's command, past variable assignments and prefixes such as
// sudo or env, and the words after it.
func program(seg []string) (string, []string) {
	for i := 0; i < len(seg); i++ {
		w := seg[i]
		if eq := strings.IndexByte(w, '='); eq > 0 && !strings.ContainsAny(w[:eq], "/-") {
			continue // FOO=bar
		}
		if prefixes[filepath.Base(w)] || strings.HasPrefix(w, "-") && i > 0 && prefixes[filepath.Base(seg[i-1])] {
			continue
		}
		return w, seg[i+1:]
	}
	return "", nil
}

// segments splits a shell command into simple commands at ; & | ( ) newlines and
// backquotes and $( ), with quotes and backslashes as the shell reads them.
func segments(cmd string) [][]string {
	var segs [][]string
	var words []string
	var cur strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	endSeg := func() {
		endWord()
		if len(words) > 0 {
			segs = append(segs, words)
			words = nil
		}
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			endWord()
		case c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '`' || c == '{' || c == '}':
			endSeg()
		case c == '$' && i+1 < len(cmd) && cmd[i+1] == '(':
			endSeg()
			i++
		case c == '<' || c == '>':
			endWord()
			op := string(c)
			for i+1 < len(cmd) && (cmd[i+1] == '>' || cmd[i+1] == '&' || cmd[i+1] == '|') {
				i++
				op += string(cmd[i])
			}
			words = append(words, op)
		case c == '\\' && i+1 < len(cmd):
			i++
			if cmd[i] != '\n' {
				inWord = true
				cur.WriteByte(cmd[i])
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				j = len(cmd) - i - 1
			}
			cur.WriteString(cmd[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			j := i + 1
			for ; j < len(cmd) && cmd[j] != '"'; j++ {
				if cmd[j] == '\\' && j+1 < len(cmd) {
					j++
				}
				cur.WriteByte(cmd[j])
			}
			i = j
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	endSeg()
	return segs
}
