package claudeshape

import (
	"io"

	"github.com/ralph-loop/ralph-loop/hook/internal/wire"
)

// Input is the part of a Claude Code hook event that ralph-loop uses (wire.Input: Qwen Code,
// Factory Droid and Gemini CLI use the same field names).
type Input = wire.Input

// DecodeInput reads one event object from r. Fields it does not use (tool inputs and
// responses, which can be huge) are skipped without being held in memory. Known fields of
// the wrong type, a missing hook_event_name, or anything but one JSON object are errors
// wrapping hook.ErrInput.
func DecodeInput(r io.Reader) (Input, error) {
	var in Input
	err := wire.DecodeInput(r, &in, nil)
	return in, err
}
