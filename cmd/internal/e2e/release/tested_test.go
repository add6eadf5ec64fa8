package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
	"github.com/ralph-loop/ralph-loop/hook/hosts"
)

// The versions ralph-loop doctor names as tested are the ones the real-CLI suites pin, and
// README's host table says the same.
func TestTestedVersions(t *testing.T) {
	pins := map[string]string{"claude": e2e.Claude.Version, "codex": e2e.Codex.Version, "copilot": e2e.Copilot.Version,
		"gemini": e2e.Gemini.Version, "opencode": e2e.OpenCode.Version, "qwen": e2e.Qwen.Version,
		"droid": e2e.Droid.Version, "kilo": e2e.Kilo.Version, "pi": e2e.Pi.Version}
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
