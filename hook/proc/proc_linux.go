package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ralph-loop/ralph-loop/internal/lazy"
)

// Supported reports whether this system's process table can be read.
const Supported = true

var bootID = lazy.Value[string]{Make: func() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}}

// boottimeOffset is the offset, in clock ticks, that this process's time namespace adds to
// every start time /proc shows it: a process in a time namespace of its own (unshare -T
// --boottime N, no privilege needed inside a user namespace) reads every process's start
// shifted by N seconds, which would make the loop's host look like another process and the
// processes around it older or newer than they are. Start times are told as the kernel keeps
// them, whoever reads them.
func boottimeOffset() (uint64, error) {
	o := boottime.Get()
	return o.ticks, o.err
}

// boottime is boottimeOffset's result, read once.
var boottime = lazy.Value[offset]{Make: func() offset {
	b, err := os.ReadFile("/proc/self/timens_offsets")
	if errors.Is(err, os.ErrNotExist) {
		return offset{} // a kernel without time namespaces
	}
	if err != nil {
		return offset{err: fmt.Errorf("read this process's time namespace: %w", err)}
	}
	ticks, err := parseOffsets(b)
	return offset{ticks, err}
}}

// offset is a time namespace's offset of the boot time, in clock ticks, or why it is not known.
type offset struct {
	ticks uint64
	err   error
}

// clockTicks is USER_HZ, the unit of /proc's start times: 100 on every Linux architecture
// ralph-loop is built for.
const clockTicks = 100

// parseOffsets reads /proc/self/timens_offsets ("boottime <seconds> <nanoseconds>") as
// clock ticks (two's complement for a negative offset).
func parseOffsets(b []byte) (uint64, error) {
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "boottime" {
			continue
		}
		sec, err1 := strconv.ParseInt(f[1], 10, 64)
		nsec, err2 := strconv.ParseInt(f[2], 10, 64)
		const tick = 1e9 / clockTicks
		if err1 != nil || err2 != nil || nsec%tick != 0 {
			return 0, fmt.Errorf("read this process's time namespace: its boottime offset %q is not in whole clock ticks", line)
		}
		return uint64(sec*clockTicks + nsec/tick), nil
	}
	return 0, errors.New("read this process's time namespace: no boottime offset")
}

// unshift takes this process's time namespace's offset out of info's start time.
func unshift(info Info, err error) (Info, error) {
	if err != nil {
		return info, err
	}
	off, err := boottimeOffset()
	if err != nil {
		return Info{}, err
	}
	info.Start -= off
	return info, nil
}

// Read reads one process's entry in the process table.
func Read(pid int) (Info, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Info{}, fmt.Errorf("read process %d: %w", pid, err)
	}
	return unshift(parseStat(pid, b, bootID.Get()))
}

// parseStat reads /proc/PID/stat: "pid (comm) state ppid pgrp session tty …", the comm
// possibly holding spaces and parentheses, starttime the 22nd field.
func parseStat(pid int, b []byte, boot string) (Info, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return Info{}, fmt.Errorf("read process %d: malformed stat", pid)
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 20 {
		return Info{}, fmt.Errorf("read process %d: malformed stat", pid)
	}
	ppid, err1 := strconv.Atoi(f[1])
	sid, err2 := strconv.Atoi(f[3])
	start, err3 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Info{}, fmt.Errorf("read process %d: malformed stat", pid)
	}
	st := f[0]
	return Info{
		ID:      ID{PID: pid, Start: start, Boot: boot},
		PPID:    ppid,
		Comm:    string(b[open+1 : end]),
		Session: sid,
		Stopped: st == "T" || st == "t",
		Zombie:  st == "Z" || st == "X",
	}, nil
}

// Self is this process, read through /proc/self: in a process namespace of its own whose
// /proc is its parent's, os.Getpid names another process of the table.
func Self() (Info, error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return Info{}, fmt.Errorf("read this process: %w", err)
	}
	pid, _, _ := strings.Cut(string(b), " ")
	n, err := strconv.Atoi(pid)
	if err != nil {
		return Info{}, fmt.Errorf("read this process: malformed stat")
	}
	return unshift(parseStat(n, b, bootID.Get()))
}

// hidden reports whether pid is a running process the table does not show: one of another
// user, under hidepid (a signal to it is not permitted, where one to a process that is
// gone finds none).
func hidden(pid int) bool { return pid > 0 && unix.Kill(pid, 0) == unix.EPERM }

// initPidNS is the inode of the initial process namespace (the kernel's PROC_PID_INIT_INO).
const initPidNS = 0xEFFFFFFC

// NSBelow tells how this process's process namespace stands to ns, another one (a loop's
// host's): below reports that ns is one of its ancestors, so that this process may run
// below a process of ns without the table it sees showing it; known is false when the
// namespaces above this one cannot be followed up to the initial one (a namespace made
// with a user namespace of its own does not show its parent): it may be below anything.
// A process namespace is nested at most 32 deep.
func NSBelow(ns uint64) (below, known bool) {
	f, err := os.Open("/proc/self/ns/pid")
	if err != nil {
		return false, false
	}
	for depth := 0; depth <= 33; depth++ {
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			break
		}
		if depth > 0 && st.Ino == ns {
			f.Close()
			return true, true
		}
		parent, err := unix.IoctlRetInt(int(f.Fd()), unix.NS_GET_PARENT)
		f.Close()
		if err != nil {
			return false, st.Ino == initPidNS
		}
		f = os.NewFile(uintptr(parent), "pid namespace")
	}
	f.Close()
	return false, false
}

// PidNS names this process's process namespace (0 where it cannot be read): a command in
// another one than a loop's host cannot see whether it runs below that host.
func PidNS() uint64 {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/pid", &st); err != nil {
		return 0
	}
	return st.Ino
}

// Environ returns a process's environment as it was when it started (a process of the
// same user only).
func Environ(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return nil, err
	}
	var env []string
	for _, kv := range bytes.Split(b, []byte{0}) {
		if len(kv) > 0 {
			env = append(env, string(kv))
		}
	}
	return env, nil
}

// ReadStdin says how this process's standard input reaches it.
func ReadStdin() Stdin {
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil {
		return Stdin{Kind: "other"}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFSOCK:
		s := Stdin{Kind: "socket"}
		if cred, err := unix.GetsockoptUcred(0, unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			s.Peer = int(cred.Pid)
		}
		return s
	case unix.S_IFIFO:
		return Stdin{Kind: "pipe"}
	case unix.S_IFREG:
		return Stdin{Kind: "file"}
	case unix.S_IFCHR:
		if link, err := os.Readlink("/proc/self/fd/0"); err == nil && link == "/dev/null" {
			return Stdin{Kind: "null"}
		}
		return Stdin{Kind: "tty"}
	}
	return Stdin{Kind: "other"}
}

// LockHolders returns the pids that hold a flock or POSIX lock on the file with the given
// device and inode numbers, as /proc/locks lists them.
func LockHolders(dev, ino uint64) ([]int, error) {
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return nil, err
	}
	return parseLocks(b, unix.Major(dev), unix.Minor(dev), ino), nil
}

// parseLocks reads /proc/locks lines such as
// "1: FLOCK  ADVISORY  WRITE 12345 08:01:1234567 0 EOF" (a waiting lock is marked "->"
// and not held).
func parseLocks(b []byte, major, minor uint32, ino uint64) []int {
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, ino)
	var pids []int
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] == "->" {
			continue
		}
		if !strings.EqualFold(f[5], want) && !sameDevIno(f[5], major, minor, ino) {
			continue
		}
		if pid, err := strconv.Atoi(f[4]); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// sameDevIno compares a "MAJ:MIN:INO" field whatever the width of its hex numbers.
func sameDevIno(field string, major, minor uint32, ino uint64) bool {
	p := strings.Split(field, ":")
	if len(p) != 3 {
		return false
	}
	ma, err1 := strconv.ParseUint(p[0], 16, 32)
	mi, err2 := strconv.ParseUint(p[1], 16, 32)
	in, err3 := strconv.ParseUint(p[2], 10, 64)
	return err1 == nil && err2 == nil && err3 == nil && uint32(ma) == major && uint32(mi) == minor && in == ino
}

// fd0 names what a process's standard input is ("pipe:[123]", "socket:[456]", a path), ""
// when it cannot be read.
func fd0(pid int) string {
	s, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/0")
	if err != nil {
		return ""
	}
	return s
}
