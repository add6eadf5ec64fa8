package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/codex"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/copilot"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/droid"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/gemini"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/kilo"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/opencode"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/pi"
	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/qwen"
	"github.com/ralph-loop/ralph-loop/hook/hosts"
)

// The versions ralph-loop doctor names as tested are the ones the real-CLI suites pin, and
// README's host table says the same.
func TestTestedVersions(t *testing.T) {
	pins := map[string]string{"claude": e2e.ClaudeVersion, "codex": codex.Version, "copilot": copilot.Version,
		"gemini": gemini.Version, "opencode": opencode.Version, "qwen": qwen.Version,
		"droid": droid.Version, "kilo": kilo.Version, "pi": pi.Version}
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range pins {
		if hosts.Tested[name] != v {
			t.Errorf("hosts.Tested[%q] = %q; the suite runs %s", name, hosts.Tested[name], v)
		}
		if !strings.Contains(string(readme), "| "+v+" |") {
			t.Errorf("README's host table does not say %s is tested at %s", name, v)
		}
	}
	if len(hosts.Tested) != len(pins) {
		t.Errorf("hosts.Tested has %d hosts, the suites %d", len(hosts.Tested), len(pins))
	}
}
