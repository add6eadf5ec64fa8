package guard

// denyWrap are the commands denied by the rules of wrap.go (wrappers and the shell's builtins).
var denyWrap = []string{
	// ralph-loop itself, in every spelling and behind every wrapper.
	`timeout 10 ralph-loop cancel --all`,
	`timeout -s KILL 10 ralph-loop cancel --all`,
	`timeout --signal=TERM 1m ralph-loop cancel --all`,
	`nice ralph-loop cancel --all`,
	`nice -n 19 ralph-loop cancel --all`,
	`nohup ralph-loop cancel --all &`,
	`env -u HOME ralph-loop cancel --all`,
	`env -i PATH=/usr/bin ralph-loop cancel --all`,
	`env FOO=1 ralph-loop cancel --all`,
	`sudo -u root ralph-loop cancel --all`,
	`sudo -E ralph-loop cancel --all`,
	`doas ralph-loop cancel --all`,
	`command ralph-loop cancel --all`,
	`exec ralph-loop cancel --all`,
	`builtin ralph-loop cancel --all`,
	`stdbuf -oL ralph-loop cancel --all`,
	`ionice -c3 ralph-loop cancel --all`,
	`chrt -i 0 ralph-loop cancel --all`,
	`setsid ralph-loop cancel --all`,
	`time ralph-loop cancel --all`,
	`watch -n 1 ralph-loop cancel --all`,
	`bash -c "ralph-loop cancel --all"`,
	`sh -c 'ralph-loop cancel --all'`,
	`zsh -c 'ralph-loop cancel --all'`,
	`bash -lc 'timeout 5 ralph-loop cancel --all'`,
	`eval "ralph-loop cancel --all"`,
	`eval ralph-loop cancel --all`,
	`"$(command -v ralph-loop)" cancel --all`,
	"bash <<'EOF'\nralph-loop cancel --all\nEOF",
	`echo 'ralph-loop cancel --all' | bash`,
	`bash <<< 'ralph-loop cancel --all'`,
	`trap 'ralph-loop cancel --all' EXIT`,
	`su root -c 'ralph-loop cancel --all'`,
	`flock /tmp/l ralph-loop cancel --all`,
	`busybox sh -c 'ralph-loop cancel --all'`,
	// The host CLI resuming this session.
	`timeout 60 claude -p --resume "$CLAUDE_CODE_SESSION_ID" "hello"`,
	`bash -c 'claude -p -r "$CLAUDE_CODE_SESSION_ID" /cancel-ralph'`,
	// The state directory and every directory above it, however spelled.
	`command rm -rf ~/.local/state`,
	`busybox rm -rf ~/.local/state`,
	`exec 3> ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	// find's name filters that may match a file of ralph-loop's, or that -delete escapes.
	`sudo -u root rm -rf ~/.local/state`,
	`timeout 5 rm -rf ~/.local/state`,
	`nice -n 10 rm -rf ~/.local/state`,
	`env -u HOME rm -rf ~/.local/state`,
	`bash -c "rm -rf ~/.local/state/ralph-loop"`,
	`sh -c 'cd ~/.local/state && rm -rf ralph-loop'`,
	`eval 'rm -rf ~/.local/state'`,
	`eval "rm -rf \$HOME/.local/state"`,
	`bash -c "bash -c 'rm -rf ~/.local/state'"`,
	// Found by trying to break the guard after the rewrite.
	`printf 'ralph-loop cancel --all\n' | sh`,
	`nohup bash -c 'ralph-loop cancel --all' >/dev/null 2>&1 &`,
	`sudo -s ralph-loop cancel --all`,
	`unset HOME; ralph-loop cancel --all`,
	`$(go env GOPATH)/bin/ralph-loop cancel --all`,
	`env -S 'ralph-loop cancel --all'`,
	`watch -x ralph-loop cancel --all`,
	`sudo --user=root -- ralph-loop cancel --all`,
	`ssh localhost 'rm -rf ~/.local/state'`,
	`ssh me@127.0.0.1 ralph-loop cancel --all`,
	// Issue 16: spellings the parser did not follow: runners off the wrapper list, commands
	// in git's settings, gdb and make, <(…) as a script, ${!H}, set --, $OLDPWD, the path
	// given to an interpreter's code, a renamed rm, tar -x over the state.
	`tmux new-session -d 'ralph-loop cancel --all'`,
	`echo 'ralph-loop cancel --all' | at now`,
	`bash <(echo ralph-loop cancel --all)`,
	`source <(echo ralph-loop cancel --all)`,
	"make -f - <<'EOF'\nall:\n\tralph-loop cancel --all\nEOF",
	`gdb -batch -ex 'shell ralph-loop cancel --all'`,
	`gdb -q -ex '!rm -rf ~/.local/state' -ex quit`,
	`set -- ralph-loop cancel --all; "$@"`,
	`set -- ~/.local/state; rm -rf "$1"`,
}

// allowWrap are the commands let through by the rules of wrap.go (wrappers and the
// shell's builtins).
var allowWrap = []string{
	`env XDG_STATE_HOME=/tmp/dev ralph-loop start --session dev -- task`,
	`make build`,
	`timeout 5 ralph-loop status`,
	`nice ralph-loop log`,
	`bash -c 'ralph-loop status'`,
	`watch -n 5 ralph-loop status`,
	`bash -c 'cat ~/.local/state/ralph-loop/sessions/s1/loop.json'`,
	`timeout 5 ls ~/.local/state`,
	`sudo ls /root`,
	`env | grep HOME`,
	`env`,
	// Found by trying the rewrite for false alarms.
	`while read -r line; do echo "$line"; done < ~/.local/state/ralph-loop/sessions/s1/events.jsonl`,
	`make -C ~/project test`,
	// Everyday work in a project, none of which may be denied.
	`ssh build-server 'rm -rf ~/.local/state'`,
}
