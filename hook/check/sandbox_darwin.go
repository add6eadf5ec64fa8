package check

import (
	"context"
	"os/exec"
	"strings"
)

// Runner is the program the checks' sandbox runs them with.
const Runner = "sandbox-exec"

func unavailable() string { return "sandbox-exec is missing" }

// command is the check's shell command line run by sandbox-exec in the sandbox, in dir, with
// tmp as its temporary directory: a Seatbelt profile that allows what the system allows,
// but no write outside the writable roots and tmp (the terminal and /dev/null aside), none
// in the read-only paths, and no network (Unix sockets included). Built and unit-tested
// for its text only: this profile has not been run on macOS by the project's tests.
func (w Sandbox) command(ctx context.Context, command, dir, tmp string) (*exec.Cmd, func(), error) {
	cmd := exec.CommandContext(ctx, w.Runner, "-p", seatbelt(w, tmp), shell, "-c", command)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "TMPDIR="+tmp)
	return cmd, func() {}, nil
}

func seatbelt(w Sandbox, tmp string) string {
	var b strings.Builder
	q := func(p string) string { return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p) + `"` }
	b.WriteString("(version 1)\n(allow default)\n(deny network*)\n(deny file-write*)\n(allow file-write*\n")
	b.WriteString("  (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\") (regex #\"^/dev/fd/\")\n")
	for _, p := range existing(append(append([]string{}, w.Writable...), tmp)) {
		b.WriteString("  (subpath " + q(p) + ")\n")
	}
	b.WriteString(")\n")
	if ro := existing(w.ReadOnly); len(ro) > 0 {
		b.WriteString("(deny file-write*\n")
		for _, p := range ro {
			b.WriteString("  (subpath " + q(p) + ")\n")
		}
		b.WriteString(")\n")
	}
	return b.String()
}
