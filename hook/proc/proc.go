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

// ErrIncomplete means a process's chain of parents could not be followed to its end: a
// parent that exited during the walk or before it (the process was handed to another
// parent), an entry that cannot be read, or a table that contradicts itself. Whoever asks
// from such a chain cannot be told apart from a process below a session's host, and is
// taken to be one.
var ErrIncomplete = errors.New("its chain of parent processes cannot be followed to its end")

// Ancestors returns the parent of pid, its parent, and so on, nearest first, up to (not
// including) pid 1, the top of the process namespace the table shows, or a process of
// another user the table hides (hidepid). No depth bounds it. When the chain cannot be
// followed to its end, it returns the part it followed and an error wrapping ErrIncomplete.
func Ancestors(pid int) ([]Info, error) {
	if !Supported {
		return nil, ErrUnsupported
	}
	p, err := Read(pid)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIncomplete, err)
	}
	return walk(p, table{}, false)
}

// SelfAncestors is Ancestors of this process, read through /proc/self (Linux), which names
// it in the table's own numbering even when it runs in a process namespace of its own. It
// also holds this process's own session to account: below the session's leader, every
// process must still have the parent that started it (see walk). A command a person types
// runs below their shell, the leader of its session; one left behind by a process that
// exited (a subshell's background job) does not.
func SelfAncestors() ([]Info, error) {
	if !Supported {
		return nil, ErrUnsupported
	}
	p, err := Self()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIncomplete, err)
	}
	return walk(p, table{}, true)
}

// reader is the process table a walk reads (a fake one in tests).
type reader interface {
	Read(pid int) (Info, error)
	// Hidden reports whether pid is a running process of another user that the table does
	// not show.
	Hidden(pid int) bool
}

// table is the system's process table.
type table struct{}

func (table) Read(pid int) (Info, error) { return Read(pid) }
func (table) Hidden(pid int) bool        { return hidden(pid) }

// walk follows p's parents up to the top (see Ancestors). Each step checks what the table
// says against itself: a parent started after its child is a reused pid (the child's real
// parent exited meanwhile); a pid seen twice is a loop. With ownSession, below the leader of
// p's session a parent in another session than the child's means the chain was cut (a
// process of the session exited and its children were handed to the system's reaper: the
// process that started them is gone). Above the session's leader that is how launchers
// start programs (a double fork), and the walk goes on.
func walk(p Info, t reader, ownSession bool) ([]Info, error) {
	var out []Info
	seen := map[int]bool{p.PID: true}
	session := p.Session
	// leader: the chain has reached the leader of p's session (or is not held to it).
	leader := !ownSession || p.PID == session
	for p.PPID > 1 {
		q, err := t.Read(p.PPID)
		if err != nil {
			if t.Hidden(p.PPID) {
				// Another user's process (the table hides it): still p's parent if p still
				// names it, and the walk ends there.
				if again, err := t.Read(p.PID); err == nil && again.ID.Same(p.ID) && again.PPID == p.PPID {
					return out, nil
				}
			}
			return out, fmt.Errorf("%w: the parent (pid %d) of %s exited or cannot be read", ErrIncomplete, p.PPID, p)
		}
		switch {
		case seen[q.PID] || q.Zombie || q.Start > p.Start:
			return out, fmt.Errorf("%w: the parent (pid %d) of %s exited during the walk", ErrIncomplete, p.PPID, p)
		case !leader && q.Session != session:
			return out, fmt.Errorf("%w: %s was handed to %s when the process that started it exited", ErrIncomplete, p, q)
		}
		seen[q.PID] = true
		out = append(out, q)
		p = q
		leader = leader || p.PID == session
	}
	if !leader && p.PPID == 1 {
		// Handed to pid 1 with the session's leader nowhere above it.
		return out, fmt.Errorf("%w: %s was handed to pid 1 when the process that started it exited", ErrIncomplete, p)
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

// IsShell reports whether a process's name is a shell's: one of the programs a host may run
// a hook command through ("sh -c …"), which are looked past to find the host.
func IsShell(comm string) bool {
	switch comm {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish", "pwsh":
		return true
	}
	return false
}
