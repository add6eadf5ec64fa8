package worktree

import (
	"bytes"
	"context"
	"os"
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
		s := Store{GitDir: filepath.Join(t.TempDir(), "git"), Index: filepath.Join(t.TempDir(), "index"), Objects: objects}
		tree, err := Snapshot(ctx, r, s)
		if err != nil {
			t.Fatalf("Snapshot (objects %q): %v", objects, err)
		}
		if objects != "" {
			continue
		}
		c := commitAt(t, ctx, r, s.GitDir, Ref("L1", 0), tree, Head(ctx, r))
		if refs, err := Refs(ctx, r, RefPrefix); err != nil || len(refs) != 1 {
			t.Errorf("Refs = %q, %v", refs, err)
		}
		if stat, err := Stat(ctx, r, c); err != nil || !strings.Contains(stat, "a.txt") {
			t.Errorf("Stat = %q, %v", stat, err)
		}
		var patch bytes.Buffer
		if err := Diff(ctx, r, "", c, &patch); err != nil || !strings.Contains(patch.String(), "+changed a.txt") {
			t.Errorf("Diff = %q, %v", patch.String(), err)
		}
		if n, err := DeleteRefs(ctx, r, RefPrefix); n != 1 || err != nil {
			t.Errorf("DeleteRefs = %d, %v", n, err)
		}
	}
	entries, _ := os.ReadDir(ran)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) > 0 {
		t.Errorf("programs the agent could have named ran: %s", strings.Join(names, ", "))
	}
}

// commitAt makes a checkpoint commit of tree.
func commitAt(t *testing.T, ctx context.Context, r Repo, gitDir, ref, tree, parent string) string {
	t.Helper()
	c, err := Commit(ctx, r, gitDir, ref, tree, parent, "ralph-loop: test", time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return c
}

// What git ignores for the user is ignored: the user's global exclude file
// (core.excludesFile of ~/.gitconfig), read as data.
func TestSnapshotUserExcludes(t *testing.T) {
	r, _ := repo(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/global-ignore\n"), 0o644)
	os.WriteFile(filepath.Join(home, "global-ignore"), []byte("*.swp\n"), 0o644)
	s := Store{GitDir: filepath.Join(t.TempDir(), "git"), Index: filepath.Join(t.TempDir(), "index"), Objects: filepath.Join(t.TempDir(), "objects")}
	t0, err := Snapshot(context.Background(), r, s)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(r.Top, "a.txt.swp"), []byte("swap\n"), 0o644)
	if t1, err := Snapshot(context.Background(), r, s); err != nil || t1 != t0 {
		t.Errorf("a file the user's exclude file ignores changed the tree: %s, %v", t1, err)
	}
}
