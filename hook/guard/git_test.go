package guard

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

// allowGit are the commands let through by the rules of git.go.
var allowGit = []string{
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
