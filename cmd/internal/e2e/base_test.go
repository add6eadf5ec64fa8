package e2e

import (
	"slices"
	"testing"
)

// Offline leaves out the caller's variables that could reach a real account or another
// session, and the world's replace the caller's.
func TestOffline(t *testing.T) {
	root := t.TempDir()
	for k, v := range map[string]string{"QWEN_KEY": "real", "qwen_token": "real", "XDG_CONFIG_HOME": "/x", "HTTPS_PROXY": "p",
		"https_proxy": "p", "HOME": "/home/real", "TMPDIR": "/tmp/real", "TERM": "xterm", "KEEP_ME": "1"} {
		t.Setenv(k, v)
	}
	var b Base
	if err := b.Lay("qwen", root, "ralph-loop", nil); err != nil {
		t.Fatal(err)
	}
	env := b.Offline([]string{"QWEN"}, "TERM=dumb", "QWEN_MODEL=fake")
	for _, gone := range []string{"QWEN_KEY=real", "qwen_token=real", "XDG_CONFIG_HOME=/x", "HTTPS_PROXY=p", "https_proxy=p",
		"HOME=/home/real", "TMPDIR=/tmp/real", "TERM=xterm"} {
		if slices.Contains(env, gone) {
			t.Errorf("%s is kept", gone)
		}
	}
	for _, want := range []string{"KEEP_ME=1", "HOME=" + b.Home, "TMPDIR=" + b.Tmp, "XDG_STATE_HOME=" + b.State,
		"NO_PROXY=127.0.0.1,localhost", "TERM=dumb", "QWEN_MODEL=fake"} {
		if !slices.Contains(env, want) {
			t.Errorf("%s is missing: %q", want, env)
		}
	}
}
