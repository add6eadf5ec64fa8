package guard

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

// allowCode are the commands let through by the rules of code.go (interpreters and one-liners).
var allowCode = []string{
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
