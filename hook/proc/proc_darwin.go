package proc

import (
	"bytes"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/ralph-loop/ralph-loop/internal/lazy"
)

// Supported reports whether this system's process table can be read.
const Supported = true

var bootID = lazy.Value[string]{Make: func() string {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d.%06d", tv.Sec, tv.Usec)
}}

// Read reads one process's entry in the process table (sysctl kern.proc.pid).
func Read(pid int) (Info, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return Info{}, fmt.Errorf("read process %d: %w", pid, err)
	}
	if int(k.Proc.P_pid) != pid {
		return Info{}, fmt.Errorf("read process %d: no such process", pid)
	}
	comm := k.Proc.P_comm[:]
	if i := bytes.IndexByte(comm, 0); i >= 0 {
		comm = comm[:i]
	}
	sid, _ := unix.Getsid(pid)
	start := uint64(k.Proc.P_starttime.Sec)*1e6 + uint64(k.Proc.P_starttime.Usec)
	return Info{
		ID:      ID{PID: pid, Start: start, Boot: bootID.Get()},
		PPID:    int(k.Eproc.Ppid),
		Comm:    string(comm),
		Session: sid,
		Stopped: k.Proc.P_stat == 4, // SSTOP
		Zombie:  k.Proc.P_stat == 5, // SZOMB
	}, nil
}

// Self is this process.
func Self() (Info, error) { return Read(os.Getpid()) }

// hidden reports whether pid is a running process the table does not show to this user.
func hidden(pid int) bool { return pid > 0 && unix.Kill(pid, 0) == unix.EPERM }

// PidNS is 0: macOS has no process namespaces.
func PidNS() uint64 { return 0 }

// NSBelow: macOS has no process namespaces.
func NSBelow(ns uint64) (below, known bool) { return false, true }

// Environ is not read on macOS (it needs the process's arguments area).
func Environ(pid int) ([]string, error) { return nil, ErrUnsupported }

// ReadStdin says how this process's standard input reaches it.
func ReadStdin() Stdin {
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil {
		return Stdin{Kind: "other"}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFSOCK:
		s := Stdin{Kind: "socket"}
		// LOCAL_PEERPID (SOL_LOCAL 0, option 2): the pid of the peer when it connected.
		if pid, err := unix.GetsockoptInt(0, 0, 2); err == nil {
			s.Peer = pid
		}
		return s
	case unix.S_IFIFO:
		return Stdin{Kind: "pipe"}
	case unix.S_IFREG:
		return Stdin{Kind: "file"}
	case unix.S_IFCHR:
		return Stdin{Kind: "tty"}
	}
	return Stdin{Kind: "other"}
}

// LockHolders cannot be read on macOS.
func LockHolders(dev, ino uint64) ([]int, error) { return nil, ErrUnsupported }

// fd0 cannot be read on macOS: the host is taken to be the hook's parent, past shells.
func fd0(pid int) string { return "" }
