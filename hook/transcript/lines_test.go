package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGrep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	long := `{"x":"` + strings.Repeat("goal", MaxGrepLine/4) + `"}`
	os.WriteFile(path, []byte("{\"a\":\"goal 1\"}\n{\"b\":2}\n"+long+"\n"+strings.Repeat("y", 100<<10)+"goal 2\n{\"c\":\"goal 3\"}"), 0o600)
	var got []string
	if err := Grep(path, []byte("goal"), func(l []byte) { got = append(got, strings.TrimSpace(string(l))) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != `{"a":"goal 1"}` || !strings.HasSuffix(got[1], "goal 2") || got[2] != `{"c":"goal 3"}` {
		t.Errorf("Grep = %.80q", got)
	}
	if err := Grep(filepath.Join(t.TempDir(), "none"), []byte("x"), func([]byte) {}); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}
