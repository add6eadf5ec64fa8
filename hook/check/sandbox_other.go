//go:build !linux && !darwin

package check

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
)

// Runner is the program the checks' sandbox runs them with: none here.
const Runner = ""

func unavailable() string { return "ralph-loop has no sandbox for the checks on " + runtime.GOOS }

func (w Sandbox) command(ctx context.Context, command, dir, tmp string) (*exec.Cmd, func(), error) {
	return nil, nil, errors.New(unavailable())
}
