package worktree

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// plantedPrograms writes, into the repository of r, into the user's configuration under
// home and into the work tree, every place a git configuration, attribute file or hook the
// agent can write names a program: a clean and a smudge filter (the repository's config,
// ~/.gitconfig, ~/.config/git/config, with a .gitattributes that names them), a diff driver
// and a textconv, the file system monitor, hooks (post-index-change, reference-transaction)
// in the repository's hooks directory and in one core.hooksPath names, commit signing with
// gpg.program, and a partial clone's lazy fetch through a remote whose transport runs a
// command. Each program, run, leaves a file in ran; the names are returned.
func plantedPrograms(t *testing.T, r Repo, home, ran string) {
	t.Helper()
	prog := func(name string) string {
		p := filepath.Join(ran, "..", "bin", name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		body := "#!/bin/sh\n: > '" + filepath.Join(ran, name) + "'\ncat\n"
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	os.MkdirAll(ran, 0o755)
	config := func(file, text string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(file), 0o755)
		f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(text)
		f.Close()
	}
	gitDir := r.GitDir
	config(filepath.Join(gitDir, "config"), `[filter "repo"]
	clean = `+prog("repo-clean")+`
	smudge = `+prog("repo-smudge")+`
	required = true
[diff "repo"]
	command = `+prog("repo-diff")+`
	textconv = `+prog("repo-textconv")+`
[core]
	fsmonitor = `+prog("fsmonitor")+`
[commit]
	gpgSign = true
[gpg]
	program = `+prog("gpg")+`
[remote "origin"]
	url = ext::`+prog("transport")+` %S
	promisor = true
	partialclonefilter = blob:none
[protocol "ext"]
	allow = always
[extensions]
	partialClone = origin
`)
	config(filepath.Join(home, ".gitconfig"), "[filter \"home\"]\n\tclean = "+prog("home-clean")+"\n\trequired = true\n")
	config(filepath.Join(home, ".config", "git", "config"), "[filter \"xdg\"]\n\tclean = "+prog("xdg-clean")+"\n\trequired = true\n")
	if err := os.WriteFile(filepath.Join(r.Top, ".gitattributes"), []byte("*.txt filter=repo diff=repo\n*.md filter=home\n*.c filter=xdg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.txt", "notes.md", "main.c"} {
		os.WriteFile(filepath.Join(r.Top, f), []byte("changed "+f+"\n"), 0o644)
	}
	for _, h := range []string{"post-index-change", "reference-transaction", "pre-commit", "post-commit"} {
		p := filepath.Join(gitDir, "hooks", h)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("#!/bin/sh\n: > '"+filepath.Join(ran, "hook-"+h)+"'\n"), 0o755)
		p = filepath.Join(ran, "..", "hooks", h)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("#!/bin/sh\n: > '"+filepath.Join(ran, "hookspath-"+h)+"'\n"), 0o755)
	}
	config(filepath.Join(home, ".gitconfig"), "[core]\n\thooksPath = "+filepath.Join(ran, "..", "hooks")+"\n")
}

// Every program a git configuration, attribute file or hook names, in the repository, in
// the user's configuration, in the work tree: none runs when ralph-loop records the work
// tree (the stall breaker, a checkpoint), lists or deletes its refs, or shows a checkpoint's
// diffstat and patch (issue 36: a clean filter written into .git/config by Claude Code's
// Write tool, which runs outside its sandbox, ran at the next stop outside it).
func TestNoPlantedProgramRuns(t *testing.T) {
	r, _ := repo(t)
	root := t.TempDir()
	home, ran := filepath.Join(root, "home"), filepath.Join(root, "ran")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	plantedPrograms(t, r, home, ran)
	ctx := context.Background()
	for _, objects := range []string{filepath.Join(root, "objects"), ""} {
		s := Store{Index: filepath.Join(t.TempDir(), "index"), Objects: objects}
		tree, err := Snapshot(ctx, r, s)
		if err != nil {
			t.Logf("Snapshot (objects %q): %v", objects, err)
			continue
		}
		if objects != "" {
			continue
		}
		c := commitAt(t, ctx, r, Ref("L1", 0), tree, Head(ctx, r))
		if c == "" {
			continue
		}
		Refs(ctx, r, RefPrefix)
		Stat(ctx, r, c)
		var patch bytes.Buffer
		Diff(ctx, r, "", c, &patch)
		DeleteRefs(ctx, r, RefPrefix)
	}
	entries, _ := os.ReadDir(ran)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) > 0 {
		t.Errorf("programs the agent could have named ran: %s", strings.Join(names, ", "))
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// commitAt makes a checkpoint commit of tree.
func commitAt(t *testing.T, ctx context.Context, r Repo, ref, tree, parent string) string {
	t.Helper()
	c, err := Commit(ctx, r, ref, tree, parent, "ralph-loop: test", time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Logf("Commit: %v", err)
	}
	return c
}
