package check

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func opts(t *testing.T) Options {
	dir := t.TempDir()
	return Options{Dir: dir, Timeout: 10 * time.Second, LogPrefix: filepath.Join(dir, "logs", "loop-iter-1"), TailChars: 40}
}

func TestPassAndFail(t *testing.T) {
	o := opts(t)
	rs := Run(context.Background(), []string{"true", "echo out; echo err >&2; exit 3", "echo never"}, o)
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2 (the third never runs)", len(rs))
	}
	if !rs[0].Passed() || rs[0].Index != 1 || rs[0].Total != 3 {
		t.Errorf("first: %+v", rs[0])
	}
	if rs[1].Passed() || rs[1].ExitCode != 3 || rs[1].Tail != "out\nerr\n" {
		t.Errorf("second: %+v", rs[1])
	}
	log, _ := os.ReadFile(rs[1].LogPath)
	if !strings.HasPrefix(string(log), "$ echo out; echo err >&2; exit 3\nout\nerr\n") || !strings.Contains(string(log), "exited with code 3") {
		t.Errorf("log:\n%s", log)
	}
	if fi, _ := os.Stat(rs[1].LogPath); fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v", fi.Mode().Perm())
	}
}

func TestRunsInDir(t *testing.T) {
	o := opts(t)
	os.WriteFile(filepath.Join(o.Dir, "marker"), nil, 0o644)
	if rs := Run(context.Background(), []string{"test -f marker"}, o); !rs[0].Passed() {
		t.Fatalf("%+v", rs[0])
	}
}

func TestTail(t *testing.T) {
	o := opts(t)
	o.TailChars = 5
	rs := Run(context.Background(), []string{"printf 'abcdefé日本語'; exit 1"}, o)
	if rs[0].Tail != "fé日本語" {
		t.Errorf("tail %q", rs[0].Tail)
	}
	o.TailChars = 4000
	rs = Run(context.Background(), []string{"seq 1 100000; exit 1"}, o)
	if n := len([]rune(rs[0].Tail)); n != 4000 || !strings.HasSuffix(rs[0].Tail, "99999\n100000\n") {
		t.Errorf("tail of %d characters ending %q", n, rs[0].Tail[len(rs[0].Tail)-20:])
	}
}

// A check that hangs is killed at its timeout with everything it started.
func TestTimeoutKillsGroup(t *testing.T) {
	o := opts(t)
	o.Timeout = 500 * time.Millisecond
	pids := filepath.Join(o.Dir, "pids")
	start := time.Now()
	rs := Run(context.Background(), []string{"sleep 300 & echo $! > " + pids + "; sh -c 'sleep 300' & echo $! >> " + pids + "; wait"}, o)
	if time.Since(start) > 30*time.Second {
		t.Fatal("the check was not stopped")
	}
	if !rs[0].TimedOut || rs[0].Passed() || rs[0].Describe() != "timed out after 500ms" {
		t.Fatalf("%+v", rs[0])
	}
	data, _ := os.ReadFile(pids)
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		// Reaped by init or a zombie at most: signal 0 fails once it is gone.
		deadline := time.Now().Add(5 * time.Second)
		for syscall.Kill(pid, 0) == nil && !zombie(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if syscall.Kill(pid, 0) == nil && !zombie(pid) {
			t.Errorf("child %d of the check still runs", pid)
		}
	}
	if len(strings.Fields(string(data))) != 2 {
		t.Fatalf("pids: %q", data)
	}
}

func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(data))
	return len(f) > 2 && f[2] == "Z"
}

func TestDeadline(t *testing.T) {
	o := opts(t)
	o.Deadline = time.Now().Add(-time.Second)
	rs := Run(context.Background(), []string{"true"}, o)
	if rs[0].Passed() || !strings.Contains(rs[0].Describe(), "no time left") {
		t.Fatalf("%+v", rs[0])
	}
}
