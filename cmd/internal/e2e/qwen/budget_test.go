package qwen

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e/fakechat"
)

// perTurn is what each agent request reports: 2,000 prompt tokens of which 1,500 cached,
// and 300 completion tokens, which Qwen Code records as usageMetadata and ralph-loop counts
// as 500 input, 1,500 cache reads and 300 output: 2,300 tokens.
var perTurn = fakechat.Usage{Prompt: 2000, Cached: 1500, Completion: 300}

// TestBudget: on the real Qwen Code, a loop that never promises ends BUDGET_EXHAUSTED by
// --max-tokens at the third iteration (6,900 >= 5,000), from the usage Qwen Code records in
// its chat file; a budget never reached changes nothing. With UPDATE_TESTDATA=1 the chat file
// of the first run is kept as testdata/qwen/chat.budget.jsonl.
func TestBudget(t *testing.T) {
	for _, c := range []struct {
		name, flags, status string
		iteration           int
	}{
		{"tokens", "--max-tokens 5000", "BUDGET_EXHAUSTED", 3},
		{"never reached", "--max-tokens 1000000", "MAX_ITERATIONS_REACHED", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "user")
			res := run(t, e, Run{
				Script: Script{WhenDone: Text("Still thinking."), Usage: &perTurn},
				Prompt: `/ralph-loop "Think hard" --max-iterations 4 --min-tool-calls 0 ` + c.flags,
			})
			l := onlyLoop(t, e)
			t.Cleanup(func() {
				if t.Failed() {
					out, _ := e.RalphLoopCmd(context.Background(), "log")
					t.Logf("ralph-loop log:\n%s", out)
				}
			})
			expectLoop(t, l, c.status, c.iteration, 0)
			if n := len(res.Fake.MainRequests()); n != c.iteration {
				t.Errorf("%d agent requests, want %d", n, c.iteration)
			}
			// A stop that ends the loop does not wait for Qwen Code to write the turn to its
			// chat file: the last turn counts only if it is there already.
			if want := int64(c.iteration * 2300); l.Tokens != want && (c.status == "BUDGET_EXHAUSTED" || l.Tokens != want-2300) {
				t.Errorf("%d tokens counted, want %d", l.Tokens, want)
			}
			if os.Getenv("UPDATE_TESTDATA") == "1" && c.name == "tokens" {
				keepChat(t, e)
			}
		})
	}
}

// keepChat copies the run's chat file into testdata/qwen, machine paths replaced by /WORK.
func keepChat(t *testing.T, e *Env) {
	var chat string
	filepath.WalkDir(filepath.Join(e.Home, ".qwen"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && strings.Contains(p, "chats") {
			chat = p
		}
		return nil
	})
	data, err := os.ReadFile(chat)
	if err != nil {
		t.Fatalf("no chat file under %s: %v", e.Home, err)
	}
	root := filepath.Dir(e.Home)
	data = []byte(strings.ReplaceAll(string(data), root, "/WORK"))
	if err := os.WriteFile("../../../../testdata/qwen/chat.budget.jsonl", data, 0o644); err != nil {
		t.Fatal(err)
	}
}
