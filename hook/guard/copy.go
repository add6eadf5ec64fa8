package guard

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// chown: to the user (by name, $USER, $(whoami), or uid), with or without a group, takes
// nothing away from the owner, above the state directory or not; any other owner is judged
// as a destroyer.
func (s *shell) chown(c *cmdline, args []field) {
	_, ops, _ := scan(args, "", []string{"from", "reference"}, false)
	if len(ops) < 2 {
		s.paths(c, ops, inside|above)
		return
	}
	owner, files := ops[0], ops[1:]
	user, _, _ := strings.Cut(owner.text, ":")
	if owner.exact() && s.g.user != "" && (user == s.g.user || user == strconv.Itoa(os.Getuid())) {
		s.paths(c, files, inDir)
		return
	}
	s.paths(c, files, inside|above)
}

// copy judges cp, mv, install and ln: a destination inside the state directory, or one
// that puts a source's name there or above it; for mv, a source there or above.
func (s *shell) copy(c *cmdline, args []field, kind string) {
	short, long := "tS", []string{"target-directory", "suffix"}
	if kind == "install" {
		short, long = "tSmogZ", []string{"target-directory", "suffix", "mode", "owner", "group"}
	}
	opts, ops, _ := scan(args, short, long, false)
	var dest *field
	if v, ok := hasOpt(opts, "-t", "--target-directory"); ok {
		dest = &field{text: v}
	}
	_, noTarget := hasOpt(opts, "-T", "--no-target-directory")
	if kind == "install" {
		if _, ok := hasOpt(opts, "-d", "--directory"); ok {
			s.paths(c, ops, inside)
			return
		}
	}
	srcs := ops
	if dest == nil {
		switch {
		case len(ops) == 0:
			return
		case len(ops) == 1 && kind == "ln":
			dest = &field{text: "."}
		case len(ops) == 1:
			if kind == "mv" && s.rel(ops[0]) != 0 {
				s.denyState()
			}
			return
		default:
			srcs, dest = ops[:len(ops)-1], &ops[len(ops)-1]
		}
	}
	s.notePrograms(srcs, *dest)
	_, symbolic := hasOpt(opts, "-s", "--symbolic")
	_, link := hasOpt(opts, "-l", "--link")
	if kind == "ln" && !symbolic || kind == "cp" && link {
		// A hard link to a state file would let a later write through it change the state.
		for _, src := range srcs {
			if s.rel(src)&inside != 0 {
				s.denyState()
				return
			}
		}
	}
	if kind == "mv" {
		for _, src := range srcs {
			if s.rel(src) != 0 {
				s.denyState()
				return
			}
		}
	}
	s.destination(*dest, srcs, noTarget)
}

// destination denies writing dest inside the state directory, or a source's name into it
// or onto a directory above it.
func (s *shell) destination(dest field, srcs []field, noTarget bool) {
	r := s.rel(dest)
	if r&inside != 0 || noTarget && r&above != 0 {
		s.denyState()
		return
	}
	if noTarget || dest.lead || dest.fresh {
		return
	}
	for _, src := range srcs {
		base := filepath.Base(strings.TrimRight(src.text, "/"))
		if base == "." || base == "/" || base == "" {
			continue
		}
		j := field{text: strings.TrimRight(dest.text, "/") + "/" + base, glob: dest.glob || src.glob}
		if s.rel(j) != 0 {
			s.denyState()
			return
		}
	}
}

// rsync [options] SRC... DEST
func (s *shell) rsync(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "eBfTM", []string{"exclude", "include", "filter", "files-from", "exclude-from", "include-from",
		"rsh", "rsync-path", "temp-dir", "partial-dir", "backup-dir", "compare-dest", "copy-dest", "link-dest", "log-file",
		"password-file", "chmod", "chown", "suffix", "timeout", "bwlimit", "max-size", "min-size", "info", "debug",
		"out-format", "port", "sockopts", "address", "skip-compress", "usermap", "groupmap", "checksum-choice",
		"compress-choice", "iconv", "outbuf", "stop-after", "stop-at", "max-delete", "modify-window", "block-size",
		"contimeout", "protocol", "write-batch", "read-batch", "only-write-batch", "copy-as", "remote-option"}, false)
	if len(ops) < 2 {
		return
	}
	del := false
	for _, o := range opts {
		if strings.HasPrefix(o.name, "--del") || o.name == "--remove-source-files" {
			del = true
		}
	}
	srcs, dest := ops[:len(ops)-1], ops[len(ops)-1]
	if _, ok := hasOpt(opts, "--remove-source-files"); ok {
		for _, src := range srcs {
			if s.rel(src) != 0 {
				s.denyState()
				return
			}
		}
	}
	if del && s.rel(dest) != 0 {
		s.denyState()
		return
	}
	var named []field
	for _, src := range srcs {
		if !strings.HasSuffix(src.text, "/") {
			named = append(named, src)
		}
	}
	s.destination(dest, named, false)
}

// tar: extracting into the state directory, writing an archive there, --remove-files.
func (s *shell) tar(c *cmdline, args []field) {
	if len(args) > 0 && args[0].exact() && !strings.HasPrefix(args[0].text, "-") {
		a := args[0]
		a.text = "-" + a.text
		args = append([]field{a}, args[1:]...)
	}
	opts, ops, _ := scan(args, "fCbTXLVgKHN", []string{"file", "directory", "files-from", "exclude-from", "exclude",
		"blocking-factor", "label", "listed-incremental", "starting-file", "format", "newer", "transform", "owner", "group",
		"mode", "mtime", "use-compress-program", "to-command", "info-script", "new-volume-script", "rsh-command"}, false)
	var archive, dir *field
	write, extract, remove := false, false, false
	for _, o := range opts {
		switch o.name {
		case "-f", "--file":
			archive = &field{text: o.val}
		case "-C", "--directory":
			dir = &field{text: o.val}
		case "-c", "-r", "-u", "-A", "--create", "--append", "--update", "--catenate", "--concatenate", "--delete":
			write = true
		case "-x", "--extract", "--get":
			extract = true
		case "--remove-files":
			remove = true
		}
	}
	if write && archive != nil && s.rel(*archive)&inside != 0 {
		s.denyState()
		return
	}
	if extract {
		if dir == nil {
			dir = &field{text: "."}
		}
		if s.rel(*dir)&inside != 0 {
			s.denyState()
			return
		}
		if _, abs := hasOpt(opts, "-P", "--absolute-names"); abs {
			s.denyState() // members with absolute names go anywhere, the state included
			return
		}
		for _, o := range ops {
			if !filepath.IsAbs(o.text) {
				o.text = dir.text + "/" + o.text
			}
			if s.rel(o) != 0 {
				s.denyState() // members named on the line that are the state or above it
				return
			}
		}
	}
	if remove {
		for _, o := range ops {
			if dir != nil && !filepath.IsAbs(o.text) {
				o.text = dir.text + "/" + o.text
			}
			if s.rel(o) != 0 {
				s.denyState()
				return
			}
		}
	}
}

func (s *shell) unzip(c *cmdline, args []field) {
	opts, _, _ := scan(args, "dxP", nil, false)
	dir := field{text: "."}
	if v, ok := hasOpt(opts, "-d"); ok {
		dir = field{text: v}
	}
	if _, list := hasOpt(opts, "-l", "-t", "-v", "-p", "-Z"); !list && s.rel(dir)&inside != 0 {
		s.denyState()
	}
}

func (s *shell) zip(c *cmdline, args []field) {
	opts, ops, _ := scan(args, "bnPtx", nil, false)
	if len(ops) == 0 {
		return
	}
	if s.rel(ops[0])&inside != 0 {
		s.denyState()
		return
	}
	if _, move := hasOpt(opts, "-m", "--move"); move {
		s.paths(c, ops[1:], inside|above)
	}
}

func (s *shell) dd(c *cmdline, args []field) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a.text, "of="); ok && s.rel(field{text: v, glob: a.glob})&inside != 0 {
			s.denyState()
			return
		}
	}
}

func (s *shell) sortCmd(c *cmdline, args []field) {
	opts, _, _ := scan(args, "otkSTz", []string{"output", "field-separator", "key", "buffer-size", "temporary-directory", "parallel", "files0-from", "batch-size", "compress-program", "random-source", "sort"}, false)
	if v, ok := hasOpt(opts, "-o", "--output"); ok && s.rel(field{text: v})&inside != 0 {
		s.denyState()
	}
}

func (s *shell) uniq(c *cmdline, args []field) {
	ops := operands(args, "fsw", []string{"skip-fields", "skip-chars", "check-chars", "group", "all-repeated"})
	if len(ops) > 1 && s.rel(ops[1])&inside != 0 {
		s.denyState()
	}
}

// chmod: a mode that takes none of the owner's access away (700 on the home, go-rwx, +x)
// changes nothing for ralph-loop above the state directory; any other, or any mode inside
// it (or on a binary the hooks run), is judged as a destroyer. A mode may look like an
// option (-x, -w): only -c, -f, -v and -R (and long options) are chmod's own.
func (s *shell) chmod(c *cmdline, args []field) {
	var mode *field
	var files []field
	ref := false
	for i := 0; i < len(args); i++ {
		t := args[i].text
		switch {
		case t == "--":
			for _, f := range args[i+1:] {
				if mode == nil && !ref {
					mode = &f
					continue
				}
				files = append(files, f)
			}
			i = len(args)
		case t == "--reference":
			ref = true
			i++
		case strings.HasPrefix(t, "--reference="):
			ref = true
		case strings.HasPrefix(t, "--"):
		case len(t) > 1 && t[0] == '-' && strings.Trim(t[1:], "cfvR") == "":
		case mode == nil && !ref:
			mode = &args[i]
		default:
			files = append(files, args[i])
		}
	}
	if ref || mode == nil {
		s.paths(c, files, inside|above)
		return
	}
	if !mode.exact() || !keepsOwner(mode.text) {
		s.paths(c, files, inside|above)
		return
	}
	// A mode that keeps the owner's access changes nothing a binary or a hook file needs
	// (chmod +x ~/.local/bin/*); in the state directory or the keep, nothing is changed.
	s.paths(c, files, inDir)
}

// keepsOwner reports whether a chmod mode leaves the owner read, write and search access:
// an octal mode whose owner digit is 7, or symbolic clauses that only add, or that touch
// only the group and others.
func keepsOwner(mode string) bool {
	if n, err := strconv.ParseUint(mode, 8, 32); err == nil {
		return n>>6&7 == 7
	}
	for _, clause := range strings.Split(mode, ",") {
		i := strings.IndexAny(clause, "+-=")
		if i < 0 {
			return false
		}
		who, op := clause[:i], clause[i]
		if op == '+' {
			continue
		}
		if who == "" || strings.ContainsAny(who, "ua") || strings.Trim(who, "go") != "" {
			return false
		}
	}
	return true
}

// applyPatch judges each file a patch adds, updates, deletes or moves to, from where the
// command runs.
func (s *shell) applyPatch(c *cmdline, args []field) {
	var patch string
	switch {
	case len(args) > 0:
		patch = joinFields(args).text
	case c.stdin != nil:
		patch = *c.stdin
	default:
		return // the patch is read at run time from a file or a pipe the guard cannot see
	}
	for _, f := range PatchFiles(patch) {
		if s.rel(field{text: f})&inside != 0 {
			s.denyState()
			return
		}
	}
}
