package hosts

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/hook/install"
)

// maxLine is how long a hook command line install writes may be: the issue that made them
// short asked for "about 450 characters" (they were up to 2.7 KB).
const maxLine = 460

// A long path of a real install: npm's global bin under nvm, and the keep in a home.
const (
	longBinary = "/home/someone/.nvm/versions/node/v22.11.0/bin/ralph-loop"
	longKeep   = "/home/someone/.local/share/ralph-loop"
)

// Every hook command line install writes, on every host, at every scope (and in the
// plugin), is short, ends with the mark that says what it is, is known as ralph-loop's by
// it, and names the program it runs.
func TestHookLinesShort(t *testing.T) {
	for _, h := range Installers() {
		if _, ok := h.Host.(install.Encoder); !ok {
			continue // no command lines: a plugin or an extension of the host's own
		}
		longest := 0
		for _, ev := range h.Events {
			lines := map[string]string{
				install.BinaryCommand(h, ev, longBinary, install.ScriptPath(longKeep, h.Name)): longBinary,
				install.PortableCommandAt(h, ev, install.ScopeProject):                         "ralph-loop",
			}
			if h.PluginRoot != "" {
				lines[install.PortableCommandAt(h, ev, install.ScopePlugin)] = "ralph-loop"
			}
			for cmd, bin := range lines {
				longest = max(longest, len(cmd))
				if len(cmd) > maxLine {
					t.Errorf("%s %s: %d characters, want at most %d: %s", h.Name, ev.Name, len(cmd), maxLine, cmd)
				}
				if !strings.HasSuffix(cmd, " "+install.Mark) || !h.Ours(cmd, nil) {
					t.Errorf("%s %s: not marked or not known as ralph-loop's: %s", h.Name, ev.Name, cmd)
				}
				if b, ok := install.HookBinary(cmd, h.Name); !ok || b != bin {
					t.Errorf("%s %s: HookBinary = %q, %v; want %q", h.Name, ev.Name, b, ok, bin)
				}
			}
		}
		t.Logf("%s: longest line %d characters", h.Name, longest)
	}
}

// earlierLine is a command line an earlier version of install wrote
// (testdata/earlier-forms.jsonl: every event's, binary and portable, the fallback lines of
// one line each and the "[ -x" ones before them, and the plugin's).
type earlierLine struct {
	Host, Form, Event, Command string
}

// Every command line earlier versions wrote is still known as ralph-loop's (so that install
// replaces it and uninstall removes it), with the program it runs; and not as another
// host's.
func TestEarlierFormsKnown(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "earlier-forms.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var l earlierLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		n++
		h, ok := Installer(l.Host)
		if !ok {
			t.Fatalf("no installer %q", l.Host)
		}
		if !h.Ours(l.Command, nil) {
			t.Errorf("%s %s %s: not known as ralph-loop's: %s", l.Host, l.Form, l.Event, l.Command)
		}
		want := map[string]string{"binary": "/home/me/my tools/ralph-loop", "legacy-binary": "/home/me/bin/ralph-loop"}[l.Form]
		if want == "" {
			want = "ralph-loop"
		}
		if b, ok := install.HookBinary(l.Command, l.Host); !ok || b != want {
			t.Errorf("%s %s %s: HookBinary = %q, %v; want %q", l.Host, l.Form, l.Event, b, ok, want)
		}
		other, _ := Installer("gemini")
		if l.Host == "gemini" {
			other, _ = Installer("codex")
		}
		if other.Ours(l.Command, nil) {
			t.Errorf("%s %s %s: taken as %s's", l.Host, l.Form, l.Event, other.Name)
		}
	}
	if err := sc.Err(); err != nil || n < 100 {
		t.Fatalf("read %d lines: %v", n, err)
	}
}

// Each host's hook script, as install writes it, is clean in shellcheck (POSIX sh): the
// part install writes for the host as well as hook.sh, which make lint checks.
func TestScriptsShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Skip("shellcheck is not installed here (apt-get install shellcheck): the hosts' scripts are not checked")
	}
	for _, h := range Installers() {
		if _, ok := h.Host.(install.Encoder); !ok {
			continue
		}
		path := filepath.Join(t.TempDir(), h.Name+".sh")
		if err := os.WriteFile(path, []byte(h.Script()), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("shellcheck", "-s", "sh", path).CombinedOutput(); err != nil {
			t.Errorf("%s: shellcheck: %v\n%s", h.Name, err, out)
		}
	}
}

// A user's settings with the hooks an earlier version installed (testdata/upgrade: today's
// one-line fallbacks, written by install before this change, after a hook of the user's):
// the next install replaces each with this version's line, in its place, writes the hook
// script, and keeps the user's hook; uninstall then takes out every line of ralph-loop's.
func TestUpgradeFromEarlierForm(t *testing.T) {
	for _, c := range []struct{ host, file, at string }{
		{"claude", "claude-settings.json", ".claude/settings.json"},
		{"codex", "codex-hooks.json", ".codex/hooks.json"},
	} {
		t.Run(c.host, func(t *testing.T) {
			h, _ := Installer(c.host)
			home := t.TempDir()
			env := map[string]string{"HOME": home}
			o := install.Options{Scope: install.ScopeUser, Getenv: func(k string) string { return env[k] }, Binary: "/opt/ralph-loop/bin/ralph-loop",
				StateDir: filepath.Join(home, "state"), KeepDir: filepath.Join(home, "keep"), Now: time.Now()}
			old, err := os.ReadFile(filepath.Join("testdata", "upgrade", c.file))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(home, c.at)
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			before := h.FindHooks("", o.Getenv)
			if len(before) != 1 || len(before[0].Commands) != len(h.Events) {
				t.Fatalf("the earlier install's hooks are not found: %+v", before)
			}
			if _, err := h.Do(context.Background(), o, true, false); err != nil {
				t.Fatal(err)
			}
			found := h.FindHooks("", o.Getenv)
			if len(found) != 1 || len(found[0].Commands) != len(h.Events) {
				t.Fatalf("after the upgrade: %+v, want %d lines", found, len(h.Events))
			}
			for _, cmd := range found[0].Commands {
				if !strings.HasPrefix(cmd, "b=/opt/ralph-loop/bin/ralph-loop e=") || !strings.HasSuffix(cmd, " "+install.Mark) || len(cmd) > maxLine {
					t.Errorf("not upgraded: %s", cmd)
				}
			}
			data, _ := os.ReadFile(path)
			if c.host == "claude" {
				mine, ours := strings.Index(string(data), "notify-send done"), strings.Index(string(data), "e=Stop ")
				if mine < 0 || ours < mine {
					t.Errorf("the user's Stop hook is gone, or no longer before ralph-loop's:\n%s", data)
				}
			}
			if s, err := os.ReadFile(install.ScriptPath(o.KeepDir, h.Name)); err != nil || string(s) != h.Script() {
				t.Errorf("the hook script is not written: %v", err)
			}
			if _, err := h.Do(context.Background(), o, false, false); err != nil {
				t.Fatal(err)
			}
			if found := h.FindHooks("", o.Getenv); len(found) != 0 {
				t.Errorf("uninstall left %+v", found)
			}
			if _, err := os.Stat(install.ScriptPath(o.KeepDir, h.Name)); !os.IsNotExist(err) {
				t.Errorf("uninstall left the hook script: %v", err)
			}
		})
	}
}
