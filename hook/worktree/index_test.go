package worktree

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The index's fingerprint is equal exactly when the trees git write-tree makes are: over a
// series of changes to a work tree (content of the same size, a new file, a file in a new
// directory, a mode, a symlink, a removal, a rename, an ignored file, a change undone), for
// each index format git writes (2; 3, with an intent-to-add entry's extended flags; 4, with
// its compressed paths) and in a sha256 repository. Each step is compared with every other.
func TestIndexFingerprintMatchesTrees(t *testing.T) {
	for _, c := range []struct {
		name    string
		version string // the repository index's format, copied by the first snapshot
		sha256  bool
	}{
		{"v2", "2", false}, {"v3", "3", false}, {"v4", "4", false}, {"v4 sha256", "4", true}, {"v2 sha256", "2", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, git := repo(t)
			if c.sha256 {
				dir := t.TempDir()
				if out, err := runGit(r.Git, dir, "init", "-q", "--object-format=sha256"); err != nil {
					t.Skipf("git init --object-format=sha256: %v: %s", err, out)
				}
				write(t, dir, "a.txt", "one\n")
				write(t, dir, ".gitignore", "*.log\n")
				if out, err := runGit(r.Git, dir, "add", "-A"); err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				gitProg := r.Git
				var err error
				if r, err = Find(dir); err != nil {
					t.Fatal(err)
				}
				r.Git = gitProg
				git = func(args ...string) string {
					t.Helper()
					out, err := runGit(r.Git, dir, args...)
					if err != nil {
						t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
					}
					return out
				}
			}
			if c.version == "3" {
				// Extended flags: an intent-to-add entry (git add makes it a whole one)
				// and a skip-worktree one (kept).
				write(t, r.Top, "later.txt", "intent\n")
				write(t, r.Top, "skipped.txt", "skipped\n")
				git("add", "skipped.txt")
				git("update-index", "--skip-worktree", "skipped.txt")
				git("add", "-N", "later.txt")
			}
			git("update-index", "--index-version", c.version)
			stall := Store{GitDir: filepath.Join(t.TempDir(), "git"), Index: filepath.Join(t.TempDir(), "index"), Objects: filepath.Join(t.TempDir(), "objects")}
			trees := Store{GitDir: filepath.Join(t.TempDir(), "git"), Index: filepath.Join(t.TempDir(), "index")}
			ctx := context.Background()
			var fps, ids []string
			step := func(what string) {
				t.Helper()
				fp, err := Snapshot(ctx, r, stall)
				if err != nil || !strings.HasPrefix(fp, IndexPrefix) {
					t.Fatalf("%s: Snapshot = %q, %v (want a fingerprint)", what, fp, err)
				}
				id, err := Snapshot(ctx, r, trees)
				if err != nil || strings.HasPrefix(id, IndexPrefix) {
					t.Fatalf("%s: Snapshot = %q, %v (want a tree)", what, id, err)
				}
				fps, ids = append(fps, fp), append(ids, id)
			}
			step("start")
			step("nothing changed")
			write(t, r.Top, "a.txt", "two\n") // the same size
			step("a.txt's content")
			write(t, r.Top, "new.txt", "untracked\n")
			step("a new file")
			if err := os.MkdirAll(filepath.Join(r.Top, "deep", "er"), 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(r.Top, "deep", "er"), "x.go", "package x\n")
			step("a file in a new directory")
			if err := os.Chmod(filepath.Join(r.Top, "new.txt"), 0o755); err != nil {
				t.Fatal(err)
			}
			step("a mode")
			if err := os.Symlink("a.txt", filepath.Join(r.Top, "link")); err != nil {
				t.Fatal(err)
			}
			step("a symlink")
			write(t, r.Top, "build.log", "ignored\n")
			step("an ignored file")
			if err := os.Rename(filepath.Join(r.Top, "new.txt"), filepath.Join(r.Top, "renamed.txt")); err != nil {
				t.Fatal(err)
			}
			step("a rename")
			if err := os.Remove(filepath.Join(r.Top, "deep", "er", "x.go")); err != nil {
				t.Fatal(err)
			}
			step("a removal")
			write(t, r.Top, "a.txt", "one\n")
			step("a.txt back")
			if data, err := os.ReadFile(stall.Index); err != nil || len(data) < 8 || fmt.Sprint(data[7]) != c.version {
				t.Errorf("the snapshots' index is not in format %s (%v)", c.version, err)
			}
			for i := range fps {
				for j := range fps {
					if (fps[i] == fps[j]) != (ids[i] == ids[j]) {
						t.Errorf("steps %d and %d: fingerprints equal %v, trees equal %v", i, j, fps[i] == fps[j], ids[i] == ids[j])
					}
				}
			}
			if fps[0] != fps[1] || fps[1] == fps[2] || fps[6] != fps[7] {
				t.Errorf("fingerprints: %v", fps)
			}
		})
	}
}

// What the reader cannot take is errIndex (the snapshot then asks git for a tree): no
// header, another format, entries cut short, a split index.
func TestIndexFingerprintRefuses(t *testing.T) {
	r, git := repo(t)
	data, err := os.ReadFile(filepath.Join(r.GitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := indexFingerprint(data, 20); err != nil {
		t.Fatalf("the repository's own index: %v", err)
	}
	v5 := append([]byte(nil), data...)
	v5[7] = 5
	cases := map[string][]byte{"empty": nil, "no header": []byte("DIRX" + strings.Repeat("\x00", 40)), "format 5": v5,
		"cut short": data[:40]}
	git("update-index", "--split-index")
	if split, err := os.ReadFile(filepath.Join(r.GitDir, "index")); err == nil {
		cases["split"] = split
	}
	for name, d := range cases {
		if fp, err := indexFingerprint(d, 20); err == nil {
			t.Errorf("%s: fingerprint %q, want an error", name, fp)
		}
	}
	if _, ok := cases["split"]; !ok {
		t.Error("no split index to test")
	}
}

func runGit(git, dir string, args ...string) (string, error) {
	cmd := command0(git, dir, args...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func FuzzIndexFingerprint(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00" + strings.Repeat("\x00", 20)))
	f.Add([]byte(fmt.Sprintf("DIRC\x00\x00\x00\x04\x00\x00\x00\x01%s", strings.Repeat("\xff", 90))))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, n := range []int{20, 32} {
			_, _ = indexFingerprint(data, n) // never panics, never reads past the end
		}
	})
}

func command0(git, dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(git, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x",
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	return cmd
}
