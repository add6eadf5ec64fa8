package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/inject"
	"github.com/ralph-loop/ralph-loop/state"
)

// What uninstall leaves on the machine, and --purge, which takes it out: the backups of the
// user's files (under the state directory's install/), the loops' state (the state
// directory) and ralph-loop's own copies of the loops with their key (the keep directory).

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
// the backups, and everything else too once no install of any host is left.
func leftBehind(w io.Writer, purge bool) error {
	dir, keep := stateDir(), keepDir()
	installs, _ := filepath.Glob(filepath.Join(dir, "install", "*", "record.json"))
	if purge {
		if len(installs) == 0 {
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
	var loops []string
	if hasLoopState(dir) {
		loops = append(loops, dir)
	}
	if exists(keep) {
		loops = append(loops, keep)
	}
	if len(loops) > 0 {
		kept = append(kept, "the loops' state in "+strings.Join(loops, " and "))
	}
	if len(kept) > 0 {
		fmt.Fprintf(w, "ralph-loop: kept: %s; ralph-loop uninstall --purge removes them\n", strings.Join(kept, ", "))
	}
	return nil
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
