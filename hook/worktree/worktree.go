// Package worktree records a git work tree's files for ralph-loop, with the git binary's
// plumbing: a tree of the files as they are now (for the stall breaker), and commits under
// refs of ralph-loop's own (checkpoints). It never touches the user's branch, index, stash
// list or configuration.
//
// The git it runs reads no configuration, hook or attribute driver that the agent could
// have written, by construction: the work tree is read with a git directory of ralph-loop's
// own (Store.GitDir), whose config ralph-loop writes, with the work tree as GIT_WORK_TREE,
// an index of its own (GIT_INDEX_FILE), and the repository's objects reached as an object
// directory (GIT_OBJECT_DIRECTORY, or an alternate); HOME and XDG_CONFIG_HOME name that
// directory and the system's configuration is off, so no git of any version reads the
// user's files (~/.gitconfig, ~/.config/git/config) or the repository's (.git/config,
// .git/hooks). A .gitattributes names a filter or a diff driver only by a name whose
// program only a config could give. What ralph-loop needs of the repository is read as
// data: where its git directory and objects are (found without git), its exclude file,
// its object format, the user's global exclude file. The refs of checkpoints are written
// into the repository with git update-ref in its own git directory, which reads its config;
// update-ref runs no program but the reference-transaction hook, and the hooks directory is
// given on the command line (which outranks every config file) as one that holds none.
package worktree

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// Errors of Find and of the commands. Test them with errors.Is.
var (
	// ErrNoGit means there is no git program to run (none on PATH outside the project).
	ErrNoGit = errors.New("git is not installed")
	// ErrNotRepo means the directory is not in a git work tree.
	ErrNotRepo = errors.New("not in a git work tree")
)

// RefPrefix starts every ref ralph-loop makes: refs/ralph-loop/<loop>/<n>.
const RefPrefix = "refs/ralph-loop/"

// Ref is the ref of a loop's checkpoint n (0: when the loop was armed).
func Ref(loopID string, n int) string { return fmt.Sprintf("%s%s/%d", RefPrefix, loopID, n) }

// Repo is a git work tree.
type Repo struct {
	// Top is the work tree's top directory; GitDir its git directory (a linked work tree
	// has its own) and Objects the repository's object directory.
	Top, GitDir, Objects string
	// Git is the git program to run (see package program); "": ErrNoGit.
	Git string
}

// Find returns the git work tree dir is in, as git finds it (a .git directory, or a .git
// file naming one, in dir or a directory above it), without running git: ErrNotRepo when
// it is in none (or only in a bare repository).
func Find(dir string) (Repo, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Repo{}, err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if gd, ok := gitDirAt(d); ok {
			common := gd
			if c, err := os.ReadFile(filepath.Join(gd, "commondir")); err == nil {
				common = strings.TrimSpace(string(c))
				if !filepath.IsAbs(common) {
					common = filepath.Join(gd, common)
				}
			}
			return Repo{Top: d, GitDir: filepath.Clean(gd), Objects: filepath.Join(filepath.Clean(common), "objects")}, nil
		}
		if filepath.Dir(d) == d {
			return Repo{}, ErrNotRepo
		}
	}
}

// gitDirAt is the git directory d/.git stands for: the directory itself, or the one a
// "gitdir:" file names (a linked work tree, a submodule), when it holds a HEAD.
func gitDirAt(d string) (string, bool) {
	p := filepath.Join(d, ".git")
	fi, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	gd := p
	if !fi.IsDir() {
		data, err := readSmall(p)
		if err != nil {
			return "", false
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
		if !ok {
			return "", false
		}
		gd = strings.TrimSpace(rest)
		if !filepath.IsAbs(gd) {
			gd = filepath.Join(d, gd)
		}
	}
	if fi, err := os.Stat(filepath.Join(gd, "HEAD")); err != nil || !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
		return "", false
	}
	return gd, true
}

// Store is where a loop keeps what it needs to record the work tree: its git directory, the
// index file that remembers the files as last read (so that only files changed since are
// read again), and, for a record nobody names with a ref, an object directory of its own,
// so that the repository gets no objects from it.
type Store struct {
	// GitDir is ralph-loop's own git directory for the work tree (made the first time).
	GitDir string
	// Index is the index file (made from the repository's own index the first time).
	Index string
	// Objects, when set, is where new objects go (the repository's are still read):
	// trees made for the stall breaker alone. "": the repository's, for checkpoints.
	Objects string
}

// Snapshot writes the work tree's files (every file git does not ignore, tracked or not)
// as a tree and returns its id. Only the store's files are written. For the stall breaker
// alone (s.Objects set) it returns, where it can, a fingerprint of the index git add wrote
// (IndexPrefix; see indexFingerprint) instead of a tree id: equal when the trees would be.
func Snapshot(ctx context.Context, r Repo, s Store) (string, error) {
	if err := prepare(r, s.GitDir); err != nil {
		return "", err
	}
	os.Remove(s.Index + ".lock") // left by a snapshot that was killed; the caller holds the loop's lock
	fresh := false
	if _, err := os.Lstat(s.Index); errors.Is(err, os.ErrNotExist) && r.GitDir != "" {
		// The repository's index knows every tracked file's stat data: starting from a copy,
		// the first snapshot reads only the files changed since the user's last git command.
		if data, err := os.ReadFile(filepath.Join(r.GitDir, "index")); err == nil {
			if err := writeFile(s.Index, data); err != nil {
				return "", err
			}
			fresh = true
		}
	}
	env := []string{"GIT_INDEX_FILE=" + s.Index, "GIT_OBJECT_DIRECTORY=" + r.Objects}
	if s.Objects != "" {
		if err := os.MkdirAll(s.Objects, 0o700); err != nil {
			return "", err
		}
		env = []string{"GIT_INDEX_FILE=" + s.Index, "GIT_OBJECT_DIRECTORY=" + s.Objects, "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + r.Objects}
	}
	add := []string{"add", "--all", "--ignore-errors", "--", ":/"}
	if _, err := ours(ctx, r, s.GitDir, env, nil, add...); err != nil {
		if !fresh {
			return "", err
		}
		// A copy that git cannot read with a git directory of its own (a split index whose
		// shared part lies in the repository's): from nothing.
		os.Remove(s.Index)
		if _, err := ours(ctx, r, s.GitDir, env, nil, add...); err != nil {
			return "", err
		}
	}
	if s.Objects != "" {
		// For the stall breaker alone, what git add recorded is compared, not a tree:
		// one git process, not two.
		if fp, err := readIndexFingerprint(s.Index, oidLen(r)); err == nil {
			return fp, nil
		}
	}
	out, err := ours(ctx, r, s.GitDir, env, nil, "write-tree")
	return strings.TrimSpace(out), err
}

// Head returns the commit HEAD names, "" when there is none yet.
func Head(ctx context.Context, r Repo) string {
	out, err := theirs(ctx, r, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// Commit makes a commit of tree with parent (none when "") and message, authored by
// ralph-loop at when, in the repository's objects, names it ref, and returns its id. The
// commit is made with a git directory of ralph-loop's own at gitDir.
func Commit(ctx context.Context, r Repo, gitDir, ref, tree, parent, message string, when time.Time) (string, error) {
	if err := prepare(r, gitDir); err != nil {
		return "", err
	}
	date := fmt.Sprintf("%d +0000", when.Unix())
	env := []string{"GIT_OBJECT_DIRECTORY=" + r.Objects,
		"GIT_AUTHOR_NAME=ralph-loop", "GIT_AUTHOR_EMAIL=ralph-loop@localhost", "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=ralph-loop", "GIT_COMMITTER_EMAIL=ralph-loop@localhost", "GIT_COMMITTER_DATE=" + date}
	args := []string{"commit-tree", tree}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	out, err := ours(ctx, r, gitDir, env, strings.NewReader(message), args...)
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(out)
	if _, err := theirs(ctx, r, nil, "update-ref", "-m", "ralph-loop checkpoint", ref, commit); err != nil {
		return "", err
	}
	return commit, nil
}

// Refs lists the refs under prefix with the commits they name, in git's order.
func Refs(ctx context.Context, r Repo, prefix string) ([][2]string, error) {
	out, err := theirs(ctx, r, nil, "for-each-ref", "--format=%(refname) %(objectname)", prefix)
	if err != nil {
		return nil, err
	}
	var refs [][2]string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if name, id, ok := strings.Cut(line, " "); ok {
			refs = append(refs, [2]string{name, id})
		}
	}
	return refs, nil
}

// DeleteRefs removes every ref under prefix and returns how many there were.
func DeleteRefs(ctx context.Context, r Repo, prefix string) (int, error) {
	refs, err := Refs(ctx, r, prefix)
	if err != nil || len(refs) == 0 {
		return 0, err
	}
	var b strings.Builder
	for _, ref := range refs {
		fmt.Fprintf(&b, "delete %s %s\n", ref[0], ref[1])
	}
	if _, err := theirs(ctx, r, strings.NewReader(b.String()), "update-ref", "--stdin"); err != nil {
		return 0, err
	}
	return len(refs), nil
}

// Stat returns the diffstat of commit against its first parent (against nothing for a
// commit without one).
func Stat(ctx context.Context, r Repo, commit string) (string, error) {
	var out bytes.Buffer
	err := scratch(ctx, r, &out, "show", "--no-color", "--stat=100", "--format=", commit)
	return out.String(), err
}

// Diff writes the patch from one commit to another to w; from "" is the commit's first
// parent (nothing for a commit without one).
func Diff(ctx context.Context, r Repo, from, to string, w io.Writer) error {
	args := []string{"diff", "--no-color", from, to}
	if from == "" {
		args = []string{"show", "--no-color", "--format=", "--patch", to}
	}
	return scratch(ctx, r, w, args...)
}

// scratch runs a git command that only reads objects with a git directory of its own, made
// for it and removed after: the repository's configuration (a diff driver, a textconv, a
// pager) is not read.
func scratch(ctx context.Context, r Repo, w io.Writer, args ...string) error {
	dir, err := os.MkdirTemp("", "ralph-loop-git-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := prepare(r, dir); err != nil {
		return err
	}
	cmd, err := command(ctx, r, []string{"GIT_DIR=" + dir, "GIT_OBJECT_DIRECTORY=" + r.Objects}, args...)
	if err != nil {
		return err
	}
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Run(); err != nil {
		return gitError(args, err, stderr.String())
	}
	return nil
}

// ours runs git with ralph-loop's git directory gitDir over the work tree, with extra
// environment and stdin, and returns its stdout.
func ours(ctx context.Context, r Repo, gitDir string, env []string, stdin io.Reader, args ...string) (string, error) {
	cmd, err := command(ctx, r, append([]string{"GIT_DIR=" + gitDir, "GIT_WORK_TREE=" + r.Top}, env...), args...)
	if err != nil {
		return "", err
	}
	cmd.Dir = r.Top
	return output(cmd, stdin, args)
}

// theirs runs git in the repository's own git directory, for its refs: with the hooks
// directory given on the command line as one that holds no hook (/dev/null), over what its
// config says, and without the user's and the system's configuration.
func theirs(ctx context.Context, r Repo, stdin io.Reader, args ...string) (string, error) {
	if r.GitDir == "" {
		return "", ErrNotRepo
	}
	all := append([]string{"-c", "core.hooksPath=" + os.DevNull, "-c", "core.fsmonitor=false"}, args...)
	cmd, err := command(ctx, r, []string{"GIT_DIR=" + r.GitDir}, all...)
	if err != nil {
		return "", err
	}
	cmd.Dir = r.GitDir
	return output(cmd, stdin, args)
}

// command is git with an environment cleared of every GIT_ variable of the caller (a hook
// started from a git hook must not be sent to another repository or index), with HOME and
// XDG_CONFIG_HOME where no file is (no user configuration, with a git of any version), the
// global and system configuration off, no replace refs, pager or prompt, and the extra
// environment env.
func command(ctx context.Context, r Repo, env []string, args ...string) (*exec.Cmd, error) {
	if r.Git == "" {
		return nil, ErrNoGit
	}
	cmd := exec.CommandContext(ctx, r.Git, append([]string{"--no-optional-locks"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+os.DevNull, "XDG_CONFIG_HOME="+os.DevNull,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_SYSTEM="+os.DevNull, "GIT_ATTR_NOSYSTEM=1",
		"GIT_NO_REPLACE_OBJECTS=1", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_OPTIONAL_LOCKS=0")
	cmd.Env = append(cmd.Env, env...)
	return cmd, nil
}

func output(cmd *exec.Cmd, stdin io.Reader, args []string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), gitError(args, err, stderr.String())
	}
	return stdout.String(), nil
}

// prepare makes ralph-loop's git directory at dir for the repository, once: HEAD, refs,
// objects (new objects go where the caller says), hooks (none), info/exclude (the
// repository's, copied at each call, as data), and a config of ralph-loop's: the
// repository's object format, no file system monitor, untracked cache or split index, and
// as the exclude file the user's global one (what git would read).
func prepare(r Repo, dir string) error {
	if dir == "" {
		return errors.New("no git directory of ralph-loop's to record the work tree with")
	}
	config := filepath.Join(dir, "config")
	if _, err := os.Stat(config); err != nil {
		for _, d := range []string{"objects", "refs", "hooks", "info"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
				return err
			}
		}
		if err := writeFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/ralph-loop\n")); err != nil {
			return err
		}
		var b strings.Builder
		rc := repoConfig(r)
		format := rc["extensions.objectformat"]
		if format == "" {
			format = "sha1"
		}
		fmt.Fprintf(&b, "[core]\n\trepositoryformatversion = %d\n\tbare = false\n\tlogallrefupdates = false\n"+
			"\tfsmonitor = false\n\tuntrackedCache = false\n\tsplitIndex = false\n\thooksPath = %s\n", map[bool]int{true: 1}[format != "sha1"], quote(os.DevNull))
		for _, k := range []string{"filemode", "symlinks", "ignorecase", "precomposeunicode", "autocrlf", "eol"} {
			if v := rc["core."+k]; v != "" {
				fmt.Fprintf(&b, "\t%s = %s\n", k, v)
			}
		}
		if x := userExcludes(); x != "" {
			fmt.Fprintf(&b, "\texcludesFile = %s\n", quote(x))
		}
		b.WriteString("[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n")
		if format != "sha1" {
			fmt.Fprintf(&b, "[extensions]\n\tobjectFormat = %s\n", format)
		}
		if err := writeFile(config, []byte(b.String())); err != nil {
			return err
		}
	}
	exclude, _ := readSmall(filepath.Join(filepath.Dir(r.Objects), "info", "exclude"))
	if old, _ := os.ReadFile(filepath.Join(dir, "info", "exclude")); !bytes.Equal(old, exclude) {
		return writeFile(filepath.Join(dir, "info", "exclude"), exclude)
	}
	return nil
}

// oidLen is the length of the repository's object ids: 32 bytes in a sha256 repository, else
// 20.
func oidLen(r Repo) int {
	if repoConfig(r)["extensions.objectformat"] == "sha256" {
		return 32
	}
	return 20
}

// repoConfig reads, as data, the settings of the repository's config that change how its
// files are read or its objects named: extensions.objectformat and core's filemode,
// symlinks, ignorecase, precomposeunicode, autocrlf and eol, keys lower-cased, each value
// kept only when it is one of the words git reads there (nothing else is copied).
func repoConfig(r Repo) map[string]string {
	out := map[string]string{}
	f, err := os.Open(filepath.Join(filepath.Dir(r.Objects), "config"))
	if err != nil {
		return out
	}
	defer f.Close()
	words := map[string]bool{"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true, "input": true,
		"lf": true, "crlf": true, "native": true, "sha1": true, "sha256": true}
	keys := map[string]bool{"extensions.objectformat": true, "core.filemode": true, "core.symlinks": true, "core.ignorecase": true,
		"core.precomposeunicode": true, "core.autocrlf": true, "core.eol": true}
	section := ""
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(line, "[] \t"))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		key := section + "." + strings.ToLower(strings.TrimSpace(k))
		v = strings.ToLower(strings.Trim(strings.TrimSpace(v), `"`))
		if ok && keys[key] && words[v] {
			out[key] = v
		}
	}
	return out
}

// userExcludes is the exclude file git reads for the user: core.excludesFile of the user's
// configuration (~/.gitconfig, then $XDG_CONFIG_HOME/git/config, the later one winning as
// git reads them), else $XDG_CONFIG_HOME/git/ignore. The files are read as data, without
// git: a value is only a path.
func userExcludes() string {
	home := os.Getenv("HOME")
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	var files []string // in the order git reads them: a later value wins
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	x := ""
	for _, f := range files {
		if v := configValue(f, "core.excludesfile"); v != "" {
			x = v
		}
	}
	switch {
	case strings.HasPrefix(x, "~/") && home != "":
		return filepath.Join(home, x[2:])
	case x != "" && filepath.IsAbs(x):
		return x
	case xdg != "":
		return filepath.Join(xdg, "git", "ignore")
	}
	return ""
}

// configValue is the last value of key (section.name, lower-case) in the git config file
// at path, "" when it has none: a plain reading of the file's lines (no includes), as data.
func configValue(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	v := ""
	section := ""
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(line, "[] \t"))
			continue
		}
		k, val, ok := strings.Cut(line, "=")
		if ok && section+"."+strings.ToLower(strings.TrimSpace(k)) == key {
			v = strings.Trim(strings.TrimSpace(val), `"`)
		}
	}
	return v
}

// quote is s as a git config value.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// readSmall reads a file of the repository's that is data (at most 1 MiB).
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

func gitError(args []string, err error, stderr string) error {
	if ee := (*exec.Error)(nil); errors.As(err, &ee) {
		return err
	}
	msg := strings.TrimSpace(stderr)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		msg = err.Error()
	}
	return fmt.Errorf("git %s: %s", args[0], msg)
}

// writeFile writes data to path, 0600, through a temporary file (state.WriteTemp) and a
// rename, without waiting for the disk: git's files of ralph-loop's own, made again when
// lost.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := state.WriteTemp(path, 0o600, false, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
