// Package program finds the programs ralph-loop's hooks run for a loop (git, bubblewrap, a
// notifier) on PATH, outside every directory the agent may write: a PATH that names a
// project directory first (bin/, node_modules/.bin, a direnv layout) must not hand the hook
// a git the agent wrote there. Relative entries and directories every user may write
// (/tmp, /dev/shm) are passed over too. Without the host's sandbox the agent writes what the
// user writes, and the sandbox is not said to protect a loop; with it, the roots it leaves writable are skipped.
package program

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotFound means no PATH entry outside the skipped directories has the program.
var ErrNotFound = errors.New("not found on PATH outside the project and what the agent may write")

// Finder finds programs on a PATH, passing over the entries the agent may have written.
type Finder struct {
	// Path is the PATH to look in.
	Path string
	// Skip are directories whose programs are never run: the loop's project (its directory
	// and its work tree), and the roots the host's sandbox lets the agent write (Claude
	// Code's temporary directory; /tmp and $TMPDIR under Codex's workspace-write).
	Skip []string
}

// For is the Finder of a hook whose environment is getenv, skipping the directories skip:
// the loop's project, and the roots the host's sandbox lets the agent write.
func For(getenv func(string) string, skip ...string) Finder {
	return Finder{Path: getenv("PATH"), Skip: skip}
}

// Look finds name on the PATH: the first entry that is absolute, outside every skipped
// directory (as written and with its links resolved), and not writable by every user,
// holding an executable file of that name whose links lead outside them too. A name with a
// slash is not looked up.
func (f Finder) Look(name string) (string, error) {
	if name == "" || strings.ContainsRune(name, '/') {
		return "", fmt.Errorf("%q: not a program name", name)
	}
	skip := make([]string, 0, 2*len(f.Skip))
	for _, s := range f.Skip {
		if s == "" || !filepath.IsAbs(s) {
			continue
		}
		skip = append(skip, filepath.Clean(s))
		if r, err := filepath.EvalSymlinks(s); err == nil {
			skip = append(skip, r)
		}
	}
	skipped := func(p string) bool {
		for _, s := range skip {
			if within(p, s) {
				return true
			}
		}
		return false
	}
	for _, dir := range filepath.SplitList(f.Path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // relative: taken from wherever the hook runs
		}
		dir = filepath.Clean(dir)
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || skipped(dir) || skipped(real) {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o002 != 0 {
			continue // anyone may put a program there
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err != nil || skipped(r) {
			continue
		}
		return p, nil
	}
	return "", fmt.Errorf("%s: %w", name, ErrNotFound)
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
