package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// lockWait bounds the wait for another install of the same host.
const lockWait = 30 * time.Second

// maxReplans is how often Do plans again when a file changes under it.
const maxReplans = 20

// Do plans an install (or uninstall) and, unless dry, carries it out under the host's
// install lock, planning again when a file changed between the plan and its write (another
// program writing its settings at the same moment keeps its change).
func (inst *Target) Do(ctx context.Context, o Options, install, dry bool) (*Plan, error) {
	if dry || o.StateDir == "" {
		p, err := inst.plan(o, install)
		if err != nil || dry {
			return p, err
		}
		return p, inst.applyReplanning(o, install, p)
	}
	lockDir := filepath.Join(o.StateDir, "install")
	fl, err := lockFile(ctx, filepath.Join(lockDir, inst.Name+".lock"))
	if err != nil {
		return nil, err
	}
	defer fl.Unlock()
	p, err := inst.plan(o, install)
	if err == nil {
		err = inst.applyReplanning(o, install, p)
	}
	if !install {
		// Nothing of ralph-loop's stays once no install of the host is left: not the
		// lock, nor the directories made for it (backups of the user's files stay).
		if m, _ := filepath.Glob(filepath.Join(lockDir, inst.Name+"-*", "record.json")); len(m) == 0 {
			os.Remove(fl.Path())
			os.Remove(lockDir)
			os.Remove(o.StateDir)
		}
	}
	return p, err
}

// lockFile takes the install lock at path, waiting at most lockWait. A lock file removed
// (by an uninstall) while this process waited for it is locked again at its new file.
func lockFile(ctx context.Context, path string) (*flock.Flock, error) {
	ctx, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	for {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
		}
		fl := flock.New(path)
		ok, err := fl.TryLockContext(ctx, 50*time.Millisecond)
		if err != nil || !ok {
			return nil, fmt.Errorf("lock %s: another ralph-loop install is running (%v)", fl.Path(), err)
		}
		held, err1 := fl.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return fl, nil
		}
		fl.Unlock()
	}
}

func (inst *Target) applyReplanning(o Options, install bool, p *Plan) error {
	for i := 0; ; i++ {
		err := p.Apply()
		if !errors.Is(err, errChanged) || i == maxReplans {
			return err
		}
		time.Sleep(time.Duration(i+1) * time.Millisecond)
		np, err := inst.plan(o, install)
		if err != nil {
			return err
		}
		*p = *np
	}
}

// Apply carries the plan out: the record, backups, then writes that only replace what the
// plan was made from (errChanged if a file changed since) and removals.
func (p *Plan) Apply() error {
	if p.Skipped != "" {
		return nil
	}
	if p.record != nil && p.RecordDir != "" && p.Changed() {
		if err := p.record.write(p.RecordDir); err != nil {
			return err
		}
	}
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Action == "unchanged" {
			continue
		}
		if c.Backup != "" && c.Old != nil {
			if err := unchanged(c.Path, c.Old); err != nil {
				return err
			}
			name, err := backup(c.Backup, c.Path, c.Old)
			if err != nil {
				return err
			}
			c.Backup = name
		}
		switch c.Action {
		case "create", "update":
			perm := c.Perm
			if perm == 0 {
				perm = 0o644
			}
			if err := replaceFile(c.Path, c.Old, c.Content, perm); err != nil {
				return err
			}
		case "remove":
			if c.Dir {
				os.Remove(c.Path) // only if still empty
				continue
			}
			if fi, err := os.Lstat(c.Path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				if err := replaceFile(c.Path, c.Old, []byte("{}\n"), c.Perm); err != nil {
					return err
				}
				continue
			}
			if err := unchanged(c.Path, c.Old); err != nil {
				return err
			}
			if err := os.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", c.Path, err)
			}
		}
	}
	if p.dropRecord && p.RecordDir != "" && p.Changed() {
		return removeRecord(p.RecordDir)
	}
	return nil
}

// maxBackups bounds the backups of one file name in a backups directory: its first (the
// user's file as it was before ralph-loop touched it) and the newest others.
const maxBackups = 5

// backup saves data, the content of path, under a name in dir that no other backup has:
// <base>.<UTC time>[.N].bak. A content backed up there already is not saved again (that
// backup's name is returned), and the oldest backups but the first are removed beyond
// maxBackups, so that install and uninstall run again and again do not pile them up.
func backup(dir, path string, data []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("back up %s: %w", path, err)
	}
	base := filepath.Base(path)
	have := backupsOf(dir, base)
	for _, name := range have {
		if old, err := os.ReadFile(name); err == nil && bytes.Equal(old, data) {
			return name, nil
		}
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for n := 1; n < 1000; n++ {
		name := filepath.Join(dir, base+"."+stamp+".bak")
		if n > 1 {
			name = filepath.Join(dir, fmt.Sprintf("%s.%s.%d.bak", base, stamp, n))
		}
		err := createExclusive(name, data, 0o600)
		if err == nil {
			have = append(have, name)
			for len(have) > maxBackups {
				os.Remove(have[1]) // the oldest but the first
				have = append(have[:1], have[2:]...)
			}
			return name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("back up %s: %w", path, err)
		}
	}
	return "", fmt.Errorf("back up %s: too many backups in %s this second", path, dir)
}

// backupsOf are the backups of a file name in dir, oldest first.
func backupsOf(dir, base string) []string {
	type bak struct {
		path, stamp string
		n           int
	}
	var out []bak
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base+".")
		if rest, ok2 := strings.CutSuffix(rest, ".bak"); ok && ok2 && e.Type().IsRegular() {
			stamp, num, _ := strings.Cut(rest, ".")
			if len(stamp) != len("20060102T150405Z") || strings.Contains(num, ".") {
				continue // another file's, whose name starts with this one's
			}
			n, _ := strconv.Atoi(num)
			out = append(out, bak{filepath.Join(dir, e.Name()), stamp, n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].stamp != out[j].stamp {
			return out[i].stamp < out[j].stamp
		}
		return out[i].n < out[j].n
	})
	paths := make([]string, len(out))
	for i, b := range out {
		paths[i] = b.path
	}
	return paths
}

// Describe is a short human account of a change.
func (c Change) Describe() string {
	action := c.Action
	if _, err := os.Lstat(c.Path); err != nil && action == "unchanged" {
		action = "absent" // not there, and nothing to do: not "unchanged"
	}
	s := fmt.Sprintf("%-9s %s", action, c.Path)
	if c.Dir {
		s += string(filepath.Separator)
	}
	if c.Backup != "" && c.Action != "unchanged" {
		if strings.HasSuffix(c.Backup, ".bak") {
			s += " (backup: " + c.Backup + ")"
		} else {
			s += " (backup in " + c.Backup + ")"
		}
	}
	if c.Note != "" {
		s += " (" + c.Note + ")"
	}
	return strings.TrimSpace(s)
}
