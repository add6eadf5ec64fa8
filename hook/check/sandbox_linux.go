package check

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// Runner is the program the checks' sandbox runs them with.
const Runner = "bwrap"

func unavailable() string {
	return "bubblewrap (bwrap) is not installed outside the project (apt-get install bubblewrap)"
}

// command is the check's shell command line run by bubblewrap in the sandbox, in dir, with
// tmp as its temporary directory; closeFiles closes what was handed to it (the seccomp
// filter). The file system is the system's, read-only, with the writable roots and tmp
// bound writable and the read-only paths bound read-only over them; new user, process,
// IPC, host name, cgroup and network namespaces (the network is a loopback of its own), a
// session of its own (no terminal to push input into), no user namespace it could make
// to undo a mount (bubblewrap 0.8 and later), and a seccomp filter that refuses to make a
// Unix socket (the file system's sockets, a session bus or a container daemon, are out of
// reach; socketpair is not a socket anyone else holds).
func (w Sandbox) command(ctx context.Context, command, dir, tmp string) (*exec.Cmd, func(), error) {
	args := []string{"--new-session", "--die-with-parent", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--unshare-cgroup-try", "--unshare-net"}
	if disablesUserns(w.Runner) {
		args = append(args, "--disable-userns")
	}
	args = append(args, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	for _, p := range existing(append(append([]string{}, w.Writable...), tmp)) {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			args = append(args, "--bind", p, p)
		}
	}
	for _, p := range existing(w.ReadOnly) {
		args = append(args, "--ro-bind", p, p)
	}
	filter, err := unixSocketFilter()
	if err != nil {
		return nil, nil, err
	}
	r, wr, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	if _, err := wr.Write(filter); err != nil {
		r.Close()
		wr.Close()
		return nil, nil, err
	}
	wr.Close()
	args = append(args, "--seccomp", "3", "--chdir", dir, "--setenv", "TMPDIR", tmp, "--", shell, "-c", command)
	cmd := exec.CommandContext(ctx, w.Runner, args...)
	cmd.ExtraFiles = []*os.File{r}
	return cmd, func() { r.Close() }, nil
}

// disablesUserns reports whether the bubblewrap at path knows --disable-userns (0.8.0 and
// later).
func disablesUserns(path string) bool {
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return false
	}
	m := regexp.MustCompile(`(\d+)\.(\d+)`).FindSubmatch(out)
	if m == nil {
		return false
	}
	major, _ := strconv.Atoi(string(m[1]))
	minor, _ := strconv.Atoi(string(m[2]))
	return major > 0 || minor >= 8
}

// unixSocketFilter is a classic BPF seccomp program, in the form bubblewrap's --seccomp
// reads: socket(AF_UNIX, ...) fails with EPERM, and any system call of another
// architecture's calling convention (an i386 or x32 program, whose socketcall the filter
// could not read) fails the same way; everything else is allowed.
func unixSocketFilter() ([]byte, error) {
	var arch uint32
	switch runtime.GOARCH {
	case "amd64":
		arch = unix.AUDIT_ARCH_X86_64
	case "arm64":
		arch = unix.AUDIT_ARCH_AARCH64
	default:
		return nil, errUnsupportedArch
	}
	const (
		ld    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		allow = unix.SECCOMP_RET_ALLOW
		deny  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	)
	// seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low half, little-endian).
	prog := []unix.SockFilter{
		{Code: ld, K: 4},
		{Code: jeq, K: arch, Jt: 1, Jf: 0},
		{Code: ret, K: deny},
		{Code: ld, K: 0},
		{Code: jge, K: 0x40000000, Jt: 0, Jf: 1}, // x32
		{Code: ret, K: deny},
		{Code: jeq, K: unix.SYS_SOCKET, Jt: 0, Jf: 3},
		{Code: ld, K: 16},
		{Code: jeq, K: unix.AF_UNIX, Jt: 0, Jf: 1},
		{Code: ret, K: deny},
		{Code: ret, K: allow},
	}
	var b bytes.Buffer
	for _, f := range prog {
		binary.Write(&b, binary.NativeEndian, f)
	}
	return b.Bytes(), nil
}
