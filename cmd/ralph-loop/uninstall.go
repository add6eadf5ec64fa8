package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/hook/worktree"
	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// What uninstall leaves on the machine, and --purge, which takes it out: the backups of the
// user's files (under the state directory's install/), the loops' state (the state
// directory), ralph-loop's own copies of the loops with their key (the data directory), and
// the checkpoints of loops armed with --checkpoint (refs/ralph-loop/<loop>/ in each loop's
// repository).

// purgeAllowed refuses --purge while a loop is active: its state is what keeps it going,
// and only the user ends a loop.
func purgeAllowed() error {
	loops, err := allLoops(newStore())
	if err != nil && len(loops) == 0 {
		return fmt.Errorf("--purge: read the loops: %w", err)
	}
	var active []string
	for _, l := range loops {
		if l.Status == state.Active {
			active = append(active, l.SessionID)
		}
	}
	if len(active) > 0 {
		return fmt.Errorf("--purge: %s active (session %s); cancel %s first (ralph-loop cancel --all), or uninstall without --purge",
			inject.Plural(len(active), "loop is", "loops are"), strings.Join(active, ", "), map[bool]string{true: "it", false: "them"}[len(active) == 1])
	}
	return nil
}

// leftBehind says, after uninstall, what stays and how to remove it; with purge it removes
// the backups, and everything else too once no install of any host is left: the loops'
// state and their checkpoints in the repositories they record.
func leftBehind(ctx context.Context, w, errW io.Writer, purge bool) error {
	dir, keep := stateDir(), keepDir()
	installs, _ := filepath.Glob(filepath.Join(dir, "install", "*", "record.json"))
	loops, _ := allLoops(newStore())
	if purge {
		if len(installs) == 0 {
			removeCheckpoints(ctx, w, errW, loops, "removed", false)
			var gone []string
			for _, d := range []string{dir, keep} {
				if exists(d) {
					if err := os.RemoveAll(d); err != nil {
						return fmt.Errorf("--purge: remove %s: %w", d, err)
					}
					gone = append(gone, d)
				}
			}
			if len(gone) > 0 {
				fmt.Fprintf(w, "ralph-loop: removed %s (the loops' state and the backups)\n", strings.Join(gone, " and "))
			}
			return nil
		}
		// Installs are left (another scope, another project): their state stays, and the
		// backups of the installs taken out go.
		for _, d := range recordDirs(dir) {
			if !exists(filepath.Join(d, "record.json")) {
				if err := os.RemoveAll(d); err != nil {
					return fmt.Errorf("--purge: remove %s: %w", d, err)
				}
				fmt.Fprintf(w, "ralph-loop: removed %s (backups)\n", d)
			}
		}
		fmt.Fprintf(w, "ralph-loop: kept the loops' state in %s: ralph-loop is still installed (%s)\n", dir, inject.Plural(len(installs), "install", "installs"))
		return nil
	}
	var kept []string
	if n := countBackups(dir); n > 0 {
		kept = append(kept, fmt.Sprintf("%s of your files in %s", inject.Plural(n, "backup", "backups"), filepath.Join(dir, "install")))
	}
	var where []string
	if hasLoopState(dir) {
		where = append(where, dir)
	}
	if exists(keep) {
		where = append(where, keep)
	}
	if len(where) > 0 {
		kept = append(kept, "the loops' state in "+strings.Join(where, " and "))
	}
	kept = append(kept, checkpointsLeft(ctx, loops)...)
	if len(kept) > 0 {
		fmt.Fprintf(w, "ralph-loop: kept: %s; ralph-loop uninstall --purge removes them\n", strings.Join(kept, ", "))
	}
	return nil
}

// checkpointsLeft says, per repository, how many checkpoint refs the loops left there.
func checkpointsLeft(ctx context.Context, loops []state.Loop) []string {
	n := map[string]int{}
	var repos []string
	for _, l := range loops {
		if !l.Checkpoint || l.Work.Repo == "" {
			continue
		}
		repo, err := loopRepo(l)
		if err != nil {
			continue
		}
		refs, err := worktree.Refs(ctx, repo, worktree.RefPrefix+l.LoopID+"/")
		if err != nil || len(refs) == 0 {
			continue
		}
		if n[l.Work.Repo] == 0 {
			repos = append(repos, l.Work.Repo)
		}
		n[l.Work.Repo] += len(refs)
	}
	var out []string
	for _, r := range repos {
		out = append(out, fmt.Sprintf("%s (%s) in %s", inject.Plural(n[r], "checkpoint ref", "checkpoint refs"), worktree.RefPrefix, inject.Printable(r)))
	}
	return out
}

// recordDirs are the install record directories under the state directory.
func recordDirs(dir string) []string {
	entries, err := os.ReadDir(filepath.Join(dir, "install"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, "install", e.Name()))
		}
	}
	return out
}

// countBackups counts the backup files of every install record directory.
func countBackups(dir string) int {
	n := 0
	for _, d := range recordDirs(dir) {
		entries, _ := os.ReadDir(filepath.Join(d, "backups"))
		n += len(entries)
	}
	return n
}

// hasLoopState reports whether the state directory holds anything but installs.
func hasLoopState(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() != "install" {
			return true
		}
	}
	return false
}
