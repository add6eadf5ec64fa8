package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A stand-in host: a long-running process that runs ralph-loop's hooks and the agent's
// shell commands the way Claude Code does (seen on 2.1.330, docs/guard.md): a hook through
// "sh -c", in a session of its own, its input written into a socket the host made; a tool
// call through "bash -c", in a session of its own, its input /dev/null. The scripts drive
// it with "fixture ask", so that the agent's commands run for real below the host of a
// loop, and their effect is what the scripts check.
//
//	fixture host DIR               serve DIR/sock until asked to quit
//	fixture ask DIR hook FILE      run the hook command lines of FILE's event that
//	                               "ralph-loop install" wrote into $HOME/.claude/settings.json
//	                               (without them, "ralph-loop hook --host claude"), with FILE
//	                               as their input
//	fixture ask DIR tool COMMAND   run COMMAND as the agent's shell tool would
//	fixture ask DIR installed EVENT FILE
//	                               run the command lines of EVENT's hooks in the Claude Code
//	                               settings install wrote ($HOME/.claude/settings.json),
//	                               each with FILE as its input
//	fixture ask DIR quit           stop the host

type standinRequest struct {
	Kind string `json:"kind"` // hook, tool, installed, quit
	Arg  string `json:"arg"`
	// Event is the hook event whose installed command lines run (installed).
	Event string `json:"event,omitempty"`
}

type standinReply struct {
	Stdout, Stderr string
	Code           int
}

func fixtureHost(dir string) error {
	sock := filepath.Join(dir, "sock")
	os.MkdirAll(dir, 0o700)
	os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	defer ln.Close()
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		var req standinRequest
		if err := json.NewDecoder(c).Decode(&req); err != nil {
			c.Close()
			continue
		}
		if req.Kind == "quit" {
			json.NewEncoder(c).Encode(standinReply{})
			c.Close()
			return nil
		}
		rep := standinRun(req)
		json.NewEncoder(c).Encode(rep)
		c.Close()
	}
}

// standinRun runs one hook or tool call as the host does.
func standinRun(req standinRequest) standinReply {
	var rep standinReply
	if req.Kind == "installed" {
		rep = standinInstalled(req)
	} else {
		rep = standinHook(req, "")
	}
	if req.Kind != "tool" {
		recordFeedback(req.Arg, rep)
	}
	return rep
}

// recordFeedback writes what Claude Code writes into the session's transcript when a Stop
// hook blocks the stop: a user line (isMeta) "Stop hook feedback:" with the reason, before
// the model's next request. payload is the event's input file.
func recordFeedback(payload string, rep standinReply) {
	data, err := os.ReadFile(payload)
	if err != nil {
		return
	}
	var ev struct {
		Event      string `json:"hook_event_name"`
		Transcript string `json:"transcript_path"`
	}
	var out struct {
		Decision, Reason string
	}
	if json.Unmarshal(data, &ev) != nil || ev.Event != "Stop" || ev.Transcript == "" ||
		json.Unmarshal([]byte(strings.TrimSpace(rep.Stdout)), &out) != nil || out.Decision != "block" {
		return
	}
	line, _ := json.Marshal(map[string]any{"type": "user", "isMeta": true, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"role": "user", "content": "Stop hook feedback:\n" + out.Reason}})
	f, err := os.OpenFile(ev.Transcript, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	f.Write(append(line, '\n'))
	f.Close()
}

// claudeSettings is what the stand-ins read of Claude Code's settings: each event's hooks'
// command lines.
type claudeSettings struct {
	Hooks map[string][]struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// standinInstalled runs the command lines of an event's hooks in the user's Claude Code
// settings, one after another, and joins what they answered.
func standinInstalled(req standinRequest) standinReply {
	data, err := os.ReadFile(filepath.Join(os.Getenv("HOME"), ".claude", "settings.json"))
	if err != nil {
		return standinReply{Stderr: err.Error(), Code: 1}
	}
	var settings claudeSettings
	if err := json.Unmarshal(data, &settings); err != nil {
		return standinReply{Stderr: err.Error(), Code: 1}
	}
	var all standinReply
	for _, g := range settings.Hooks[req.Event] {
		for _, h := range g.Hooks {
			rep := standinHook(standinRequest{Kind: "hook", Arg: req.Arg}, h.Command)
			all.Stdout += rep.Stdout
			all.Stderr += rep.Stderr
			if rep.Code != 0 {
				all.Code = rep.Code
			}
		}
	}
	return all
}

// standinHook runs one hook command line (kind hook; "": the one installed for the event)
// or tool call (kind tool) as the host does.
func standinHook(req standinRequest, hookCommand string) standinReply {
	var cmd *exec.Cmd
	switch req.Kind {
	case "hook":
		payload, err := os.ReadFile(req.Arg)
		if err != nil {
			return standinReply{Stderr: err.Error(), Code: 1}
		}
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return standinReply{Stderr: err.Error(), Code: 1}
		}
		ours, theirs := os.NewFile(uintptr(fds[0]), "host"), os.NewFile(uintptr(fds[1]), "hook")
		line := hookCommand
		if line == "" {
			if line, err = installedHook(payload); err != nil {
				return standinReply{Stderr: err.Error(), Code: 1}
			}
		}
		cmd = exec.Command("sh", "-c", line)
		cmd.Stdin = theirs
		defer theirs.Close()
		go func() {
			ours.Write(payload)
			ours.Close()
		}()
	case "tool":
		cmd = exec.Command("bash", "-c", req.Arg)
	default:
		return standinReply{Stderr: "unknown request " + req.Kind, Code: 2}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	rep := standinReply{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		rep.Code = ee.ExitCode()
	case err != nil:
		rep.Stderr += err.Error()
		rep.Code = 1
	}
	return rep
}

// installedHook is the command line Claude Code would run for the hook event payload: the
// one "ralph-loop install" wrote into the user's settings, or, where it wrote none,
// "ralph-loop hook --host claude".
func installedHook(payload []byte) (string, error) {
	var ev struct {
		Event string `json:"hook_event_name"`
	}
	if err := json.Unmarshal(payload, &ev); err != nil {
		return "", fmt.Errorf("read the hook event: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(os.Getenv("HOME"), ".claude", "settings.json"))
	if errors.Is(err, os.ErrNotExist) {
		return "ralph-loop hook --host claude", nil
	}
	if err != nil {
		return "", err
	}
	var settings claudeSettings
	if err := json.Unmarshal(data, &settings); err != nil {
		return "", fmt.Errorf("read the settings: %w", err)
	}
	for _, m := range settings.Hooks[ev.Event] {
		for _, h := range m.Hooks {
			if strings.Contains(h.Command, "ralph-loop") {
				return h.Command, nil
			}
		}
	}
	return "", fmt.Errorf("no ralph-loop hook for %s in the settings", ev.Event)
}

// fixtureAsk sends the stand-in host in dir one request and passes on its reply.
func fixtureAsk(argv []string) int {
	if len(argv) < 2 {
		fmt.Fprintln(os.Stderr, "fixture: ask DIR hook FILE | tool COMMAND | quit")
		return 2
	}
	req := standinRequest{Kind: argv[1]}
	if len(argv) > 2 {
		req.Arg = argv[2]
	}
	if req.Kind == "installed" && len(argv) > 3 {
		req.Event, req.Arg = argv[2], argv[3]
	}
	var c net.Conn
	var err error
	for i := 0; i < 500; i++ { // the host may still be starting
		if c, err = net.Dial("unix", filepath.Join(argv[0], "sock")); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fixture: ask:", err)
		return 1
	}
	defer c.Close()
	json.NewEncoder(c).Encode(req)
	var rep standinReply
	if err := json.NewDecoder(c).Decode(&rep); err != nil {
		fmt.Fprintln(os.Stderr, "fixture: ask:", err)
		return 1
	}
	os.Stdout.WriteString(rep.Stdout)
	os.Stderr.WriteString(rep.Stderr)
	return rep.Code
}
