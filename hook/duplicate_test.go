package hook

import (
	"testing"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// The same event delivered to a second hook process counts once: both processes were
// started by the host before either answered. An identical event from a hook process
// started after the decision is a new event (a text-only loop's stops have identical input,
// and Claude Code writes the transcript late, so nothing else tells them apart).
func TestDuplicate(t *testing.T) {
	decided := time.Unix(1000, 0)
	l := &state.Loop{LastKey: "k", LastKeyAt: decided}
	before, after := decided.Add(-time.Millisecond), decided.Add(50*time.Millisecond)
	for _, tt := range []struct {
		name    string
		key     string
		started time.Time
		want    bool
	}{
		{"other event", "j", before, false},
		{"no key", "", before, false},
		{"second process started before the decision", "k", before, true},
		{"same input from a process started after the decision", "k", after, false},
	} {
		if got := duplicate(l, tt.key, tt.started); got != tt.want {
			t.Errorf("%s: duplicate = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The process's start is read from the kernel (the host forked it then, however late the
// program got going), as the earliest time it can have been, given 10 ms ticks.
func TestProcessStart(t *testing.T) {
	now := time.Unix(5000, 0)
	stat := "4242 (ralph (loop) x) S 1 4242 4242 0 -1 4194304 100 0 0 0 1 0 0 0 20 0 1 0 123400 1000 200"
	got, ok := processStart(now, stat, "1240.00 900.00\n")
	// Started at 1234.00 s after boot, now is 1240.00: 6 s ago, at least 10 ms earlier.
	if want := now.Add(-6 * time.Second).Add(-10 * time.Millisecond); !ok || !got.Equal(want) {
		t.Errorf("processStart = %v, %v; want %v", got, ok, want)
	}
	for _, bad := range [][2]string{{"garbage", "1240.00 1"}, {stat, ""}, {"1 (x) S 1 2 3", "1240.00 1"}} {
		if _, ok := processStart(now, bad[0], bad[1]); ok {
			t.Errorf("processStart(%q, %q) ok", bad[0], bad[1])
		}
	}
}
