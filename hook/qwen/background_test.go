package qwen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ralph-loop/ralph-loop/hook/hosttest"
)

// Qwen Code's background shells are read from their status files, beside the chat
// recording (as 0.24.4 writes them; the file's shape is its writeStatusFile's): those that
// say running and whose process is there, of the session only.
func TestBackgroundShells(t *testing.T) {
	base := t.TempDir()
	const session = "9c64b1c2-5f07-437d-b5b6-cb9e31e42fd0"
	chat := filepath.Join(base, "projects", "-WORK-project", "chats", session+".jsonl")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	shells := filepath.Join(base, "tmp", "282e620c59532239181ab6b74f117c541f8574c15ea670dc43eaebce08eb95de", "background-shells")
	for _, f := range []struct{ session, id, status string }{
		{session, "bg_running", `"running", "pid": ` + fmt.Sprint(os.Getpid())},
		{session, "bg_nopid", `"running"`},
		{session, "bg_done", `"completed", "pid": ` + fmt.Sprint(os.Getpid()) + `, "exitCode": 0`},
		{session, "bg_gone", `"running", "pid": ` + fmt.Sprint(dead.Process.Pid)},
		{"another-session", "bg_other", `"running", "pid": ` + fmt.Sprint(os.Getpid())},
	} {
		hosttest.WriteFile(t, filepath.Join(shells, f.session, "shell-"+f.id+".status"), fmt.Sprintf(`{
  "id": %q,
  "status": %s,
  "command": "sleep 6; echo built > build.txt",
  "cwd": "/WORK/project",
  "startTime": "2026-12-06T01:59:26.989Z",
  "updatedAt": "2026-12-06T01:59:26.989Z"
}`, f.id, f.status))
	}
	hosttest.WriteFile(t, filepath.Join(shells, session, "shell-bg_bad.status"), "not json")
	got := Transcript.Background(chat, session)
	ids := []string{}
	for _, g := range got {
		ids = append(ids, g.ID)
		if g.Kind != "shell" || g.Command != "sleep 6; echo built > build.txt" {
			t.Errorf("shell %+v", g)
		}
	}
	slices.Sort(ids)
	if want := []string{"bg_nopid", "bg_running"}; !slices.Equal(ids, want) {
		t.Errorf("shells %q, want %q", ids, want)
	}
	for _, bad := range [][2]string{{filepath.Join(base, "elsewhere", session+".jsonl"), session}, {chat, "../x"}, {chat, "*"}} {
		if got := Transcript.Background(bad[0], bad[1]); got != nil {
			t.Errorf("Background(%q, %q) = %+v, want none", bad[0], bad[1], got)
		}
	}
}
