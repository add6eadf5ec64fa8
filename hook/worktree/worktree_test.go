package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repo makes a git repository with one commit (a.txt, .gitignore ignoring *.log) and a
// staged change, and returns it with git run in it.
func repo(t testing.TB) (Repo, func(args ...string) string) {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x",
			"GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	git("init", "-q", "-b", "main")
	write(t, dir, "a.txt", "one\n")
	write(t, dir, ".gitignore", "*.log\n")
	git("add", "-A")
	git("commit", "-q", "-m", "first")
	write(t, dir, "b.txt", "staged\n")
	git("add", "b.txt")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Find(filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	r.Git = gitPath
	return r, git
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	r, _ := repo(t)
	top, _ := filepath.EvalSymlinks(r.Top)
	if r.GitDir != filepath.Join(r.Top, ".git") || r.Objects != filepath.Join(r.Top, ".git", "objects") || top == "" {
		t.Errorf("Find = %+v", r)
	}
	if _, err := Find(t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("Find outside a repository: %v, want ErrNotRepo", err)
	}
	noGit := r
	noGit.Git = ""
	if _, err := Snapshot(context.Background(), noGit, Store{GitDir: filepath.Join(t.TempDir(), "git"), Index: filepath.Join(t.TempDir(), "index")}); !errors.Is(err, ErrNoGit) {
		t.Errorf("Snapshot without git: %v, want ErrNoGit", err)
	}
}

// A snapshot changes with any file git does not ignore, tracked or not, by content; and
// it leaves the user's index, HEAD, refs and stash list as they were.
func TestSnapshot(t *testing.T) {
	r, git := repo(t)
	ctx := context.Background()
	index, _ := os.ReadFile(filepath.Join(r.GitDir, "index"))
	head := git("rev-parse", "HEAD")
	s := Store{GitDir: filepath.Join(t.TempDir(), "git"), Index: filepath.Join(t.TempDir(), "index"), Objects: filepath.Join(t.TempDir(), "objects")}
	snap := func() string {
		t.Helper()
		tree, err := Snapshot(ctx, r, s)
		if err != nil || !strings.HasPrefix(tree, IndexPrefix) {
			t.Fatalf("Snapshot = %q, %v (want a fingerprint of the index)", tree, err)
		}
		return tree
	}
	t0 := snap()
	if again := snap(); again != t0 {
		t.Errorf("nothing changed, yet the tree went from %s to %s", t0, again)
	}
	write(t, r.Top, "debug.log", "ignored\n")
	if got := snap(); got != t0 {
		t.Error("a file git ignores changed the tree")
	}
	write(t, r.Top, "new.txt", "untracked\n")
	t1 := snap()
	if t1 == t0 {
		t.Error("a new untracked file did not change the tree")
	}
	write(t, r.Top, "a.txt", "two\n")
	t2 := snap()
	if t2 == t1 {
		t.Error("a tracked file's new content did not change the tree")
	}
	write(t, r.Top, "a.txt", "one\n")
	if got := snap(); got != t1 {
		t.Errorf("the content of t1 back, yet the tree is %s, not %s", got, t1)
	}
	after, _ := os.ReadFile(filepath.Join(r.GitDir, "index"))
	if !bytes.Equal(index, after) {
		t.Error("the user's index changed")
	}
	if got := git("rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved from %s to %s", head, got)
	}
	if out := git("stash", "list"); out != "" {
		t.Errorf("stash list: %q", out)
	}
	if out := git("for-each-ref"); strings.Count(out, "\n") != 1 {
		t.Errorf("refs: %q", out)
	}
	// The stall breaker's objects went to its own objects, not the repository's.
	blob := strings.TrimSpace(git("hash-object", "a.txt"))
	write(t, r.Top, "c.txt", "only in the snapshot\n")
	snap()
	if c := strings.TrimSpace(git("hash-object", "c.txt")); exec.Command("git", "-C", r.Top, "cat-file", "-e", c).Run() == nil {
		t.Errorf("blob %s of c.txt is in the repository's objects", c)
	}
	if exec.Command("git", "-C", r.Top, "cat-file", "-e", blob).Run() != nil {
		t.Errorf("blob %s of the committed a.txt is not in the repository's objects", blob)
	}
	os.Remove(filepath.Join(r.Top, "c.txt"))
	if out := git("status", "--porcelain"); !strings.Contains(out, "A  b.txt") || !strings.Contains(out, "?? new.txt") || strings.Contains(out, "c.txt") {
		t.Errorf("git status changed: %q", out)
	}
}

// Checkpoints are commits under ralph-loop's refs, chained, with a diffstat and a patch
// each; DeleteRefs removes a loop's refs and nothing else.
func TestCommit(t *testing.T) {
	r, git := repo(t)
	ctx := context.Background()
	s := Store{GitDir: filepath.Join(t.TempDir(), "git"), Index: filepath.Join(t.TempDir(), "index")}
	when := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	t0, err := Snapshot(ctx, r, s)
	if err != nil {
		t.Fatal(err)
	}
	head := Head(ctx, r)
	c0, err := Commit(ctx, r, s.GitDir, Ref("L1", 0), t0, head, "ralph-loop: loop L1 armed", when)
	if err != nil {
		t.Fatal(err)
	}
	write(t, r.Top, "a.txt", "one\ntwo\n")
	t1, _ := Snapshot(ctx, r, s)
	c1, err := Commit(ctx, r, s.GitDir, Ref("L1", 1), t1, c0, "ralph-loop: loop L1 iteration 1", when)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(git("rev-parse", c1+"^", c0+"^")); got != c0+"\n"+head {
		t.Errorf("parents: %q", got)
	}
	if got := git("log", "-1", "--format=%an <%ae> %at %s", Ref("L1", 1)); got != "ralph-loop <ralph-loop@localhost> 1795773600 ralph-loop: loop L1 iteration 1\n" {
		t.Errorf("commit: %q", got)
	}
	stat, err := Stat(ctx, r, c1)
	if err != nil || !strings.Contains(stat, "a.txt | 1 +") || !strings.Contains(stat, "1 file changed, 1 insertion(+)") {
		t.Errorf("Stat = %q, %v", stat, err)
	}
	var patch bytes.Buffer
	if err := Diff(ctx, r, "", c1, &patch); err != nil || !strings.Contains(patch.String(), "+two") {
		t.Errorf("Diff = %q, %v", patch.String(), err)
	}
	patch.Reset()
	if err := Diff(ctx, r, c0, c1, &patch); err != nil || !strings.Contains(patch.String(), "+two") {
		t.Errorf("Diff c0 c1 = %q, %v", patch.String(), err)
	}
	if _, err := Commit(ctx, r, s.GitDir, Ref("L2", 0), t0, "", "other", when); err != nil {
		t.Fatal(err)
	}
	refs, _ := Refs(ctx, r, RefPrefix+"L1/")
	if len(refs) != 2 || refs[0][0] != Ref("L1", 0) || refs[1][1] != c1 {
		t.Errorf("Refs = %q", refs)
	}
	if n, err := DeleteRefs(ctx, r, RefPrefix+"L1/"); n != 2 || err != nil {
		t.Errorf("DeleteRefs = %d, %v", n, err)
	}
	if out := git("for-each-ref", "--format=%(refname)"); out != "refs/heads/main\n"+Ref("L2", 0)+"\n" {
		t.Errorf("refs left: %q", out)
	}
	if out := git("status", "--porcelain"); !strings.Contains(out, "A  b.txt") {
		t.Errorf("the user's staged change is gone: %q", out)
	}
}

// BenchmarkSnapshot measures a stop's snapshot of a small repository where one file
// changed.
func BenchmarkSnapshot(b *testing.B) {
	r, _ := repo(b)
	s := Store{GitDir: filepath.Join(b.TempDir(), "git"), Index: filepath.Join(b.TempDir(), "index"), Objects: filepath.Join(b.TempDir(), "objects")}
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		os.WriteFile(filepath.Join(r.Top, "a.txt"), []byte(strings.Repeat("x", i)), 0o644)
		if _, err := Snapshot(ctx, r, s); err != nil {
			b.Fatal(err)
		}
	}
}

// A linked work tree (its .git a file naming its git directory, the objects in the common
// one) and a repository of SHA-256 objects are found without git and recorded.
func TestFindLinkedAndSHA256(t *testing.T) {
	r, git := repo(t)
	linked := filepath.Join(t.TempDir(), "linked")
	git("worktree", "add", "-q", linked)
	l, err := Find(filepath.Join(linked))
	if err != nil {
		t.Fatal(err)
	}
	if l.Top != linked || l.GitDir != filepath.Join(r.GitDir, "worktrees", "linked") || l.Objects != r.Objects {
		t.Errorf("linked: %+v (main %+v)", l, r)
	}
	l.Git = r.Git
	s := Store{GitDir: filepath.Join(t.TempDir(), "git"), Index: filepath.Join(t.TempDir(), "index"), Objects: filepath.Join(t.TempDir(), "objects")}
	if tree, err := Snapshot(context.Background(), l, s); err != nil || !strings.HasPrefix(tree, IndexPrefix) {
		t.Errorf("linked: Snapshot = %q, %v", tree, err)
	}

	dir := t.TempDir()
	if out, err := exec.Command(r.Git, "init", "-q", "--object-format=sha256", dir).CombinedOutput(); err != nil {
		t.Skipf("git init --object-format=sha256: %v: %s", err, out)
	}
	write(t, dir, "a.txt", "one\n")
	r256, err := Find(dir)
	if err != nil {
		t.Fatal(err)
	}
	r256.Git = r.Git
	s = Store{GitDir: filepath.Join(t.TempDir(), "git"), Index: filepath.Join(t.TempDir(), "index")}
	tree, err := Snapshot(context.Background(), r256, s)
	if err != nil || len(tree) != 64 {
		t.Fatalf("sha256: Snapshot = %q, %v", tree, err)
	}
	if _, err := Commit(context.Background(), r256, s.GitDir, Ref("L", 0), tree, "", "m", time.Now()); err != nil {
		t.Errorf("sha256: Commit: %v", err)
	}
}

// BenchmarkFirstRead measures the first stop of a loop that reads the work tree: the work
// tree found, and its first snapshot in a fresh store.
func BenchmarkFirstRead(b *testing.B) {
	r, _ := repo(b)
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		f, err := Find(r.Top)
		if err != nil {
			b.Fatal(err)
		}
		f.Git = r.Git
		if _, err := Snapshot(ctx, f, Store{GitDir: filepath.Join(dir, "git"), Index: filepath.Join(dir, "index"), Objects: filepath.Join(dir, "objects")}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLaterRead measures a later stop that reads the work tree for the stall breaker:
// a file changed since the last snapshot, in a store made before.
func BenchmarkLaterRead(b *testing.B) {
	r, _ := repo(b)
	ctx := context.Background()
	dir := b.TempDir()
	s := Store{GitDir: filepath.Join(dir, "git"), Index: filepath.Join(dir, "index"), Objects: filepath.Join(dir, "objects")}
	for i := 0; i < b.N; i++ {
		write(b, r.Top, "a.txt", fmt.Sprintf("step %d\n", i))
		if _, err := Snapshot(ctx, r, s); err != nil {
			b.Fatal(err)
		}
	}
}
