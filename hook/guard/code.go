package guard

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/internal/lazy"
)

// sed: -i writes its files; a script that writes (w, e) is judged by what it mentions.
func (s *shell) sed(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "efl", []string{"expression", "file", "line-length"}, false)
	inPlace := false
	var scripts []string
	for _, o := range opts {
		switch {
		case o.name == "--in-place" || o.name == "-i":
			inPlace = true
		case o.name == "-e" || o.name == "--expression":
			scripts = append(scripts, o.val)
		}
	}
	if _, ok := hasOpt(opts, "-e", "--expression", "-f", "--file"); !ok && len(ops) > 0 {
		scripts, ops = append(scripts, ops[0].text), ops[1:]
	}
	if inPlace {
		s.paths(c, ops, inside)
		return
	}
	for _, sc := range scripts {
		for _, loc := range sedWrites.Get().FindAllStringIndex(sc, 64) {
			cmd := sc[loc[1]-1]
			arg, _, _ := strings.Cut(sc[loc[1]:], "\n")
			arg = strings.TrimSpace(arg)
			if strings.HasPrefix(arg, "~") {
				arg = s.tilde(arg)
			}
			switch {
			case cmd == 'e' && s.codeMentions(sc):
				// e runs a command: the rest of the line, or the pattern space.
				s.denyState()
				return
			case cmd != 'e' && arg != "" && s.rel(field{text: arg})&inside != 0:
				s.denyState()
				return
			case cmd != 'e' && arg == "" && s.codeMentions(sc):
				s.denyState()
				return
			}
		}
	}
}

// script judges an interpreter's one-liner: code (the value of an option in codeOpts)
// that mentions the state directory and does something that writes; with an in-place
// option (inPlace), the files it is given are written.
func (s *shell) script(c *cmdline, args []field, codeOpts, inPlace, withArg string) {
	opts, ops, _ := scan(args, codeOpts+withArg, []string{"eval", "print", "require", "import"}, false)
	code, edit := false, false
	for _, o := range opts {
		if len(o.name) == 2 && strings.Contains(codeOpts, o.name[1:]) || o.name == "--eval" || o.name == "--print" {
			code = true
			s.judgeCode(o.val)
		}
		if len(o.name) == 2 && inPlace != "" && strings.Contains(inPlace, o.name[1:]) {
			edit = true
		}
	}
	if s.reason != "" {
		return
	}
	if edit {
		s.paths(c, ops, inside)
		return
	}
	if code && len(opts) > 0 && s.codeWrites(opts, codeOpts) {
		// The code writes or deletes what it is given: the paths after it.
		s.paths(c, ops, inside|above)
		return
	}
	switch {
	case code:
	case (len(ops) == 0 || ops[0].text == "-") && c.stdin != nil:
		s.judgeCode(*c.stdin) // the program on stdin
	case len(ops) > 0:
		s.paths(c, ops[1:], inside) // a script file and its arguments
	}
}

// codeWrites reports whether the code given with one of codeOpts writes or runs something.
func (s *shell) codeWrites(opts []opt, codeOpts string) bool {
	for _, o := range opts {
		if len(o.name) == 2 && strings.Contains(codeOpts, o.name[1:]) || o.name == "--eval" || o.name == "--print" {
			if writes(o.val) || strings.Contains(o.val, "unlink") || strings.Contains(o.val, "rmSync") {
				return true
			}
		}
	}
	return false
}

// python [-c CODE | -m MODULE | SCRIPT] [ARGS...]
func (s *shell) python(c *cmdline, args []field) {
	opts, _, rest := scan(args, "cmWXQ", nil, true)
	for _, o := range opts {
		switch o.name {
		case "-c":
			s.judgeCode(o.val)
			if s.reason == "" && writes(o.val) {
				s.paths(c, rest, inside|above) // sys.argv: the paths the code is given
			}
			return
		case "-m":
			if o.val == "json.tool" {
				ops := operands(rest, "", []string{"indent", "sort-keys"})
				if len(ops) > 1 && s.rel(ops[1])&inside != 0 {
					s.denyState()
				}
				return
			}
			s.paths(c, rest, inside)
			return
		}
	}
	switch {
	case (len(rest) == 0 || rest[0].text == "-") && c.stdin != nil:
		s.judgeCode(*c.stdin) // the program on stdin
	case len(rest) > 0:
		s.paths(c, rest[1:], inside)
	}
}

func (s *shell) awk(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "fvFiEl", []string{"file", "assign", "field-separator", "include", "exec", "load"}, false)
	edit := false
	for _, o := range opts {
		if (o.name == "-i" || o.name == "--include") && o.val == "inplace" {
			edit = true
		}
	}
	if _, ok := hasOpt(opts, "-f", "--file", "-E", "--exec"); !ok && len(ops) > 0 {
		s.judgeCode(ops[0].text)
		ops = ops[1:]
	}
	if edit {
		s.paths(c, ops, inside)
	}
}

func (s *shell) yq(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "ospIe", []string{"output-format", "input-format", "indent", "expression"}, false)
	if _, ok := hasOpt(opts, "-i", "--inplace"); ok {
		s.paths(c, ops, inside)
	}
}

// sedWrites finds sed's w, W and e commands (writing a file, running a command) in a
// script.
var sedWrites = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp { return regexp.MustCompile(`(^|[;}\s/0-9$])[wWe]\b`) }}

// writesCode are the words of code that changes files or runs commands, in the languages
// of the usual one-liners. The regular expressions are compiled when first needed, not in
// every hook process. A string's replace (s.replace(a, b)) is not one: see writes.
var writesCode = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp {
	return regexp.MustCompile(`rmtree|remove|unlink|rmdir|rename|truncate|chmod|chown|symlink|rm_r|rm_f|rmSync|` +
		`rmdirSync|writeFile|appendFile|createWriteStream|mkfifo|system|popen|Popen|subprocess|exec|spawn|move|copy|` +
		`write|print\s*>|printf\s*>|>|open\s*\([^)]*,\s*['"]?[wax+]|File\.open|FileUtils|shutil|` + "`")
}}

// runsCode are the words of code that runs a command.
var runsCode = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp {
	return regexp.MustCompile(`system|popen|Popen|subprocess|exec|spawn|getline|\|\s*["']|` + "`")
}}

// replaceCall finds a call of a method named replace.
var replaceCall = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp { return regexp.MustCompile(`\breplace\s*\(`) }}

// writes reports whether code changes files or runs commands: a word of writesCode, or a
// replace that is not a string's (a path's replace takes one argument, a string's two).
func writes(code string) bool {
	if writesCode.Get().MatchString(code) {
		return true
	}
	for _, loc := range replaceCall.Get().FindAllStringIndex(code, 64) {
		if callArgs(code[loc[1]:]) < 2 {
			return true
		}
	}
	return false
}

// callArgs counts the arguments of a call whose text (after its opening parenthesis) is
// rest, skipping quoted strings and nested brackets.
func callArgs(rest string) int {
	depth, n, any := 0, 1, false
	var quote byte
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote, any = c, true
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				if !any {
					return 0
				}
				return n
			}
			depth--
		case c == ',' && depth == 0:
			n++
		case c != ' ' && c != '\t':
			any = true
		}
	}
	return n
}

// judgeCode denies a one-liner that names the state directory (or a directory above it)
// and writes or runs something, or runs a command (a string of the code) the guard denies.
func (s *shell) judgeCode(code string) {
	if s.g.server && s.g.serverCode(code) {
		s.deny(inject.GuardServer(s.g.cli, s.g.words))
		return
	}
	if s.codeMentionsState(code) && writes(code) {
		s.denyState()
		return
	}
	if !s.g.mentions(code) || !runsCode.Get().MatchString(code) {
		return // ralph-loop named in a string that nothing runs (a pattern, a message)
	}
	// The commands it may run are among its strings: each alone, and each list of them
	// (subprocess.run(['ralph-loop', 'cancel'])). A string naming ralph-loop must name a
	// subcommand that only reads.
	for _, lit := range codeCommands(code) {
		if strings.Contains(lit, "ralph-loop") && !readOnlyRalph(lit) {
			s.deny(inject.GuardUnsure(s.g.words))
			return
		}
		s.nested(field{text: lit})
		if s.reason != "" {
			return
		}
	}
}

// withoutReads is code less its lists of strings that are a command that only reads
// ralph-loop (subprocess.run(['ralph-loop', 'status'])): they are not a mention of its state.
func withoutReads(code string) string {
	return codeList.Get().ReplaceAllStringFunc(code, func(l string) string {
		var words []string
		for _, m := range quotedInCode.Get().FindAllStringSubmatch(l, 256) {
			words = append(words, m[1]+m[2])
		}
		if readOnlyRalph(strings.Join(words, " ")) {
			return "[]"
		}
		return l
	})
}

// codeCommands are the strings of code, and its lists of strings joined by spaces, less
// the lists that only read ralph-loop.
func codeCommands(code string) []string {
	code = withoutReads(code)
	var out []string
	for _, m := range quotedInCode.Get().FindAllStringSubmatch(code, 256) {
		out = append(out, m[1]+m[2])
	}
	for _, l := range codeList.Get().FindAllString(code, 64) {
		var words []string
		for _, m := range quotedInCode.Get().FindAllStringSubmatch(l, 256) {
			words = append(words, m[1]+m[2])
		}
		out = append(out, strings.Join(words, " "))
	}
	return out
}

// codeList matches a list or tuple of strings: ['a', "b"].
var codeList = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp {
	return regexp.MustCompile(`[\[(]\s*(?:'[^']*'|"[^"]*")(?:\s*,\s*(?:'[^']*'|"[^"]*"))*\s*,?\s*[\])]`)
}}

// readOnlyRalph reports whether a command line that names ralph-loop runs one of its
// subcommands that only read (status, log, version, help), and nothing after it.
func readOnlyRalph(line string) bool {
	f := strings.Fields(line)
	for i, w := range f {
		if filepath.Base(w) != "ralph-loop" {
			continue
		}
		for _, a := range f[i+1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			return !slices.Contains(ralphSubs, a) && (a == "status" || a == "log" || a == "version" || a == "help")
		}
		return false
	}
	return false
}

var quotedInCode = lazy.Value[*regexp.Regexp]{Make: func() *regexp.Regexp { return regexp.MustCompile(`'([^']*)'|"([^"]*)"`) }}

// codeMentions reports whether code names the state directory, or a quoted string in it is
// a path there or above it.
func (s *shell) codeMentions(code string) bool {
	return s.g.mentions(code) || s.codeMentionsState(code)
}

// codeMentionsState reports whether code names the state directory (as a path, or its
// parts: ralph-loop as a string or a path component), or a quoted string in it is a path
// there or above it; ralph-loop named in a command string or a pattern is not.
func (s *shell) codeMentionsState(code string) bool {
	code = withoutReads(code)
	if s.g.mentionsState(code) {
		return true
	}
	for _, m := range quotedInCode.Get().FindAllStringSubmatch(code, 64) {
		p := m[1] + m[2]
		if strings.HasPrefix(p, "~") {
			p = s.tilde(p)
		}
		if filepath.IsAbs(p) && s.rel(field{text: p, glob: strings.ContainsAny(p, "*?[")}) != 0 {
			return true
		}
	}
	return false
}
