package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/inject"
)

// The path the hooks name for the running binary, in the layouts of the package managers
// and version managers (see stablePath), with the binary reached as a user's shell or a
// manager's shim reaches it: arg0 as run, and PATH. (The scripts install-upgrade*.txtar run
// install itself, where testscript hides arg0.)
func TestStablePath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir()) // macOS's /var is a link
	if err != nil {
		t.Fatal(err)
	}
	file := func(p string) string {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, p string) string {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	at := func(p string) string { return filepath.Join(root, p) }

	brew := file("opt/homebrew/Cellar/ralph-loop/1.0.0/bin/ralph-loop")
	link("../Cellar/ralph-loop/1.0.0/bin/ralph-loop", "opt/homebrew/bin/ralph-loop")
	volta := file("volta/tools/image/packages/@ralph-loop/cli/lib/node_modules/@ralph-loop/cli/bin/ralph-loop")
	voltaBin := link("../lib/node_modules/@ralph-loop/cli/bin/ralph-loop", "volta/tools/image/packages/@ralph-loop/cli/bin/ralph-loop")
	file("volta/bin/volta-shim")
	link("volta-shim", "volta/bin/ralph-loop")
	fnm := file("fnm/node-versions/v20.11.0/installation/lib/node_modules/@ralph-loop/cli/bin/ralph-loop")
	link("../lib/node_modules/@ralph-loop/cli/bin/ralph-loop", "fnm/node-versions/v20.11.0/installation/bin/ralph-loop")
	link(at("fnm/node-versions/v20.11.0/installation"), "run/fnm_multishells/4242_1764200000000")
	scoop := file("scoop/apps/ralph-loop/1.0.0/ralph-loop")
	link("1.0.0", "scoop/apps/ralph-loop/current")
	gobin := file("go/bin/ralph-loop")
	// npm's global install once the launcher's first run made it a script of the platform
	// package's binary: the system runs the binary with the command's path as arg0.
	native := file("npm/lib/node_modules/@ralph-loop/cli/node_modules/@ralph-loop/cli-linux-x64/bin/ralph-loop")
	command := filepath.Join(root, "npm/lib/node_modules/@ralph-loop/cli/bin/ralph-loop")
	os.MkdirAll(filepath.Dir(command), 0o755)
	if err := os.WriteFile(command, []byte("#!"+native+" "+inject.NPMShebang+"\n\"use strict\";\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	npmBin := link("../lib/node_modules/@ralph-loop/cli/bin/ralph-loop", "npm/bin/ralph-loop")

	for _, c := range []struct {
		name, exe, arg0, path, want string
	}{
		{"homebrew, from PATH", brew, "ralph-loop", at("opt/homebrew/bin"), at("opt/homebrew/bin/ralph-loop")},
		{"homebrew, by the link's path", brew, at("opt/homebrew/bin/ralph-loop"), "", at("opt/homebrew/bin/ralph-loop")},
		{"volta-shim runs the image's bin link", volta, voltaBin, at("volta/bin"), voltaBin},
		{"volta, arg0 hidden", volta, "ralph-loop", at("volta/bin"), volta},
		{"fnm's shell link on PATH", fnm, "ralph-loop", at("run/fnm_multishells/4242_1764200000000/bin"), at("fnm/node-versions/v20.11.0/installation/bin/ralph-loop")},
		{"scoop's shim runs current", scoop, at("scoop/apps/ralph-loop/current/ralph-loop"), "", at("scoop/apps/ralph-loop/current/ralph-loop")},
		{"scoop, by the versioned path", scoop, scoop, "", at("scoop/apps/ralph-loop/current/ralph-loop")},
		{"go install", gobin, "ralph-loop", at("go/bin"), gobin},
		{"npm's command run by the system with the native binary", native, npmBin, at("npm/bin"), npmBin},
		{"npm's command, found on PATH", native, native, at("npm/bin"), npmBin},
		{"npm's native binary run by its path", native, native, "", native},
	} {
		if got := stablePath(c.exe, c.arg0, c.path); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestNodeVersion(t *testing.T) {
	for _, c := range []struct {
		path, nvmDir, manager, version string
	}{
		{"/home/u/.nvm/versions/node/v20.11.0/bin/ralph-loop", "", "nvm", "v20.11.0"},
		{"/opt/nvm/versions/node/v22.1.0/bin/ralph-loop", "/opt/nvm", "nvm", "v22.1.0"},
		{"/home/u/.local/share/fnm/node-versions/v20.11.0/installation/bin/ralph-loop", "", "fnm", "v20.11.0"},
		{"/opt/homebrew/bin/ralph-loop", "", "", ""},
		{"/home/u/project/versions/node/x/ralph-loop", "", "", ""},
	} {
		if m, v := nodeVersion(c.path, c.nvmDir); m != c.manager || v != c.version {
			t.Errorf("%s: got %q %q, want %q %q", c.path, m, v, c.manager, c.version)
		}
	}
}

// The npm command's script runs the native binary with the command's path and arguments
// after --npm-shebang: ralph-loop reads them as if run by that path.
func TestShebangArgs(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"/n/ralph-loop", inject.NPMShebang, "/p/bin/ralph-loop", "status", "--json"}, []string{"/p/bin/ralph-loop", "status", "--json"}},
		{[]string{"/n/ralph-loop", inject.NPMShebang, "/p/bin/ralph-loop"}, []string{"/p/bin/ralph-loop"}},
		{[]string{"ralph-loop", "status"}, []string{"ralph-loop", "status"}},
		{[]string{"ralph-loop", inject.NPMShebang}, []string{"ralph-loop", inject.NPMShebang}},
	} {
		if got := shebangArgs(c.in); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}
