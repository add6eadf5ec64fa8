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
	return processes(func(dir string) bool {
		exe, _ := os.Readlink(filepath.Join(dir, "exe"))
		cwd, _ := os.Readlink(filepath.Join(dir, "cwd"))
		return under(exe) || under(cwd)
	})
}

// Reap kills the processes Leftovers lists under root, and returns them.
func Reap(root string) []string { return kill(Leftovers(root)) }

// ReapEnv kills the processes whose environment holds the variable kv ("TMPDIR=/tmp/x"),
// and returns them ("PID command line").
func ReapEnv(kv string) []string {
	return kill(processes(func(dir string) bool {
		env, _ := os.ReadFile(filepath.Join(dir, "environ"))
		return slices.Contains(strings.Split(string(env), "\x00"), kv)
	}))
}

// processes lists the processes but this one and its parent ("PID command line") for which
// match, given the process's directory in /proc, holds. Where there is no /proc, none.
func processes(match func(dir string) bool) []string {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		dir := filepath.Join("/proc", e.Name())
		if err != nil || pid == os.Getpid() || pid == os.Getppid() || !match(dir) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		out = append(out, e.Name()+" "+strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return out
}

// kill kills each of the processes ("PID command line") with SIGKILL, and returns them.
func kill(procs []string) []string {
	for _, p := range procs {
		pid, _ := strconv.Atoi(strings.Fields(p)[0])
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return procs
}
