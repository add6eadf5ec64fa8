package proc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMain makes the test binary a stand-in hook when PROC_TEST_HOOK is set: it prints
// what HookCaller finds, as JSON.
func TestMain(m *testing.M) {
	if os.Getenv("PROC_TEST_HOOK") == "1" {
		c, err := HookCaller()
		if err != nil {
			fmt.Println(`{"error":` + fmt.Sprintf("%q", err.Error()) + `}`)
			os.Exit(0)
		}
		json.NewEncoder(os.Stdout).Encode(map[string]any{"host": c.Host.PID, "via": len(c.Via), "stdin": c.Stdin.Kind, "proved": c.Proved(), "same": c.SameSession})
		os.Exit(0)
	}
	if os.Getenv("PROC_TEST_STARTS") == "1" {
		// Prints the start time of pid 1 and of its own parent, as this process reads them.
		one, err1 := Read(1)
		parent, err2 := Read(os.Getppid())
		json.NewEncoder(os.Stdout).Encode(map[string]any{"one": one.Start, "parent": parent.Start, "alive": Alive(parent.ID),
			"err": fmt.Sprint(errors.Join(err1, err2))})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A process in a time namespace of its own (unshare -T, no privilege needed inside a user
// namespace) reads every start time in /proc shifted by its boottime offset; ralph-loop
// takes the offset out, so the processes it reads are the ones a hook outside recorded.
func TestStartTimesInTimeNamespace(t *testing.T) {
	self, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	one, err := Read(1)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	for _, offset := range []string{"100000", "-1"} {
		cmd := exec.Command("unshare", "--user", "--map-root-user", "--time", "--boottime", offset, exe)
		cmd.Env = append(os.Environ(), "PROC_TEST_STARTS=1")
		out, err := cmd.Output()
		if err != nil {
			t.Skipf("no time namespace here (unshare --time): %v", err)
		}
		var got struct {
			One, Parent uint64
			Alive       bool
			Err         string
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		if got.Err != "<nil>" {
			t.Fatalf("boottime %s: %s", offset, got.Err)
		}
		// The child's parent is unshare, started by this test after it: its start is at
		// least this process's; pid 1's is the same as read from here (with a negative
		// offset the kernel cannot show a start that early: it is not compared then).
		if offset[0] == '-' {
			got.One = one.Start
		}
		if got.One != one.Start || got.Parent < self.Start || !got.Alive {
			t.Errorf("boottime %s: pid 1 started at %d (want %d), the parent at %d (want at least %d), alive %v", offset,
				got.One, one.Start, got.Parent, self.Start, got.Alive)
		}
	}
}

func TestParseStat(t *testing.T) {
	for _, c := range []struct {
		stat, comm string
		ppid, sid  int
		start      uint64
		stopped    bool
		zombie     bool
	}{
		{"42 (bash) S 41 42 42 34816 42 4194560 1 2 3 4 5 6 7 8 20 0 1 0 12345 1 2", "bash", 41, 42, 12345, false, false},
		{"42 (a (b) c) T 7 1 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 1 2", "a (b) c", 7, 9, 99, true, false},
		{"42 (x) Z 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 1 2", "x", 1, 1, 5, false, true},
	} {
		got, err := parseStat(42, []byte(c.stat), "b")
		if err != nil || got.Comm != c.comm || got.PPID != c.ppid || got.Session != c.sid || got.Start != c.start || got.Stopped != c.stopped ||
			got.Zombie != c.zombie || got.Boot != "b" {
			t.Errorf("parseStat(%q) = %+v, %v", c.stat, got, err)
		}
	}
	for _, bad := range []string{"", "42 bash S 1", "42 (x) S 1 2 3", "42 (x) S a 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5"} {
		if _, err := parseStat(42, []byte(bad), ""); err == nil {
			t.Errorf("parseStat(%q) succeeded", bad)
		}
	}
}

func TestParseLocks(t *testing.T) {
	locks := "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF\n" +
		"1: -> FLOCK  ADVISORY  WRITE 999 08:01:5678 0 EOF\n" +
		"2: POSIX  ADVISORY  WRITE 77 00:1f:5678 0 EOF\n" +
		"3: FLOCK  ADVISORY  WRITE 55 08:01:5679 0 EOF\n"
	if got := parseLocks([]byte(locks), 8, 1, 5678); len(got) != 1 || got[0] != 1234 {
		t.Errorf("holders = %v, want [1234] (the waiter and other files left out)", got)
	}
	if got := parseLocks([]byte(locks), 0, 0x1f, 5678); len(got) != 1 || got[0] != 77 {
		t.Errorf("holders = %v, want [77]", got)
	}
}

func TestSelfAndAncestors(t *testing.T) {
	self, err := Self()
	if err != nil || self.PID != os.Getpid() || self.PPID != os.Getppid() {
		t.Fatalf("Self = %+v, %v", self, err)
	}
	chain, err := Ancestors(self.PID)
	if err != nil || len(chain) == 0 || chain[0].PID != os.Getppid() {
		t.Fatalf("Ancestors = %+v, %v", chain, err)
	}
	if !Alive(self.ID) || Alive(ID{PID: self.PID, Start: self.Start + 1}) {
		t.Error("Alive does not tell this process from a pid reused at another start")
	}
	mine, err := SelfAncestors()
	if errors.Is(err, ErrIncomplete) && strings.Contains(err.Error(), "handed to pid 1") {
		// The test runs below a process whose parent exited (a job started in the
		// background of a shell that is gone): the chain is rightly reported cut there.
		t.Logf("SelfAncestors: %v", err)
		err = nil
	}
	if err != nil || len(mine) != len(chain) || mine[0].ID != chain[0].ID {
		t.Errorf("SelfAncestors = %+v, %v; want %+v", mine, err, chain)
	}
}

// hookRun runs the test binary as a hook with the given stdin, through command line argv
// (the hook is "$0" there).
func hookRun(t *testing.T, stdin *os.File, argv ...string) map[string]any {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(argv[0], append(argv[1:], exe)...)
	cmd.Env = append(os.Environ(), "PROC_TEST_HOOK=1")
	cmd.Stdin = stdin
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %q", argv, out)
	}
	return got
}

// socket is one end of a socket pair, as node hosts hand a hook its input; both ends are
// closed when the test ends.
func socket(t *testing.T) *os.File {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "theirs")
	t.Cleanup(func() { ours.Close(); theirs.Close() })
	return theirs
}

// A hook started the way hosts start them: through "sh -c" or directly, its input a
// socket the host made (node hosts) or a pipe (Codex): the host is found past the shell,
// and only the socket proves it.
func TestHookCaller(t *testing.T) {
	theirs := socket(t)
	me := float64(os.Getpid())
	got := hookRun(t, theirs, "sh", "-c", `"$0"; :`)
	if got["host"] != me || got["via"] != 1.0 || got["stdin"] != "socket" || got["proved"] != true || got["same"] != true {
		t.Errorf("through sh -c with our socket: %v", got)
	}
	r, w, _ := os.Pipe()
	w.Close()
	got = hookRun(t, r, "setsid", "-w", "sh", "-c", `"$0"; :`)
	if got["host"] != me || got["stdin"] != "pipe" || got["proved"] != false || got["same"] != false {
		t.Errorf("through setsid sh -c with our pipe: %v", got)
	}
	// A shell that makes the hook's input itself is the hook's host, not us.
	got = hookRun(t, nil, "bash", "-c", `"$0" < <(echo x); :`)
	if got["host"] == me || got["stdin"] != "pipe" {
		t.Errorf("a shell that feeds the hook: %v", got)
	}
	if !strings.Contains(fmt.Sprint(got), "via") {
		t.Errorf("%v", got)
	}
}

// No depth bounds the walk: a hook 100 shells below its host, each passing its input down,
// still finds it (before, a walk of more than 64 failed, and who asked could not be told).
func TestHookCallerDeep(t *testing.T) {
	deep := filepath.Join(t.TempDir(), "deep.sh")
	if err := os.WriteFile(deep, []byte("if [ \"$1\" -gt 0 ]; then sh \"$0\" $(($1 - 1)) \"$2\"; else \"$2\"; fi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	theirs := socket(t)
	got := hookRun(t, theirs, "sh", deep, "100")
	if got["host"] != float64(os.Getpid()) || got["via"] != 101.0 || got["proved"] != true {
		t.Errorf("100 shells deep: %v", got)
	}
}
