// Command hooktimer times hook processes for "make bench": every hook command of a host is
// run through it, and it appends one line per run to a log, {"label", "ns", "cpu_ns"}, the
// wall time of the command it ran and the CPU time (user and system) it and the processes
// it waited for used. Nothing of ralph-loop uses it.
//
//	hooktimer LOG LABEL -- COMMAND [ARG...]   run COMMAND, stdin and stdout passed through
//
// Installed under the name ralph-loop (first on PATH), it stands for the ralph-loop binary
// itself: it runs $RALPH_HOOKTIMER_REAL with its own arguments and logs to
// $RALPH_HOOKTIMER_LOG, labelled with the event's hook_event_name (or the arguments), so
// that the hooks a host's installer wrote are timed as they are.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

func main() {
	os.Exit(run())
}

func run() int {
	var log, label string
	var argv []string
	var stdin []byte
	if filepath.Base(os.Args[0]) == "ralph-loop" {
		log, argv = os.Getenv("RALPH_HOOKTIMER_LOG"), append([]string{os.Getenv("RALPH_HOOKTIMER_REAL")}, os.Args[1:]...)
		label = strings.Join(os.Args[1:], " ")
		if len(os.Args) > 1 && os.Args[1] == "hook" {
			// The event's name labels the run; the input is handed on as read.
			var err error
			if stdin, err = readAll(os.Stdin); err != nil {
				fmt.Fprintln(os.Stderr, "hooktimer:", err)
				return 1
			}
			if m := eventName.FindSubmatch(stdin); m != nil {
				label = string(m[1])
			}
		}
	} else {
		if len(os.Args) < 5 || os.Args[3] != "--" {
			fmt.Fprintln(os.Stderr, "usage: hooktimer LOG LABEL -- COMMAND [ARG...]")
			return 2
		}
		log, label, argv = os.Args[1], os.Args[2], os.Args[4:]
	}
	timed := true
	if filepath.Base(os.Args[0]) == "ralph-loop" && (len(os.Args) < 2 || os.Args[1] != "hook") {
		timed = false // install, status and the like are no hook
	}
	if argv[0] == "" || log == "" {
		fmt.Fprintln(os.Stderr, "hooktimer: RALPH_HOOKTIMER_REAL and RALPH_HOOKTIMER_LOG must be set")
		return 2
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	} else {
		cmd.Stdin = os.Stdin
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "hooktimer:", err)
		code = 1
	}
	var cpu time.Duration
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	line, _ := json.Marshal(map[string]any{"label": label, "ns": d.Nanoseconds(), "cpu_ns": cpu.Nanoseconds()})
	if timed {
		if f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			f.Write(append(line, '\n'))
			f.Close()
		}
	}
	return code
}

var eventName = regexp.MustCompile(`"(?:hook_event_name|hookEventName|event|hook)"\s*:\s*"([^"]+)"`)

func readAll(f *os.File) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
}
