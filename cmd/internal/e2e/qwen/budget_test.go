package qwen

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-loop/ralph-loop/cmd/internal/e2e"
)

// TestBudget: on the real Qwen Code, the token budget scenario (see e2e.TokenBudget), from
// the usage Qwen Code records in its chat file as usageMetadata, which ralph-loop counts as
// 500 input, 1,500 cache reads and 300 output: 2,300 tokens. A stop that ends the loop does
// not wait for Qwen Code to write the turn to its chat file: the last turn counts only if it
// is there already. With UPDATE_TESTDATA=1 the chat file of the first run is kept as
// testdata/qwen/chat.budget.jsonl.
func TestBudget(t *testing.T) {
	headless.Budget(t, true, func(t *testing.T, name string, e e2e.Host) {
		if os.Getenv("UPDATE_TESTDATA") == "1" && name == "tokens" {
			keepChat(t, e.(*Env))
		}
	})
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
