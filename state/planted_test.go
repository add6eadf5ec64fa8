//go:build unix

package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/state/planted"
)

// plants are what the tests leave in place of a state file.
var plants = []planted.Plant{planted.FIFO, planted.Symlink, planted.Hardlink, planted.Dir}

// plant puts p at path, failing the test if it cannot.
func plant(t *testing.T, p planted.Plant, path, outside string) {
	t.Helper()
	if err := p.Make(path, outside); err != nil {
		t.Fatal(err)
	}
}

// armed returns a store with an active loop in session s1.
func armed(t *testing.T) (*Store, *Loop, string) {
	t.Helper()
	root := t.TempDir()
	s := NewStore(filepath.Join(root, "state"))
	l := newLoop("s1")
	if err := s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return l, nil }); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(root, "outside.txt")
	if err := os.WriteFile(outside, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return s, l, outside
}

func unchanged(t *testing.T, outside string) {
	t.Helper()
	if data, err := os.ReadFile(outside); err != nil || string(data) != "precious\n" {
		t.Errorf("the planted link's target was changed: %q, %v", data, err)
	}
}

// Every event and tool log operation, with a FIFO, a link or a directory planted in place of
// the log: none hangs, none writes through the link, and the loop keeps working: the stop
// decision (an Update) moves the planted file aside and goes on.
func TestPlantedLogs(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"events.jsonl", "tools.jsonl"} {
		for _, p := range plants {
			t.Run(name+"/"+p.Name, func(t *testing.T) {
				s, l, outside := armed(t)
				var warned []string
				s.Warn = func(m string) { warned = append(warned, m) }
				path := filepath.Join(s.SessionDir("s1"), name)
				os.Remove(path)
				plant(t, p, path, outside)
				planted.Bounded(t, "Events", func() error { _, err := s.Events("s1"); return err })
				planted.Bounded(t, "ToolUses", func() error { _, _, err := s.ToolUses(l); return err })
				planted.Bounded(t, "AppendEvent", func() error { return s.AppendEvent("s1", Event{At: t0, LoopID: l.LoopID, Action: ActDenied}) })
				planted.Bounded(t, "AppendToolUse", func() error { return s.AppendToolUse("s1", l.LoopID, "toolu_1", false) })
				err := planted.Bounded(t, "Update", func() error {
					return s.Update(ctx, "s1", func(tx *Tx, cur *Loop) (*Loop, error) {
						tx.Record(Event{At: t0, LoopID: cur.LoopID, Action: ActBlocked})
						if err := tx.ResetToolLog(); err != nil {
							return nil, err
						}
						cur.Iteration++
						return cur, nil
					})
				})
				if err != nil {
					t.Fatalf("Update after a planted %s: %v", name, err)
				}
				unchanged(t, outside)
				fi, err := os.Lstat(path)
				if err == nil && (!fi.Mode().IsRegular() || hardLinks(fi) > 1) {
					t.Errorf("%s is still the planted %s", name, p.Name)
				}
				if len(warned) == 0 || !strings.Contains(warned[0], name) || !strings.Contains(warned[0], "moved it to") {
					t.Errorf("warnings %q: want one naming %s and where it went", warned, name)
				}
				// The log works again.
				if err := s.AppendToolUse("s1", l.LoopID, "toolu_2", false); err != nil {
					t.Fatal(err)
				}
				if err := s.AppendEvent("s1", Event{At: t0, LoopID: l.LoopID, Action: ActDenied}); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Events("s1"); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// A read of a planted file is refused with an error naming it, not followed, not waited on.
func TestPlantedReadsRefused(t *testing.T) {
	s, l, outside := armed(t)
	path := filepath.Join(s.SessionDir("s1"), "events.jsonl")
	os.Remove(path)
	plant(t, planted.FIFO, path, "")
	// A writer holds the FIFO open: a read that waits for data would hang.
	w, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = planted.Bounded(t, "Events", func() error { _, err := s.Events("s1"); return err })
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("Events on a FIFO: %v", err)
	}
	tools := s.toolLogPath("s1")
	os.Remove(tools)
	os.Symlink(outside, tools)
	_, _, err = s.ToolUses(l)
	if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("ToolUses on a link: %v", err)
	}
}

// The lock file replaced by a FIFO, a link or a directory: the next update replaces it and
// works.
func TestPlantedLock(t *testing.T) {
	for _, p := range plants {
		t.Run(p.Name, func(t *testing.T) {
			s, _, outside := armed(t)
			s.Warn = func(string) {}
			path := filepath.Join(s.SessionDir("s1"), "loop.lock")
			os.Remove(path)
			plant(t, p, path, outside)
			err := planted.Bounded(t, "Update", func() error {
				return s.Update(context.Background(), "s1", func(_ *Tx, cur *Loop) (*Loop, error) { cur.Iteration++; return cur, nil })
			})
			if err != nil {
				t.Fatal(err)
			}
			unchanged(t, outside)
		})
	}
}

// The keep (outside the state directory) is written without following a link planted at
// a copy's name, its temp file's or the key's, and a FIFO there is not waited on.
func TestPlantedKeep(t *testing.T) {
	for _, p := range plants {
		for _, at := range []string{"s1.json", "s1.json.tmp", "key"} {
			t.Run(p.Name+"/"+at, func(t *testing.T) {
				root := t.TempDir()
				s := NewStore(filepath.Join(root, "state"))
				s.SetKeepDir(filepath.Join(root, "keep"))
				os.MkdirAll(s.copiesDir(), 0o700)
				outside := filepath.Join(root, "outside.txt")
				os.WriteFile(outside, []byte("precious\n"), 0o600)
				where := filepath.Join(s.copiesDir(), at)
				if at == "key" {
					where = filepath.Join(root, "keep", "key")
				}
				plant(t, p, where, outside)
				l := newLoop("s1")
				err := planted.Bounded(t, "arming", func() error {
					return s.Update(context.Background(), "s1", func(*Tx, *Loop) (*Loop, error) { return l, nil })
				})
				if err != nil {
					t.Fatal(err)
				}
				unchanged(t, outside)
				planted.Bounded(t, "Peek", func() error { _, err := s.Peek("s1"); return err })
				unchanged(t, outside)
			})
		}
	}
}
