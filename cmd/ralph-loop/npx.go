package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ralph-loop/ralph-loop/inject"
)

// fromNPX reports whether exe runs from npx's cache (npx @ralph-loop/cli install), a copy
// npm may remove at any time: hooks must not name it.
func fromNPX(exe string) bool {
	sep := string(filepath.Separator)
	return strings.Contains(exe, sep+"_npx"+sep)
}

// npxGlobal makes "npx @ralph-loop/cli install" a one-line install: it installs the same
// version of the package with npm install -g (npm's output going to log) and returns the
// path of the ralph-loop that puts on PATH, for the hooks to run.
func npxGlobal(log io.Writer) (string, error) {
	npm := func(args ...string) *exec.Cmd {
		if js, node := os.Getenv("npm_execpath"), os.Getenv("npm_node_execpath"); js != "" && node != "" {
			return exec.Command(node, append([]string{js}, args...)...)
		}
		return exec.Command("npm", args...)
	}
	v, _, _ := strings.Cut(getVersion(), "+") // npm keeps no build metadata
	spec := inject.NPMPackage + "@" + v
	fmt.Fprintf(log, "ralph-loop: npx runs a temporary copy; installing %s with npm install -g for the hooks to run\n", spec)
	c := npm("install", "-g", spec)
	c.Stdout, c.Stderr = log, log
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("npm install -g %s: %w (install it yourself, then run ralph-loop install)", spec, err)
	}
	var out bytes.Buffer
	c = npm("prefix", "-g")
	c.Stdout = &out
	if err := c.Run(); err != nil {
		return "", fmt.Errorf("npm prefix -g: %w", err)
	}
	prefix := strings.TrimSpace(out.String())
	bin := filepath.Join(prefix, "bin", "ralph-loop")
	if filepath.Separator == '\\' {
		bin = filepath.Join(prefix, "ralph-loop.cmd")
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", fmt.Errorf("npm install -g %s put no ralph-loop at %s: %w", spec, bin, err)
	}
	// Its first run puts the native binary in the launcher's place (the package has no
	// install script), so that the hooks run no node process.
	if err := exec.Command(bin, "version", "--short").Run(); err != nil {
		return "", fmt.Errorf("the ralph-loop npm install -g %s put at %s does not run: %w", spec, bin, err)
	}
	return real, nil
}
