package guard

import "slices"

// The guard's table: every form issue 10 lists, denied and allowed. Each command is judged
// with the agent in {H}/project, a git work tree, while the session s1 has a loop in
// {H}/.local/state/ralph-loop. {H} is $HOME as the hook sees it, {R} its real path. The
// table runs twice: once with HOME reached through a symbolic link (and XDG_STATE_HOME
// unset), once with the real HOME and XDG_STATE_HOME set.

// denyCommands are the Bash commands the guard denies: the rows of each file of rules,
// in the test file of the same name.
var denyCommands = slices.Concat(denyCmd, denyWrap, denyCopy, denyFind, denyGit, denyCode, denyRalph)

// denyCmd are the commands denied by the rules of cmd.go (the program sets: rm, the
// writers, the editors) and by the shell's grammar.
var denyCmd = []string{
	// ralph-loop itself, in every spelling and behind every wrapper.
	`$(which ralph-loop) cancel --all`,
	"`which ralph-loop` cancel --all",
	`r''alph-loop cancel --all`,
	`ralph\-loop cancel --all`,
	`"ralph-loop" 'cancel' --all`,
	`ralph-loop can"cel" --all`,
	// The state directory and every directory above it, however spelled.
	`rm -rf ~/.local/state/ralph-loop`,
	`rm -rf ~/.local/state`,
	`rm -rf ~/.local/state/*`,
	`rm -rf ~/.local`,
	`rm -rf ~`,
	`rm -rf ~/`,
	`rm -rf /`,
	`rm -rf --no-preserve-root /`,
	`rm -rf $HOME/.local/state/ralph-loop/sessions`,
	`rm -rf "${HOME}/.local/state/ralph-loop"`,
	`rm -rf "$XDG_STATE_HOME/ralph-loop"`,
	`rm -rf ${XDG_STATE_HOME}/ralph-loop`,
	`rm -fr "$XDG_STATE_HOME"`,
	`rm -rf ~/.local/st*/ralph*`,
	`rm -rf ~/.local/state/ralph-*`,
	`rm -rf ~/.local/{state,share}/ralph-loop`,
	`rm -rf ~/.loc?l/state`,
	`rm -rf ~/.local/state/[r]alph-loop`,
	`cd ~/.local/state && rm -r ralph-loop`,
	`cd ~/.local && rm -rf state`,
	`cd ~ && rm -rf .local`,
	`cd && rm -rf .local/state`,
	`cd ~/.local/state/ralph-loop && rm -rf *`,
	`cd ~/.local/state/ralph-loop/sessions && rm -rf ../sessions`,
	`cd .. && rm -rf .local/state`,
	`rm -rf ../.local/state`,
	`rm -rf {R}/.local/state/ralph-loop`,
	`rm -rf {H}/.local/state/ralph-loop`,
	`rm -r ~/.local/st\ate/ralph-loop`,
	`rm -rf ~/.local/'state'/"ralph-loop"`,
	`rm -rf ~/.local/state/ralph-loop/../ralph-loop`,
	`rm -rf ~/.local/./state`,
	`rm -rf ~//.local///state`,
	`rm -rf ~/.local/state/ralph-loop/`,
	`rm -rf -- ~/.local/state`,
	`\rm -rf ~/.local/state`,
	`/bin/rm -rf ~/.local/state`,
	`rm -rf ~/.local/state 2>/dev/null || true`,
	`rm -f ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`rmdir ~/.local/state/ralph-loop/sessions/s1`,
	`unlink ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`shred -u ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`truncate -s0 ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`echo '{}' > ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`echo x >> ~/.local/state/ralph-loop/sessions/s1/events.jsonl`,
	`: > ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`cat /tmp/x > "$XDG_STATE_HOME/ralph-loop/sessions/s1/loop.json"`,
	`echo '{}' | tee ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`echo '{}' | tee -a ~/.local/state/ralph-loop/sessions/s1/loop.json > /dev/null`,
	// find's name filters that may match a file of ralph-loop's, or that -delete escapes.
	`mkfifo ~/.local/state/ralph-loop/sessions/s1/events.jsonl`,
	`touch ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`trash ~/.local/state`,
	`gio trash ~/.local/state/ralph-loop`,
	`vim ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`nano ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`D=~/.local/state; rm -rf "$D"`,
	`export D=$HOME/.local; rm -rf $D/state`,
	`rm -rf ~/.local/state/ralph-loop & wait`,
	`(cd ~/.local/state && rm -rf ralph-loop)`,
	`{ rm -rf ~/.local/state; }`,
	`for d in ~/.local/state/*; do rm -rf "$d"; done`,
	`rm -rf "$HOME"/.local/state`,
	`rm -rf $HOME/$NOPE`,
	// Found by trying to break the guard after the rewrite.
	`rm -rf "$(dirname ~/.local/state/ralph-loop)"`,
	`rm -rf $(echo ~/.local/state)`,
	"rm -rf `echo ~/.local/state`",
	`X=~/.local; Y=$X/state; rm -rf $Y`,
	`pushd ~/.local/state && rm -rf ralph-loop`,
	`rm -rf ~/.local/state/ralph-loop/sessions/s1/../../`,
	`rm -rf /tmp/../$HOME`,
	`HOME=/tmp rm -rf ~/.local/state`,
	`cd ~/.local; cd state; rm -rf ralph-loop`,
	"[[ -d ~/.local/state ]] && rm -rf ~/.local/state",
	`case x in x) rm -rf ~/.local/state;; esac`,
	`"$(printf rm)" -rf ~/.local/state`,
	`rm -rf ${NOPE:-$HOME}/.local/state`,
	`cd ~/.local/state && ls; rm -rf ralph-loop`,
	`cd /tmp || cd ~; rm -rf .local`,
	`(cd ~/.local/state && rm -rf ralph-loop); echo done`,
	`a=(rm -rf ~/.local/state); ${a[*]}`,
	// Issue 16: spellings the parser did not follow: runners off the wrapper list, commands
	// in git's settings, gdb and make, <(…) as a script, ${!H}, set --, $OLDPWD, the path
	// given to an interpreter's code, a renamed rm, tar -x over the state.
	`prlimit -n1024 rm -rf ~/.local/state`,
	`unshare -r rm -rf ~/.local/state`,
	`chroot / rm -rf ~/.local/state`,
	`. <(printf 'rm -rf ~/.local/state')`,
	`cd ~/.local/state; cd /tmp; rm -rf "$OLDPWD"`,
}

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

// denyCopy are the commands denied by the rules of copy.go (copies, archives and sync).
var denyCopy = []string{
	// ralph-loop itself, in every spelling and behind every wrapper.
	`ralph-loop install --host claude --scope project`,
	// The state directory and every directory above it, however spelled.
	`mv ~/.local/state/ralph-loop /tmp/x`,
	`mv ~/.local/state /tmp/old-state`,
	`mv ~/.local/state/ralph-loop{,.bak}`,
	`mv /tmp/x ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`cp /tmp/x ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`cp -r /tmp/state ~/.local/`,
	`cp -t ~/.local/state/ralph-loop/sessions/s1 /tmp/loop.json`,
	`cp /dev/null ~/.local/state/ralph-loop/sessions/s1/events.jsonl`,
	`install -m600 /tmp/x ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`jq '.status="CANCELLED"' loop.json > /tmp/x && mv /tmp/x ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`sort -o ~/.local/state/ralph-loop/sessions/s1/events.jsonl /tmp/x`,
	`dd if=/dev/zero of=$HOME/.local/state/ralph-loop/sessions/s1/loop.json`,
	`chmod 000 ~/.local/state/ralph-loop`,
	`chmod -R 000 ~/.local`,
	`chown -R nobody ~/.local/state`,
	`chown -R nobody ~`,
	`chown -R root:root ~`,
	`chown -R $USER ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	// find's name filters that may match a file of ralph-loop's, or that -delete escapes.
	`ln -sf /dev/null ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`ln -sfn /tmp/empty ~/.local/state/ralph-loop`,
	`cd ~/.local/state/ralph-loop/sessions/s1 && ln -sf /tmp/x loop.json`,
	`tar -xf /tmp/x.tar -C ~/.local/state/ralph-loop`,
	`unzip -o x.zip -d ~/.local/state/ralph-loop`,
	`rsync -a --delete /tmp/empty/ ~/.local/state/ralph-loop/`,
	`rsync -a --delete /tmp/empty/ ~/`,
	// Found by trying to break the guard after the rewrite.
	`mv ~/.local/state/ralph-loop/sessions/s1/loop.json ~/.local/state/ralph-loop/sessions/s1/loop.json.bak`,
	`install -d ~/.local/state/ralph-loop/sessions/x`,
	`mv ~ /tmp/home`,
	`cp -rT /tmp/empty ~/.local/state/ralph-loop`,
	`rsync -a --delete-after /tmp/empty/ ~/.local/state`,
	`ln ~/.local/state/ralph-loop/sessions/s1/loop.json /tmp/loop.json`,
	`cp -l ~/.local/state/ralph-loop/sessions/s1/loop.json /tmp/loop.json`,
	`cp $(which ralph-loop) /tmp/rl && /tmp/rl cancel --all`,
	`ln -s "$(command -v ralph-loop)" ~/bin/x; ~/bin/x hook --host claude < p.json`,
	// Issue 16: spellings the parser did not follow: runners off the wrapper list, commands
	// in git's settings, gdb and make, <(…) as a script, ${!H}, set --, $OLDPWD, the path
	// given to an interpreter's code, a renamed rm, tar -x over the state.
	`cp /bin/rm /tmp/del; /tmp/del -rf ~/.local/state`,
	`ln -s "$(which rm)" ./x && ./x -r ~/.local`,
	`tar -xPf /tmp/evil.tar`,
	`tar -xf /tmp/evil.tar -C ~ .local/state/ralph-loop`,
}

// denyFind are the commands denied by the rules of find.go (find, xargs and parallel).
var denyFind = []string{
	// ralph-loop itself, in every spelling and behind every wrapper.
	`echo --all | xargs ralph-loop cancel`,
	`echo cancel --all | xargs ralph-loop`,
	`xargs -n1 ralph-loop cancel --session < ids.txt`,
	`find . -maxdepth 0 -exec ralph-loop cancel --all \;`,
	// find's name filters that may match a file of ralph-loop's, or that -delete escapes.
	`find ~ -name '*.json' -delete`,
	`find ~ -name 'loop.*' -delete`,
	`find ~ -iname 'LOOP.JSON' -delete`,
	`find ~ -name '*' -delete`,
	`find ~ -name 's1' -delete`,
	`find ~ -name '*.lock' -delete`,
	`find ~ ! -name .DS_Store -delete`,
	`find ~ -not -name '*.pyc' -delete`,
	`find ~ -name .DS_Store -o -delete`,
	`find ~ \( -name '*.pyc' -o -name '*.jsonl' \) -delete`,
	`find ~ -path '*/__pycache__/*' -delete`,
	`find ~ -name "$X" -delete`,
	`find ~ -name .DS_Store , -delete`,
	`find ~ -frobnicate -name .DS_Store -delete`,
	`find ~ -name loop.json -delete`,
	`find ~/.local/state -name '*.json' -delete`,
	`find / -name loop.json -exec rm {} \;`,
	`find ~ -name loop.json -exec rm -f {} +`,
	`find ~ -type d -name ralph-loop -execdir rm -rf {} +`,
	`find ~/.local/state -type f | xargs rm -f`,
	`cd ~ && find . -name '*.tmp' -delete`,
	`ls ~/.local/state/ralph-loop/sessions | xargs -I{} rm -rf ~/.local/state/ralph-loop/sessions/{}`,
	// Found by trying to break the guard after the rewrite.
	`rm -rf $(find ~/.local/state -name '*.json')`,
	`while read f; do rm -f "$f"; done < <(find ~/.local/state -type f)`,
	`for f in $(find ~/.local/state -type f); do rm "$f"; done`,
	`cd ~/.local/state/ralph-loop && grep -rl foo . | xargs sed -i 's/foo/bar/'`,
	`echo cancel | xargs -I{} ralph-loop {} --all`,
}

// denyGit are the commands denied by the rules of git.go.
var denyGit = []string{
	// find's name filters that may match a file of ralph-loop's, or that -delete escapes.
	`cd ~/scratch && git clean -fdx ..`,
	`git -C ~ clean -fdx`,
	`cd ~ && git clean -xfd`,
	`cd ~ && git stash --all`,
	// Issue 16: spellings the parser did not follow: runners off the wrapper list, commands
	// in git's settings, gdb and make, <(…) as a script, ${!H}, set --, $OLDPWD, the path
	// given to an interpreter's code, a renamed rm, tar -x over the state.
	`git -c alias.x='!ralph-loop cancel --all' x`,
	`git -c core.pager='rm -rf ~/.local/state' log`,
}

// denyCode are the commands denied by the rules of code.go (interpreters and one-liners).
var denyCode = []string{
	// The state directory and every directory above it, however spelled.
	`sed -i 's/ACTIVE/CANCELLED/' ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`sed -i.bak -e 's/a/b/' ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`perl -pi -e 's/ACTIVE/DONE/' ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`yq -i '.status="CANCELLED"' ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`python3 -m json.tool /tmp/x ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	// find's name filters that may match a file of ralph-loop's, or that -delete escapes.
	`python3 -c 'import shutil,os; shutil.rmtree(os.path.expanduser("~/.local/state/ralph-loop"))'`,
	`python3 -c "open('$HOME/.local/state/ralph-loop/sessions/s1/loop.json','w').write('{}')"`,
	`perl -e 'unlink glob("~/.local/state/ralph-loop/sessions/*/loop.json")'`,
	`node -e "require('fs').rmSync(process.env.HOME+'/.local/state', {recursive:true})"`,
	`ruby -e 'require "fileutils"; FileUtils.rm_rf(File.expand_path("~/.local/state"))'`,
	`awk 'BEGIN{system("rm -rf ~/.local/state")}'`,
	`awk 'BEGIN{print "{}" > ENVIRON["HOME"] "/.local/state/ralph-loop/sessions/s1/loop.json"}'`,
	// Found by trying to break the guard after the rewrite.
	`python3 -c "import os; os.system('ralph-loop cancel --all')"`,
	`perl -e 'system("ralph-loop cancel --all")'`,
	`node -e "require('child_process').execSync('ralph-loop cancel --all')"`,
	"python3 - <<'EOF'\nimport shutil, os\nshutil.rmtree(os.path.expanduser('~/.local/state/ralph-loop'))\nEOF",
	"echo 'unlink \"$ENV{HOME}/.local/state/ralph-loop/sessions/s1/loop.json\"' | perl",
	// Issue 16: spellings the parser did not follow: runners off the wrapper list, commands
	// in git's settings, gdb and make, <(…) as a script, ${!H}, set --, $OLDPWD, the path
	// given to an interpreter's code, a renamed rm, tar -x over the state.
	`python3 -c 'import shutil,sys; shutil.rmtree(sys.argv[1])' ~/.local/state/ralph-loop`,
	`node -e "require('fs').rmSync(process.argv[1],{recursive:true})" ~/.local/state`,
	`perl -e 'unlink @ARGV' ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`awk 'BEGIN{"ralph-loop cancel --all" | getline x}'`,
}

// denyRalph are the commands denied by the rules of ralph.go (ralph-loop itself, the
// host's CLI, kill).
var denyRalph = []string{
	// ralph-loop itself, in every spelling and behind every wrapper.
	`ralph-loop cancel --all`,
	`ralph-loop cancel --session s1`,
	`/usr/local/bin/ralph-loop cancel --all`,
	`./bin/ralph-loop cancel --all`,
	`RL=ralph-loop; $RL cancel --all`,
	`ralph-loop start --session s1 -- new task`,
	`ralph-loop uninstall --host claude`,
	`echo '{"prompt":"/cancel-ralph"}' | ralph-loop hook --host claude`,
	`ralph-loop hook --host claude < payload.json`,
	`./bin/ralph-loop hook --host claude < cancel.json`,
	`go run ./cmd/ralph-loop cancel --all`,
	`if true; then ralph-loop cancel --all; fi`,
	`f() { ralph-loop cancel --all; }; f`,
	`x=$(ralph-loop cancel --all)`,
	`XDG_STATE_HOME=~/.local/state ralph-loop cancel --all`,
	`XDG_STATE_HOME={R}/.local/state ralph-loop cancel --all`,
	// The host CLI resuming this session.
	`claude -p --resume "$CLAUDE_CODE_SESSION_ID" /cancel-ralph`,
	`claude -p --resume $CLAUDE_CODE_SESSION_ID /cancel-ralph`,
	`claude -p --resume=${CLAUDE_CODE_SESSION_ID} '/cancel-ralph'`,
	`claude -p -r "$CLAUDE_CODE_SESSION_ID" "/cancel-ralph"`,
	`claude --continue -p /cancel-ralph`,
	`claude -c -p /cancel-ralph`,
	`claude -pc /cancel-ralph`,
	`echo /cancel-ralph | claude -p --resume "$CLAUDE_CODE_SESSION_ID"`,
	`claude -p --resume s1 /cancel-ralph`,
	`~/.local/bin/claude -r "$CLAUDE_CODE_SESSION_ID" -p /cancel-ralph`,
	`pkill claude`,
	`killall -9 claude`,
	`kill -9 $PPID`,
	// Found by trying to break the guard after the rewrite.
	`ralph-loop.exe cancel --all`,
	`XDG_STATE_HOME= ralph-loop cancel --all`,
	`claude --print --continue "/cancel-ralph"`,
	`claude -p --session-id "$CLAUDE_CODE_SESSION_ID" /cancel-ralph`,
	`npx @anthropic-ai/claude-code -p --resume "$CLAUDE_CODE_SESSION_ID" /cancel-ralph`,
	`kill -9 $(pgrep claude)`,
	`kill -TERM "$PPID"`,
	`declare -x XDG_STATE_HOME; ralph-loop cancel --all`,
	`ralph-loop cancel --all -- --help`,
	`coproc ralph-loop cancel --all`,
	`cat <(ralph-loop cancel --all)`,
	`kill -9 -1`,
	`go run github.com/ralph-loop/ralph-loop/cmd/ralph-loop@latest cancel --all`,
	`/tmp/renamed cancel --all`,
	`{H}/bin/rl cancel`,
	`a=(ralph-loop cancel --all); "${a[@]}"`,
	// Issue 16: a flag given more than once takes its last value, as urfave/cli reads it.
	`ralph-loop cancel --all --help --help=false`,
	`ralph-loop cancel --all -h -h=false`,
	`ralph-loop uninstall --dry-run --dry-run=false --host claude`,
	`ralph-loop cancel --all --help $X`,
	// Issue 16: spellings the parser did not follow: runners off the wrapper list, commands
	// in git's settings, gdb and make, <(…) as a script, ${!H}, set --, $OLDPWD, the path
	// given to an interpreter's code, a renamed rm, tar -x over the state.
	`prlimit --nofile=1024 ralph-loop cancel --all`,
	`numactl -C0 ralph-loop cancel --all`,
	`dbus-run-session -- ralph-loop cancel --all`,
	`screen -dm ralph-loop cancel --all`,
	`R=ralph-loop; H=R; ${!H} cancel --all`,
	`ralph-loop uninstall --host claude --dry-run "$NOPE"`,
}

// allowCommands are the Bash commands the guard lets through: reads, and work that does not
// touch the loop; the rows of each file of rules, in the test file of the same name.
var allowCommands = slices.Concat(allowCmd, allowWrap, allowCopy, allowFind, allowGit, allowCode, allowRalph)

// allowCmd are the commands let through by the rules of cmd.go (the program sets: the
// readers, rm, the writers) and by the shell's grammar.
var allowCmd = []string{
	// Everyday clean-ups whose name filters match no file of ralph-loop's (issue 25).
	`echo "rm -rf ~/.local/state"`,
	`cat ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`less ~/.local/state/ralph-loop/sessions/s1/events.jsonl`,
	`head -n 20 ~/.local/state/ralph-loop/sessions/s1/events.jsonl`,
	`tail -f ~/.local/state/ralph-loop/sessions/s1/events.jsonl`,
	`tail -n +1 ~/.local/state/ralph-loop/sessions/*/events.jsonl`,
	`ls -la ~/.local/state/ralph-loop/sessions`,
	`ls ~`,
	`ls /`,
	`ls ~/.local/st*/ralph*`,
	`ls ~/.local/state/ralph-loop | wc -l`,
	`du -sh ~/.local/state/ralph-loop`,
	`du -sh ~`,
	`tree ~/.local/state`,
	`cd ~/.local/state/ralph-loop`,
	`cd ~/.local/state/ralph-loop && ls -la`,
	`cd ~/.local/state/ralph-loop && cat sessions/*/loop.json`,
	`cd ~ && ls`,
	`cd / && pwd`,
	`grep -r DONE ~/.local/state/ralph-loop | head`,
	`grep -c cancel ~/.local/state/ralph-loop/sessions/s1/events.jsonl > /tmp/n`,
	`rg status ~/.local/state`,
	`jq . ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`jq -r .status ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`wc -l ~/.local/state/ralph-loop/sessions/s1/events.jsonl`,
	`stat ~/.local/state/ralph-loop`,
	`file ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`diff ~/.local/state/ralph-loop/sessions/s1/loop.json /tmp/x`,
	`diff <(jq -S . ~/.local/state/ralph-loop/sessions/s1/loop.json) /tmp/x.json`,
	`md5sum ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`cat ~/.local/state/*/sessions/*/loop.json`,
	`view ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`test -d ~/.local/state/ralph-loop && echo yes`,
	`[ -f ~/.local/state/ralph-loop/sessions/s1/loop.json ] && echo present`,
	`realpath ~/.local/state/ralph-loop`,
	`readlink -f ~/.local/state`,
	`mkdir -p ~/.local/state`,
	`rm -rf ./build`,
	`rm -rf ~/.cache/go-build`,
	`rm -rf ~/.local/share/foo`,
	`rm -rf ~/.local/state/other-app`,
	`rm -rf ~/.local/state/ralph-loop-other`,
	`rm -rf ~/.local/state/ralph-loopx`,
	`rm -rf /tmp/x`,
	`rm -rf node_modules dist`,
	`rm -rf "$TMPDIR/build"`,
	`rm -rf "$(mktemp -d)"`,
	`rm -rf ~/project/build`,
	`cd /tmp && rm -rf build`,
	`cd ~/project && rm -rf build`,
	`echo hi > /tmp/x`,
	`echo hi > x.txt`,
	`cat foo | tee out.log`,
	`touch ~/.bashrc`,
	`echo $HOME`,
	`echo $XDG_STATE_HOME`,
	`echo $CLAUDE_CODE_SESSION_ID`,
	`sleep 1; ls`,
	`npm test`,
	// Found by trying the rewrite for false alarms.
	`echo ~/.local/state/ralph-loop`,
	`ls -la ~/.local/state/ralph-loop/sessions/*/`,
	`jq -s . ~/.local/state/ralph-loop/sessions/s1/events.jsonl > /tmp/all.json`,
	`rm -rf ~/.local/share/Trash/*`,
	`rm ~/.bash_history`,
	`mkdir -p /tmp/x && cd /tmp/x && rm -rf *`,
	`cd ~; ls -la; cd ~/project; rm -rf build`,
	`ps -p $PPID`,
	`rm -rf $'\x7e'/.local/state`,
	`ls ~/.local/state/ralph-loop > ~/project/list.txt`,
	`for f in ~/.local/state/ralph-loop/sessions/*/loop.json; do jq .status "$f"; done`,
	`vim -R ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`export PATH=$HOME/.local/bin:$PATH`,
	`cd ~/.local/state && cd ~/project && rm -rf *`,
	`(cd ~ && ls -la); rm -rf build`,
	// Everyday work in a project, none of which may be denied.
	`rm -rf dist build *.egg-info`,
	`rm -rf "$HOME/.cache/ms-playwright"`,
	`echo "export FOO=1" >> ~/.bashrc`,
	`cd .. && ls`,
	`touch ~/.local/state/other-app.log`,
	`gh run cancel 123`,
	`kubectl delete pod x --all`,
	`a=(ls -la ~/.local/state); "${a[@]}"`,
	// Issue 16: false denies of ordinary work.
	// A glob matches no dot name, as in bash: * in the home leaves ~/.local alone.
	`cd ~ && rm -rf *`,
}

// allowWrap are the commands let through by the rules of wrap.go (wrappers and the
// shell's builtins).
var allowWrap = []string{
	// Everyday clean-ups whose name filters match no file of ralph-loop's (issue 25).
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

// allowCopy are the commands let through by the rules of copy.go (copies, archives and sync).
var allowCopy = []string{
	// Everyday clean-ups whose name filters match no file of ralph-loop's (issue 25).
	`chown -R $USER ~`,
	`chown -R "$USER":staff ~`,
	`chown -R $(whoami) ~/.local`,
	`ralph-loop install --host claude --dry-run`,
	`cd ~/.local/state/ralph-loop && cp sessions/s1/loop.json /tmp/`,
	`cp ~/.local/state/ralph-loop/sessions/s1/loop.json /tmp/x`,
	`cp -r ~/.local/state/ralph-loop /tmp/backup`,
	`sort ~/.local/state/ralph-loop/sessions/s1/events.jsonl | uniq -c`,
	`tar -czf /tmp/state.tgz -C ~/.local/state ralph-loop`,
	`tar -tzf backup.tgz`,
	`tar -xzf /tmp/x.tgz -C /tmp/out`,
	`rsync -a ~/.local/state/ralph-loop/ /tmp/backup/`,
	`rsync -a dist/ /tmp/dist/`,
	`ln -sf ~/.local/state/ralph-loop /tmp/state-link`,
	`mv a.go b.go`,
	`mv ~/Downloads/x.tar.gz /tmp/`,
	`cp notes.txt ~/`,
	`cp notes.txt ~/.local/`,
	`cp -r dist ~/.local/share/app`,
	`chmod +x script.sh`,
	`chmod 755 ~/bin/tool`,
	// Found by trying the rewrite for false alarms.
	`cp -a ~/.local/state/ralph-loop /tmp/ralph-loop.bak`,
	`tar -xzf go.tgz -C ~/.local`,
	// Everyday work in a project, none of which may be denied.
	`mkdir -p ~/.config/app && cp config.yml ~/.config/app/`,
	`for f in *.txt; do mv "$f" "${f%.txt}.md"; done`,
	`du -sh ~/* 2>/dev/null | sort -h | tail`,
	`ln -sf $(pwd)/bin/tool ~/.local/bin/tool`,
	`rsync -av --delete ./dist/ ~/www/`,
	// Issue 16: false denies of ordinary work.
	// A glob matches no dot name, as in bash: * in the home leaves ~/.local alone.
	`chmod 700 ~`,
	`chmod go-rwx ~`,
	`chmod 755 ~/.local`,
}

// allowFind are the commands let through by the rules of find.go (find, xargs and parallel).
var allowFind = []string{
	// Everyday clean-ups whose name filters match no file of ralph-loop's (issue 25).
	`find ~ -name '.DS_Store' -delete`,
	`find ~ -name '*.pyc' -delete`,
	`find ~ -type d -name __pycache__ -empty -delete`,
	`find ~ \( -name '*.pyc' -o -name __pycache__ \) -delete`,
	`find ~ -iname .ds_store -type f -delete`,
	`find . ~ -name '*.pyc' -print -delete`,
	`find ~/.local/state/ralph-loop -name '*.json'`,
	`find ~ -name loop.json`,
	`find / -name '*.go' -newer x`,
	`find ~/.local/state -name '*.json' -exec cat {} \;`,
	`find ~/.local/state -type f -exec grep -l DONE {} +`,
	`find ~/.local/state/ralph-loop | xargs ls -l`,
	`find ~ -name loop.json | xargs cat`,
	`find . -name '*.o' -delete`,
	`find . -name '*.pyc' -exec rm -f {} +`,
	`find . -type f -name '*.tmp' | xargs rm -f`,
	`xargs -n1 echo < list.txt`,
	// Found by trying the rewrite for false alarms.
	`find ~/.cache -delete`,
	`find . -maxdepth 1 -name '*.log' -delete`,
	`grep -rl foo . | xargs sed -i 's/foo/bar/'`,
	// Everyday work in a project, none of which may be denied.
	`find . -type d -name __pycache__ -exec rm -rf {} +`,
	`find ~/.local/share -name '*.log' -delete`,
	// Issue 16: false denies of ordinary work.
	// A glob matches no dot name, as in bash: * in the home leaves ~/.local alone.
	`find ~ -maxdepth 1 -name '*.tmp' -delete`,
	`find ~/.local -maxdepth 1 -name '*.log' -delete`,
}

// allowGit are the commands let through by the rules of git.go.
var allowGit = []string{
	// Everyday clean-ups whose name filters match no file of ralph-loop's (issue 25).
	`git commit -m 'docs: ralph-loop cancel --all ends every loop'`,
	`git clean -fdx`,
	`git clean -n -x -d`,
	`cd ~ && git clean -n -x -d`,
	`git stash -u`,
	`git status && git diff`,
	`git -C ~ status`,
	`git log --oneline | head`,
	// Found by trying the rewrite for false alarms.
	`git add -A && git commit -m "fix: ralph-loop cancel handling; rm -rf ~/.local/state docs"`,
	`cd ~/.local/state/ralph-loop && git status`,
	`git checkout -- . && git clean -fd`,
	`cd ~/scratch && git clean -fdx`,
	// Everyday work in a project, none of which may be denied.
	`git clean -xfd -e .env`,
	`git stash -u && git pull && git stash pop`,
}

// allowCode are the commands let through by the rules of code.go (interpreters and one-liners).
var allowCode = []string{
	// Everyday clean-ups whose name filters match no file of ralph-loop's (issue 25).
	`sed -n '1,20p' ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`sed 's/a/b/' ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`sed -n 1p ~/.local/state/ralph-loop/sessions/s1/loop.json > /tmp/first.json`,
	`awk '{print $1}' ~/.local/state/ralph-loop/sessions/s1/events.jsonl`,
	`awk -F, 'NR<5' ~/.local/state/ralph-loop/sessions/s1/events.jsonl | sort`,
	`awk '{print > "out.txt"}' input.txt`,
	`python3 -m json.tool ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`python3 -c 'import json,os; print(json.load(open(os.path.expanduser("~/.local/state/ralph-loop/sessions/s1/loop.json"))))'`,
	`perl -ne 'print if /DONE/' ~/.local/state/ralph-loop/sessions/s1/events.jsonl`,
	`sed -i 's/a/b/' main.go`,
	`perl -pi -e 's/a/b/' main.go`,
	`python3 -c 'print(1)'`,
	`node -e 'console.log(1)'`,
	// Found by trying the rewrite for false alarms.
	`cat ~/.local/state/ralph-loop/sessions/s1/loop.json | python3 -m json.tool`,
	"python3 - <<'EOF'\nimport json\nprint(json.load(open('/tmp/x.json')))\nEOF",
	// Everyday work in a project, none of which may be denied.
	`python3 -c "import shutil; shutil.rmtree('build')"`,
	`node -e "require('fs').rmSync('dist', {recursive: true, force: true})"`,
	// Issue 16: false denies of ordinary work.
	// A glob matches no dot name, as in bash: * in the home leaves ~/.local alone.
	"sed -n '/ralph-loop/w found.txt' README.md",
	`awk '/ralph-loop/ {print > "matches.txt"}' README.md`,
	`python3 -c "import json,os; p=os.path.expanduser('~/.local/state/ralph-loop/sessions/s1/loop.json'); print(open(p).read().replace('\n',' '))"`,
	`python3 -c "import subprocess; print(subprocess.run(['ralph-loop','status'],capture_output=True,text=True).stdout)"`,
	`python3 -c "import os; os.system('ralph-loop status --json')"`,
	`python3 -c "print('ralph-loop status'.replace('status','log'))"`,
}

// allowRalph are the commands let through by the rules of ralph.go (ralph-loop itself,
// the host's CLI, kill).
var allowRalph = []string{
	// Everyday clean-ups whose name filters match no file of ralph-loop's (issue 25).
	`ralph-loop status`,
	`ralph-loop status --json`,
	`ralph-loop status --session s1`,
	`ralph-loop log`,
	`ralph-loop log --session s1`,
	`ralph-loop --version`,
	`ralph-loop version`,
	`ralph-loop --help`,
	`ralph-loop help`,
	`ralph-loop help cancel`,
	`ralph-loop start --help`,
	`ralph-loop cancel --help`,
	`ralph-loop cancel -h`,
	`ralph-loop gc --older-than 30d --dry-run`,
	`XDG_STATE_HOME=/tmp/dev ./bin/ralph-loop hook --host claude < testdata/claude/Stop.json`,
	`XDG_STATE_HOME=$(mktemp -d) ./bin/ralph-loop hook --host claude < x.json`,
	`export XDG_STATE_HOME=/tmp/dev; ./bin/ralph-loop cancel --all`,
	`T=$(mktemp -d); XDG_STATE_HOME=$T ralph-loop cancel --all`,
	`go test ./...`,
	`go test -run TestGuard ./hook/`,
	`go test ./cmd/ralph-loop/ -run TestScript/hook-guard`,
	`go build -o bin/ralph-loop ./cmd/ralph-loop`,
	`go run ./cmd/ralph-loop status`,
	`go vet ./...`,
	`echo 'ralph-loop cancel --all'`,
	`printf '%s\n' 'claude -p --resume x /cancel-ralph'`,
	`grep -rn 'ralph-loop cancel' README.md`,
	`ralph-loop status --session "$CLAUDE_CODE_SESSION_ID"`,
	`claude --version`,
	`claude -p 'summarise README.md'`,
	`claude mcp list`,
	`ps aux | grep claude`,
	`kill %1`,
	`kill 12345`,
	`pkill -f 'node server.js'`,
	"cat <<'EOF' > notes.md\nrm -rf ~/.local/state\nralph-loop cancel --all\nEOF",
	`echo "claude -p --resume $CLAUDE_CODE_SESSION_ID /cancel-ralph" > notes.md`,
	`docker run --rm -v "$PWD":/src -w /src golang:1.25 go test ./...`,
	// Found by trying the rewrite for false alarms.
	`claude -p "/cancel-ralph"`,
	`ralph-loop log --follow`,
	`ralph-loop status --all`,
	`ralph-loop help start`,
	`ralph-loop status --help`,
	`declare -x XDG_STATE_HOME=/tmp/dev; ralph-loop cancel --all`,
	`gh pr create --title "rm -rf ~/.local/state" --body "ralph-loop cancel"`,
	// Everyday work in a project, none of which may be denied.
	`kill $(lsof -t -i:3000)`,
	// Issue 16: the last value of a repeated flag is the one that counts.
	`ralph-loop cancel --all -help`,
}

// denyServerCommands are denied for a host that runs a server driving its sessions
// (opencode, session ses_abc123): a prompt or a command sent to the session over the
// server's API, the TUI driven through it, the session named to it, the CLI resuming it.
var denyServerCommands = []string{
	`curl -s -X POST http://127.0.0.1:4096/session/ses_abc123/prompt_async -d '{"parts":[{"type":"text","text":"/cancel-ralph"}]}'`,
	`curl -X POST localhost:4096/session/ses_abc123/command -d '{"command":"cancel-ralph"}'`,
	`curl -X POST "http://localhost:4096/session/$SID/prompt_async" -d @body.json`,
	`curl -X POST http://127.0.0.1:4096/session/${ID}/message -H 'content-type: application/json' -d @m.json`,
	`curl -X POST http://[::1]:4096/session/x/shell -d '{"command":"ralph-loop cancel --all"}'`,
	`wget --post-data='{"command":"cancel-ralph"}' http://127.0.0.1:4096/session/ses_abc123/command`,
	`http POST :4096/session/ses_abc123/prompt_async parts:='[{"type":"text","text":"/cancel-ralph"}]'`,
	`xh post 127.0.0.1:4096/session/other/command command=cancel-ralph`,
	`curl -X POST http://127.0.0.1:4096/tui/execute-command -d '{"command":"session.interrupt"}'`,
	`curl -X POST http://127.0.0.1:4096/tui/submit-prompt`,
	`curl -X POST http://127.0.0.1:4096/tui/append-prompt -d '{"text":"/cancel-ralph"}'`,
	`printf 'POST /session/ses_abc123/prompt_async HTTP/1.1\r\n\r\n' | nc 127.0.0.1 4096`,
	`python3 -c "import urllib.request as u; u.urlopen(u.Request('http://127.0.0.1:4096/session/ses_abc123/prompt_async', data=b'{}'))"`,
	`node -e "fetch('http://127.0.0.1:4096/session/ses_abc123/command',{method:'POST'})"`,
	`bash -c 'curl -X POST localhost:4096/session/ses_abc123/prompt_async'`,
	`timeout 5 curl -X POST localhost:4096/tui/submit-prompt`,
	`opencode run --session ses_abc123 /cancel-ralph`,
	`opencode run -s ses_abc123 /cancel-ralph`,
	`opencode run --session=ses_abc123 "/cancel-ralph"`,
	`opencode run --continue /cancel-ralph`,
	`opencode run -c /cancel-ralph`,
	`opencode run --attach http://127.0.0.1:4096 --continue /cancel-ralph`,
	`pkill opencode`,
	// Issue 16: routes that abort or delete a session, a session id fetched at run time,
	// the address built at run time, the port the host's facts give.
	`curl -X DELETE http://127.0.0.1:4096/session/ses_other`,
	`curl -X DELETE localhost:4096/session/$(curl -s localhost:4096/session | jq -r '.[0].id')`,
	`curl -XDELETE "http://localhost:4096/session/$SID"`,
	`curl -s --request DELETE "http://[::1]:4096/session/${ID}?directory=/x"`,
	`curl -X POST http://127.0.0.1:4096/session/ses_other/abort`,
	`curl -s -X POST localhost:4096/session/$(curl -s localhost:4096/session | jq -r '.[0].id')/abort`,
	`http DELETE :4096/session/ses_other`,
	`wget --method=DELETE -qO- http://127.0.0.1:4096/session/ses_other`,
	`curl -X POST "$OPENCODE_URL/session/x/abort"`,
	`curl -X POST http://127.0.0.1:41234/session/x/abort`,
	`curl -X POST http://localhost:41234/session/x/revert`,
	`http POST :4096/session/x/summarize`,
	`python3 -c "import urllib.request as u; u.urlopen(u.Request('http://127.0.0.1:4096/session/'+sid, method='DELETE'))"`,
	`node -e "fetch('http://localhost:4096/session/'+id+'/abort',{method:'POST'})"`,
	`printf 'DELETE /session/ses_other HTTP/1.1\r\nHost: x\r\n\r\n' | nc localhost 4096`,
	`for s in $(curl -s localhost:4096/session | jq -r '.[].id'); do curl -X DELETE localhost:4096/session/$s; done`,
}

// allowServerCommands are let through for such a host: reading the server, other servers'
// paths, and everything of allowCommands.
var allowServerCommands = []string{
	`curl -s http://127.0.0.1:4096/session`,
	`curl -s http://127.0.0.1:4096/config`,
	`curl -s http://127.0.0.1:8080/api/sessions/42`,
	`curl -s -X POST http://127.0.0.1:3000/session -d '{}'`,
	`curl -s https://example.com/docs/session/prompt`,
	`grep -rn "prompt_async" src/`,
	`go test ./session/...`,
	`opencode --version`,
	`opencode models`,
	`ls ~/.config/opencode`,
	// Issue 16: the server rule is for a network client's URL, never for file names, and
	// only for the host's own server's port.
	`cat internal/tui/model.go`,
	`go build ./cmd/tui/app`,
	`ls ./session/x/message`,
	`cat src/routes/session/abc/command.ts`,
	`vim web/tui/app.go`,
	`curl localhost:3000/session/abc/message`,
	`curl -X POST http://127.0.0.1:8080/session/abc/command`,
	`grep -rn "/tui/submit-prompt" docs/`,
	`echo ses_abc123`,
	`curl -s http://127.0.0.1:4096/session/ses_abc123`,
	`curl -s localhost:4096/session/ses_abc123/message`,
	`curl -s http://127.0.0.1:4096/session/ses_abc123/todo`,
}

// stillDenied are denied by the guard before issue 16 and after: the rules the false
// denies loosened (a string's replace, ralph-loop named in a pattern or a read-only command,
// find's depth, chmod's mode) still deny these.
var stillDenied = []string{
	// A glob matches dot names once the command sets dotglob or GLOBIGNORE.
	`shopt -s dotglob; rm -rf ~/*`,
	`GLOBIGNORE=x; cd ~ && rm -rf *`,
	`python3 -c "import os; c='ralph-loop '+'cancel'; os.system(c+' --all')"`,
	`node -e "require('child_process').execFileSync('ralph-loop',['cancel','--all'])"`,
	`python3 -c "from pathlib import Path; Path('/tmp/a').replace(Path.home()/'.local/state/ralph-loop')"`,
	"sed -n 'w ~/.local/state/ralph-loop/sessions/s1/loop.json' /tmp/x",
	`find ~ -maxdepth 4 -name '*.json' -delete`,
	`chmod 600 ~/.local`,
	`chmod u-x ~`,
}

// stillAllowed are allowed by the guard before issue 16 and after: the rules added for the
// issue's spellings (set --, cd -, git -c, make -f -, <(…), renamed programs, interpreters'
// arguments, unknown runners, tar -x members, gdb -ex) let these through.
var stillAllowed = []string{
	`set -- a b; echo "$1"`,
	`set -e; rm -rf build`,
	`cd /tmp && cd - && rm -rf build`,
	`git -c user.name=x -c core.pager=cat log`,
	"make -f - <<'EOF'\nall:\n\techo hi\nEOF",
	`bash <(echo echo hi)`,
	`cp /bin/ls /tmp/myls; /tmp/myls ~/.local/state`,
	`python3 -c 'import sys; print(open(sys.argv[1]).read())' ~/.local/state/ralph-loop/sessions/s1/loop.json`,
	`prlimit --nofile=1024 go test ./...`,
	`tmux new-session -d 'npm run dev'`,
	`tar -xf x.tar -C /tmp/out docs/`,
	`docker run --rm alpine rm -rf /tmp/x`,
	`gdb -batch -ex run -ex bt ./prog`,
}
