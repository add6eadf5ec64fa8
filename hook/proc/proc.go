// Package proc reads the process table: a process's parent, when it started, its session,
// and who handed it its standard input. ralph-loop uses it to tell who asks: the host that
// runs a session, a process the agent started below it, or the user's own terminal.
package proc

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrUnsupported means this system's process table cannot be read here: ralph-loop falls
// back to judging commands by how they are spelled.
var ErrUnsupported = errors.New("process ancestry cannot be read on this system")

// ID names one process for as long as the machine runs: a pid is reused, a pid started at
// the same clock tick of the same boot is not.
type ID struct {
	PID int `json:"pid"`
	// Start is when the process started, in the kernel's clock ticks since boot (Linux) or
	// microseconds since the epoch (macOS).
	Start uint64 `json:"start"`
	// Boot identifies the boot ("" where it cannot be read).
	Boot string `json:"boot,omitempty"`
}

func (id ID) String() string { return "pid " + strconv.Itoa(id.PID) }

// Same reports whether id and o name the same process.
func (id ID) Same(o ID) bool {
	return id.PID == o.PID && id.Start == o.Start && (id.Boot == "" || o.Boot == "" || id.Boot == o.Boot)
}

// Info is what the process table says of one process.
type Info struct {
	ID
	PPID int
	// Comm is the program's name as the kernel keeps it (at most 15 bytes on Linux).
	Comm string
	// Session is the process's session id; a process can leave its session (setsid) but
	// never join another one, so a process in a host's session was not started by a tool
	// the host runs in a session of its own.
	Session int
	// Stopped: the process is stopped (SIGSTOP, a debugger); Zombie: it has exited and
	// waits for its parent.
	Stopped, Zombie bool
}

func (i Info) String() string { return fmt.Sprintf("%s (pid %d)", i.Comm, i.PID) }

// Stdin says how a process's standard input reaches it.
type Stdin struct {
	// Kind is "socket", "pipe", "file", "tty", "null" or "other".
	Kind string
	// Peer is the pid of the process that made the socket (socketpair) or listened on it,
	// when Kind is "socket" (0: unknown).
	Peer int
}

// MaxDepth bounds a walk up the process tree.
const MaxDepth = 64

// Ancestors returns the parent of pid, its parent, and so on up to (not including) pid 1
// or a process that cannot be read, at most MaxDepth of them.
func Ancestors(pid int) ([]Info, error) {
	var out []Info
	p, err := Read(pid)
	if err != nil {
		return nil, err
	}
	for i := 0; i < MaxDepth && p.PPID > 1; i++ {
		q, err := Read(p.PPID)
		if err != nil {
			break // exited meanwhile: the chain ends there
		}
		out = append(out, q)
		p = q
	}
	return out, nil
}

// Alive reports whether the process id names is still running (not a zombie).
func Alive(id ID) bool {
	if id.PID <= 0 {
		return false
	}
	p, err := Read(id.PID)
	return err == nil && p.ID.Same(id) && !p.Zombie
}

// shells are the programs a host may run a hook command through ("sh -c …"): they are
// looked past to find the host.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true,
	"busybox": true, "fish": true, "pwsh": true,
}

// IsShell reports whether a process's name is a shell's.
func IsShell(comm string) bool { return shells[comm] }
