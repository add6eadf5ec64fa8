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

// allowCommands are the Bash commands the guard lets through: reads, and work that does not
// touch the loop; the rows of each file of rules, in the test file of the same name.
var allowCommands = slices.Concat(allowCmd, allowWrap, allowCopy, allowFind, allowGit, allowCode, allowRalph)

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
