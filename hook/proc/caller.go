package proc

import "fmt"

// Caller is who ran this process as a hook: the host, and how the hook got its input.
type Caller struct {
	// Host is the nearest ancestor that did not hand this process its own standard input:
	// past a "sh -c" (or a launcher) that passed its input on, the process that made it.
	// Where a process's input cannot be named (macOS), past the shells.
	Host Info
	// Via are the processes between this one and Host (nearest first).
	Via []Info
	// Stdin is how this process's standard input reaches it.
	Stdin Stdin
	// SameSession: this process runs in the host's session.
	SameSession bool
	// PidNS names the process namespace this process and its host run in (0: unknown).
	PidNS uint64
}

// Proved reports whether the host itself made the socket this process reads its input
// from: no other process can hand a hook such an input.
func (c Caller) Proved() bool {
	return c.Stdin.Kind == "socket" && c.Stdin.Peer > 0 && c.Stdin.Peer == c.Host.PID
}

func (c Caller) String() string {
	s := c.Host.String()
	if len(c.Via) > 0 {
		s += fmt.Sprintf(" through %s", c.Via[len(c.Via)-1])
	}
	return s
}

// HookCaller finds who ran this process (see Caller). It fails with ErrUnsupported where the
// process table cannot be read, and with an error wrapping ErrIncomplete where the chain
// up to the host cannot be followed (a process of it gone meanwhile): no depth bounds it.
func HookCaller() (Caller, error) {
	if !Supported {
		return Caller{}, ErrUnsupported
	}
	self, err := Self()
	if err != nil {
		return Caller{}, fmt.Errorf("%w: %w", ErrIncomplete, err)
	}
	c := Caller{Stdin: ReadStdin(), PidNS: PidNS()}
	in := fd0(self.PID)
	seen := map[int]bool{self.PID: true}
	p := self
	for {
		q, err := Read(p.PPID)
		if err != nil || seen[q.PID] || q.Start > p.Start {
			return Caller{}, fmt.Errorf("find the host of %s: %w: its parent (pid %d) exited", self, ErrIncomplete, p.PPID)
		}
		seen[q.PID] = true
		// Where a process's input cannot be named (macOS), shells are looked past instead.
		passed := in != "" && fd0(q.PID) == in || in == "" && IsShell(q.Comm)
		if !passed || q.PPID <= 1 {
			c.Host = q
			break
		}
		c.Via = append(c.Via, q)
		p = q
	}
	c.SameSession = self.Session == c.Host.Session
	return c, nil
}
