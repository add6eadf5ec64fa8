package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func settingsOf(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// localSettings writes data as the local-scope settings of the project dir, as the user
// had them before install, and returns the file's path.
func localSettings(t *testing.T, dir, data string) string {
	t.Helper()
	path := filepath.Join(dir, ".test", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Uninstall keeps a setting the user had before install, even with install's value.
func TestUninstallKeepsUsersSetting(t *testing.T) {
	dir := t.TempDir()
	h := testHost()
	o := opts(t, ScopeLocal, dir)
	orig := "{\n  \"env\": {\n    \"CAP\": \"1000\"\n  }\n}\n"
	path := localSettings(t, dir, orig)
	do(t, h, o, true)
	u := do(t, h, o, false)
	if got := settingsOf(t, path); got != orig {
		t.Errorf("after uninstall:\n%s\nwant\n%s", got, orig)
	}
	if len(u.Notes) != 1 || !strings.Contains(u.Notes[0], "kept env.CAP") {
		t.Errorf("notes %q, want one saying env.CAP was kept", u.Notes)
	}
}

// Uninstall removes the settings file, the commands directory and the directories install
// created, and only those.
func TestUninstallRemovesWhatInstallCreated(t *testing.T) {
	h := testHost()
	o := opts(t, ScopeUser, "")
	user, _ := h.Host.UserDir(o.Getenv)
	do(t, h, o, true)
	if _, err := os.Stat(filepath.Join(user, "commands", "ralph-loop.md")); err != nil {
		t.Fatal(err)
	}
	do(t, h, o, false)
	if _, err := os.Stat(user); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s: %v", user, err)
	}

	// A directory that existed before, and a file of the user's in the commands directory,
	// stay.
	os.MkdirAll(filepath.Join(user, "commands"), 0o755)
	os.WriteFile(filepath.Join(user, "commands", "mine.md"), []byte("mine"), 0o644)
	do(t, h, o, true)
	do(t, h, o, false)
	if _, err := os.Stat(filepath.Join(user, "commands", "mine.md")); err != nil {
		t.Errorf("uninstall removed the user's file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(user, "settings.json")); !os.IsNotExist(err) {
		t.Errorf("uninstall left the settings file install created: %v", err)
	}
}

// Hooks whose binary was renamed since (to a name not ending in ralph-loop) are still
// recognised by the record of what install wrote.
func TestUninstallRenamedBinary(t *testing.T) {
	dir := t.TempDir()
	h := testHost()
	o := opts(t, ScopeLocal, dir)
	o.Binary = "/opt/tools/rl"
	do(t, h, o, true)
	path := filepath.Join(dir, ".test", "settings.local.json")
	if !strings.Contains(settingsOf(t, path), "/opt/tools/rl") {
		t.Fatal("not installed")
	}
	o.Binary = ""
	do(t, h, o, false)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s:\n%s", path, settingsOf(t, path))
	}
	// Reinstalled from another path: the old entries are replaced, not kept beside.
	o.Binary = "/opt/tools/rl"
	do(t, h, o, true)
	o.Binary = "/usr/bin/other"
	do(t, h, o, true)
	if s := settingsOf(t, path); strings.Contains(s, "/opt/tools/rl") || strings.Count(s, "b=/usr/bin/other ") != len(h.Events) {
		t.Errorf("reinstall from another path:\n%s", s)
	}
}

// Backups made in the same second never overwrite each other, and are kept outside the
// project.
func TestBackupsUniqueAndOutside(t *testing.T) {
	dir := t.TempDir()
	h := testHost()
	o := opts(t, ScopeLocal, dir)
	orig := `{"model": "x"}`
	path := localSettings(t, dir, orig)
	p1 := do(t, h, o, true)
	p2 := do(t, h, o, false)
	b1, b2 := p1.Changes[0].Backup, p2.Changes[0].Backup
	if b1 == "" || b2 == "" || b1 == b2 {
		t.Fatalf("backups %q and %q", b1, b2)
	}
	if got := settingsOf(t, b1); got != orig {
		t.Errorf("first backup holds %q, want the original %q", got, orig)
	}
	for _, b := range []string{b1, b2} {
		if strings.HasPrefix(b, dir) {
			t.Errorf("backup %s is in the project", b)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), "bak") {
			t.Errorf("backup %s in the project", e.Name())
		}
	}
}

// A settings file that is a link (a dotfile manager's) is written through: it stays a link.
func TestSymlinkedSettingsWrittenThrough(t *testing.T) {
	h := testHost()
	o := opts(t, ScopeUser, "")
	user, _ := h.Host.UserDir(o.Getenv)
	dots := t.TempDir()
	target := filepath.Join(dots, "claude-settings.json")
	os.WriteFile(target, []byte(`{"model": "x"}`), 0o644)
	os.MkdirAll(user, 0o755)
	link := filepath.Join(user, "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	do(t, h, o, true)
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.json is no longer a link: %v %v", fi.Mode(), err)
	}
	if !strings.Contains(settingsOf(t, target), "hook --host claude") {
		t.Errorf("the link's target was not written:\n%s", settingsOf(t, target))
	}
	do(t, h, o, false)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("uninstall replaced the link: %v", err)
	}
	if s := settingsOf(t, target); strings.Contains(s, "hook --host") || !strings.Contains(s, `"model"`) {
		t.Errorf("after uninstall the target holds:\n%s", s)
	}
}

// A FIFO or an oversized file as settings is refused at once, never read or waited on.
func TestOddSettingsFilesRefused(t *testing.T) {
	h := testHost()
	dir := t.TempDir()
	path := filepath.Join(dir, ".test", "settings.local.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := h.Install(opts(t, ScopeLocal, dir))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FIFO settings: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("install blocked on a FIFO")
	}

	dir = t.TempDir()
	localSettings(t, dir, `{"a":"`+strings.Repeat("x", MaxFileSize)+`"}`)
	if _, err := h.Install(opts(t, ScopeLocal, dir)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized settings: %v", err)
	}
}

// A change written by another program between the plan and its write is kept: the write
// is refused and planned again.
func TestConcurrentWriterKept(t *testing.T) {
	dir := t.TempDir()
	h := testHost()
	o := opts(t, ScopeLocal, dir)
	path := localSettings(t, dir, `{"model": "x"}`)
	p, err := h.Install(o)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte(`{"model": "x", "theirs": 1}`), 0o644)
	if err := p.Apply(); !errors.Is(err, errChanged) {
		t.Fatalf("apply over a changed file: %v", err)
	}
	if s := settingsOf(t, path); s != `{"model": "x", "theirs": 1}` {
		t.Fatalf("the other writer's change is lost:\n%s", s)
	}
	p, _ = h.Install(o)
	os.WriteFile(path, []byte(`{"model": "x", "theirs": 2}`), 0o644)
	if err := h.applyReplanning(o, true, p); err != nil {
		t.Fatal(err)
	}
	if s := settingsOf(t, path); !strings.Contains(s, `"theirs": 2`) || !strings.Contains(s, "hook --host claude") {
		t.Errorf("after planning again:\n%s", s)
	}
}

// Installed at one scope, install at another adds no second set of hooks (unless forced).
func TestSecondScopeNotDoubled(t *testing.T) {
	dir := t.TempDir()
	h := testHost()
	user := opts(t, ScopeUser, dir)
	do(t, h, user, true)
	proj := user
	proj.Scope = ScopeProject
	p := do(t, h, proj, true)
	if p.Skipped == "" || !strings.Contains(p.Skipped, "user scope") || p.Changed() {
		t.Fatalf("project install over a user install: skipped %q, changed %v", p.Skipped, p.Changed())
	}
	if _, err := os.Stat(filepath.Join(dir, ".test")); !os.IsNotExist(err) {
		t.Errorf("skipped install wrote files: %v", err)
	}
	proj.Force = true
	if p := do(t, h, proj, true); p.Skipped != "" || !p.Changed() {
		t.Errorf("--force: skipped %q", p.Skipped)
	}
	// The other way round, a project install first: the user install (for every project)
	// goes ahead, and the project's hooks leave the events to it on this machine.
	dir2 := t.TempDir()
	proj2 := opts(t, ScopeProject, dir2)
	do(t, h, proj2, true)
	if h.Defers(ScopeProject, dir2, proj2.Getenv) {
		t.Error("project hooks defer with no other set installed")
	}
	user2 := proj2
	user2.Scope = ScopeUser
	user2.Binary = filepath.Join(t.TempDir(), "ralph-loop")
	p = do(t, h, user2, true)
	if p.Skipped != "" || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "will leave the events to these") {
		t.Errorf("user install over a project install: skipped %q, notes %q", p.Skipped, p.Notes)
	}
	if h.Defers(ScopeProject, dir2, proj2.Getenv) {
		t.Error("project hooks defer to user hooks whose binary does not exist")
	}
	os.WriteFile(user2.Binary, []byte("#!/bin/sh\n"), 0o755)
	if !h.Defers(ScopeProject, dir2, proj2.Getenv) {
		t.Error("project hooks do not defer to the user's")
	}
	if h.Defers(ScopeUser, dir2, proj2.Getenv) {
		t.Error("user hooks defer")
	}
	do(t, h, user2, false)
	if h.Defers(ScopeProject, dir2, proj2.Getenv) {
		t.Error("project hooks defer after the user's were uninstalled")
	}
	// Two scopes of this machine's own: the second is refused.
	local := proj2
	local.Scope = ScopeLocal
	do(t, h, user2, true)
	if p := do(t, h, local, true); !strings.Contains(p.Skipped, "user scope") {
		t.Errorf("local install over a user install: skipped %q", p.Skipped)
	}
}

// Installs at several scopes at the same moment (two terminals) end with one set of hooks
// that answers (a project's set defers to a user or local one): the host's install lock
// serialises them, so each sees the ones before.
func TestConcurrentInstallsOneSet(t *testing.T) {
	for round := 0; round < 5; round++ {
		dir := t.TempDir()
		h := testHost()
		base := opts(t, ScopeUser, dir)
		var wg sync.WaitGroup
		for i, scope := range []string{ScopeUser, ScopeProject, ScopeLocal, ScopeUser} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				o := base
				o.Scope = scope
				o.Binary = "/opt/" + string(rune('a'+i)) + "/ralph-loop"
				if _, err := h.Do(t.Context(), o, true, false); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		own, shared := 0, 0
		for _, s := range h.Scopes {
			data, err := os.ReadFile(h.SettingsFile(s.Name, dir, base.Getenv))
			if err == nil && strings.Contains(string(data), "hook --host claude") {
				if s.Shared {
					shared++
				} else {
					own++
				}
			}
		}
		if own > 1 || own+shared == 0 {
			t.Fatalf("round %d: %d scopes of this machine's and %d shared have hooks", round, own, shared)
		}
	}
}

// Backups of one file in one second get names of their own, each with its content.
func TestBackupNamesUnique(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for i := 0; i < 3; i++ {
		name, err := backup(dir, "/p/settings.json", []byte{byte('a' + i)})
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	for i, n := range names {
		if got := settingsOf(t, n); got != string(rune('a'+i)) {
			t.Errorf("backup %s holds %q, want %q", n, got, string(rune('a'+i)))
		}
	}
	if names[0] == names[1] || names[1] == names[2] || names[0] == names[2] {
		t.Errorf("backup names repeat: %q", names)
	}
}

// A plugin's hooks (shared, like a project's) leave every event to any other set: the
// machine's own, or a project's whose ralph-loop is on PATH.
func TestPluginDefers(t *testing.T) {
	h := testHost()
	dir := t.TempDir()
	bin := t.TempDir()
	o := opts(t, ScopeProject, dir)
	getenv := func(path string) func(string) string {
		return func(k string) string {
			if k == "PATH" {
				return path
			}
			return o.Getenv(k)
		}
	}
	if h.Defers(ScopePlugin, dir, getenv(bin)) {
		t.Error("plugin defers with no other set")
	}
	do(t, h, o, true)
	if h.Defers(ScopePlugin, dir, getenv(bin)) {
		t.Error("plugin defers to project hooks with no ralph-loop on PATH")
	}
	os.WriteFile(filepath.Join(bin, "ralph-loop"), []byte("#!/bin/sh\n"), 0o755)
	if !h.Defers(ScopePlugin, dir, getenv(bin)) {
		t.Error("plugin does not defer to project hooks")
	}
	if h.Defers(ScopeProject, dir, getenv(bin)) {
		t.Error("project hooks defer to themselves")
	}
	if !h.Ours(PortableCommandAt(h, h.Events[0], ScopePlugin), nil) {
		t.Error("the plugin's command is not recognised as ralph-loop's")
	}
}
