package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Leftovers lists the processes still running ("PID command line") whose program or working
// directory is under root, a test's directory: a daemon a host CLI started, which outlived
// the test (Codex's TUI starts "codex app-server" daemons in a session of their own, so
// killing the TUI's process group does not reach them). It reads /proc: elsewhere it lists
// nothing.
func Leftovers(root string) []string {
	root = filepath.Clean(root)
	under := func(p string) bool { return p == root || strings.HasPrefix(p, root+string(filepath.Separator)) }
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || pid == os.Getppid() {
			continue
		}
		exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if !under(exe) && !under(cwd) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+" "+strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return out
}

// Reap kills the processes Leftovers lists under root, and returns them.
func Reap(root string) []string {
	left := Leftovers(root)
	for _, p := range left {
		pid, _ := strconv.Atoi(strings.Fields(p)[0])
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return left
}

// ReapEnv kills the processes whose environment holds the variable kv ("TMPDIR=/tmp/x"),
// and returns them ("PID command line").
func ReapEnv(kv string) []string {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || pid == os.Getppid() {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if !slices.Contains(strings.Split(string(env), "\x00"), kv) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+" "+strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " ")))
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return out
}
