package guard

import (
	"path/filepath"
	"strings"
)

// git: clean, and stash of untracked files, in a work tree that holds the state directory.
func (s *shell) git(c *cmdline, args []field) {
	opts, _, rest := scan(args, "Cc", []string{"git-dir", "work-tree", "namespace", "exec-path", "config-env"}, true)
	dirs := append([]string(nil), s.cwds...)
	tree := ""
	for _, o := range opts {
		switch o.name {
		case "-c":
			// An alias ("!CMD"), a pager, an editor, an ssh command…: a command git runs.
			if k, v, ok := strings.Cut(o.val, "="); ok && (strings.HasPrefix(v, "!") || gitRuns(k)) {
				s.nested(field{text: strings.TrimPrefix(v, "!")})
			}
		case "-C":
			for i, d := range dirs {
				if filepath.IsAbs(o.val) {
					dirs[i] = filepath.Clean(o.val)
				} else {
					dirs[i] = filepath.Join(d, o.val)
				}
			}
		case "--work-tree":
			tree = o.val
		}
	}
	if len(rest) == 0 {
		return
	}
	sub, subArgs := rest[0].text, rest[1:]
	holds := func() []string {
		var out []string
		for _, d := range dirs {
			root := repoRoot(d)
			if tree != "" {
				root = tree
				if !filepath.IsAbs(root) {
					root = filepath.Join(d, root)
				}
			}
			if s.rel(field{text: root}) != 0 {
				out = append(out, d)
			}
		}
		return out
	}
	switch sub {
	case "clean":
		opts, ops, _ := scan(subArgs, "e", []string{"exclude"}, false)
		if _, dry := hasOpt(opts, "-n", "--dry-run"); dry {
			return
		}
		if len(ops) == 0 {
			ops = []field{{text: "."}} // git clean cleans from where it runs
		}
		for _, d := range holds() {
			for _, p := range ops {
				if !filepath.IsAbs(p.text) {
					p.text = d + "/" + p.text
				}
				if s.rel(p) != 0 {
					s.denyState()
					return
				}
			}
		}
	case "stash":
		opts, _, _ := scan(subArgs, "m", []string{"message"}, false)
		if _, ok := hasOpt(opts, "-u", "--include-untracked", "-a", "--all"); ok && len(holds()) > 0 {
			s.denyState()
		}
	}
}

// gitRuns reports whether a git setting names a command git runs.
func gitRuns(key string) bool {
	k := strings.ToLower(key)
	for _, w := range []string{"pager", "editor", "sshcommand", "fsmonitor", "askpass", "helper", "external", "textconv",
		"command", "program", "cmd", "driver", "proxy", "process", "clean", "smudge"} {
		if strings.HasSuffix(k, w) || strings.HasPrefix(k, "alias.") {
			return true
		}
	}
	return false
}
