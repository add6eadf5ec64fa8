// Package worktree records a git work tree's files for ralph-loop, with the git binary's
// plumbing: a tree of the files as they are now (for the stall breaker), and commits under
// refs of ralph-loop's own (checkpoints). It never touches the user's branch, index, stash
// list or configuration: the files are read through an index file of ralph-loop's own
// (GIT_INDEX_FILE), and the commits are made with commit-tree and named with update-ref.
package worktree

import (
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
)

// Errors of Find. Test them with errors.Is.
var (
	// ErrNoGit means there is no git program on PATH.
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
}

// Find returns the git work tree dir is in: ErrNotRepo when it is in none (or in a bare
// repository), ErrNoGit when git is missing.
func Find(ctx context.Context, dir string) (Repo, error) {
	out, err := run(ctx, dir, nil, nil, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir")
	if err != nil {
		var e *exec.Error
		if errors.As(err, &e) {
			return Repo{}, ErrNoGit
		}
		if strings.Contains(err.Error(), "not a git repository") || strings.Contains(err.Error(), "must be run in a work tree") {
			return Repo{}, ErrNotRepo
		}
		return Repo{}, err
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 || lines[0] == "" {
		return Repo{}, ErrNotRepo
	}
	return Repo{Top: lines[0], GitDir: lines[1], Objects: filepath.Join(lines[2], "objects")}, nil
}

// Store is where a loop keeps what it needs to record the work tree: the index file that
// remembers the files as last read (so that only files changed since are read again), and,
// for a record nobody names with a ref, an object directory of its own, so that the
// repository gets no objects from it.
type Store struct {
	// Index is the index file (made from the repository's own index the first time).
	Index string
	// Objects, when set, is where new objects go (the repository's are still read):
	// trees made for the stall breaker alone. "": the repository's, for checkpoints.
	Objects string
}

// Snapshot writes the work tree's files (every file git does not ignore, tracked or not)
// as a tree and returns its id. Only the index file and objects of s are written.
func Snapshot(ctx context.Context, r Repo, s Store) (string, error) {
	os.Remove(s.Index + ".lock") // left by a snapshot that was killed; the caller holds the loop's lock
	if _, err := os.Lstat(s.Index); errors.Is(err, os.ErrNotExist) && r.GitDir != "" {
		// The repository's index knows every tracked file's stat data: starting from a copy,
		// the first snapshot reads only the files changed since the user's last git command.
		if data, err := os.ReadFile(filepath.Join(r.GitDir, "index")); err == nil {
			if err := writeFile(s.Index, data); err != nil {
				return "", err
			}
		}
	}
	env := []string{"GIT_INDEX_FILE=" + s.Index}
	if s.Objects != "" {
		if err := os.MkdirAll(s.Objects, 0o700); err != nil {
			return "", err
		}
		env = append(env, "GIT_OBJECT_DIRECTORY="+s.Objects, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+r.Objects)
	}
	if _, err := run(ctx, r.Top, env, nil, "add", "--all", "--ignore-errors", "--", ":/"); err != nil {
		return "", err
	}
	out, err := run(ctx, r.Top, env, nil, "write-tree")
	return strings.TrimSpace(out), err
}

// Head returns the commit HEAD names, "" when there is none yet.
func Head(ctx context.Context, r Repo) string {
	out, err := run(ctx, r.Top, nil, nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// Commit makes a commit of tree with parent (none when "") and message, authored by
// ralph-loop at when, and names it ref. It returns the commit's id.
func Commit(ctx context.Context, r Repo, ref, tree, parent, message string, when time.Time) (string, error) {
	date := fmt.Sprintf("%d +0000", when.Unix())
	env := []string{"GIT_AUTHOR_NAME=ralph-loop", "GIT_AUTHOR_EMAIL=ralph-loop@localhost", "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=ralph-loop", "GIT_COMMITTER_EMAIL=ralph-loop@localhost", "GIT_COMMITTER_DATE=" + date}
	args := []string{"commit-tree", tree}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	out, err := run(ctx, r.Top, env, strings.NewReader(message), args...)
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(out)
	if _, err := run(ctx, r.Top, nil, nil, "update-ref", "-m", "ralph-loop checkpoint", ref, commit); err != nil {
		return "", err
	}
	return commit, nil
}

// Refs lists the refs under prefix with the commits they name, in git's order.
func Refs(ctx context.Context, r Repo, prefix string) ([][2]string, error) {
	out, err := run(ctx, r.Top, nil, nil, "for-each-ref", "--format=%(refname) %(objectname)", prefix)
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
	if _, err := run(ctx, r.Top, nil, strings.NewReader(b.String()), "update-ref", "--stdin"); err != nil {
		return 0, err
	}
	return len(refs), nil
}

// Stat returns the diffstat of commit against its first parent (against nothing for a
// commit without one).
func Stat(ctx context.Context, r Repo, commit string) (string, error) {
	return run(ctx, r.Top, nil, nil, "show", "--no-color", "--stat=100", "--format=", commit)
}

// Diff writes the patch from one commit to another to w; from "" is the commit's first
// parent (nothing for a commit without one).
func Diff(ctx context.Context, r Repo, from, to string, w io.Writer) error {
	args := []string{"diff", "--no-color", "--no-ext-diff", from, to}
	if from == "" {
		args = []string{"show", "--no-color", "--no-ext-diff", "--format=", "--patch", to}
	}
	cmd := command(ctx, r.Top, nil, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Run(); err != nil {
		return gitError(args, err, stderr.String())
	}
	return nil
}

// run runs git in dir with extra environment and stdin, and returns its stdout.
func run(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) (string, error) {
	cmd := command(ctx, dir, env, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), gitError(args, err, stderr.String())
	}
	return stdout.String(), nil
}

// command is git in dir, with an environment cleared of every GIT_ variable of the caller
// (a hook started from a git hook must not be sent to another repository or index), and
// with no file system monitor, pager or prompt.
func command(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	all := append([]string{"-c", "core.fsmonitor=false", "-c", "core.pager=cat", "--no-optional-locks"}, args...)
	cmd := exec.CommandContext(ctx, "git", all...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat")
	cmd.Env = append(cmd.Env, env...)
	return cmd
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

// writeFile writes data to path, 0600, through a temporary file and a rename.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".index-*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
