package guard

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

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

// docAllowed are the rows of docs/guard.md's "Allowed" list: each code span of the list, and
// the commands that show it, all judged in the table (TestGuardTable, with the keep and the
// binary the hooks run in ~/.local/bin kept). A span that only names a part of a row (an
// option, a variable) has the rows it is part of. TestGuardDocAllowed checks that every
// span of the list is here.
var docAllowed = map[string][]string{
	// Reading the state.
	"cat":                         {`cat ~/.local/state/ralph-loop/sessions/s1/loop.json`},
	"less":                        {`less ~/.local/state/ralph-loop/sessions/s1/events.jsonl`},
	"head":                        {`head -5 ~/.local/state/ralph-loop/sessions/s1/events.jsonl`},
	"tail -f":                     {`tail -f ~/.local/state/ralph-loop/sessions/s1/events.jsonl`},
	"ls":                          {`ls -la ~/.local/state/ralph-loop`},
	"du":                          {`du -sh ~/.local/state/ralph-loop`},
	"tree":                        {`tree ~/.local/state`},
	"stat":                        {`stat ~/.local/state/ralph-loop/sessions/s1/loop.json`},
	"wc":                          {`wc -l ~/.local/state/ralph-loop/sessions/s1/events.jsonl`},
	"grep":                        {`grep -r ACTIVE ~/.local/state/ralph-loop`},
	"rg":                          {`rg status ~/.local/state/ralph-loop`},
	"jq":                          {`jq .status ~/.local/state/ralph-loop/sessions/s1/loop.json`},
	"diff":                        {`diff ~/.local/state/ralph-loop/sessions/s1/loop.json /tmp/loop.json`},
	"md5sum":                      {`md5sum ~/.local/state/ralph-loop/sessions/s1/loop.json`},
	"sed -n":                      {`sed -n 1,5p ~/.local/state/ralph-loop/sessions/s1/loop.json`},
	"sed 's/…/…/' FILE":           {`sed 's/ACTIVE/X/' ~/.local/state/ralph-loop/sessions/s1/loop.json`},
	"awk":                         {`awk '{print $1}' ~/.local/state/ralph-loop/sessions/s1/events.jsonl`},
	"find":                        {`find ~/.local/state/ralph-loop -name '*.json'`},
	"-delete":                     {`find ~ -name '.DS_Store' -delete`},
	"-exec":                       {`find ~/.local/state/ralph-loop -name '*.json' -exec cat {} \;`},
	"find … -exec cat {} \\;":     {`find ~/.local/state/ralph-loop -name '*.json' -exec cat {} \;`},
	"cp <state> /tmp/x":           {`cp ~/.local/state/ralph-loop/sessions/s1/loop.json /tmp/x`},
	"rsync <state>/ /tmp/backup/": {`rsync -a ~/.local/state/ralph-loop/ /tmp/backup/`},
	"tar -c … -C ~/.local/state ralph-loop": {`tar -czf /tmp/state.tgz -C ~/.local/state ralph-loop`},
	"python3 -m json.tool FILE":             {`python3 -m json.tool ~/.local/state/ralph-loop/sessions/s1/loop.json`},
	"python3 -c":                            {`python3 -c "import json; print(json.load(open('$HOME/.local/state/ralph-loop/sessions/s1/loop.json')))"`},
	".replace(a, b)":                        {`python3 -c "print(open('$HOME/.local/state/ralph-loop/sessions/s1/loop.json').read().replace('a', 'b'))"`},
	"view":                                  {`view ~/.local/state/ralph-loop/sessions/s1/loop.json`},
	"cd":                                    {`cd ~/.local/state/ralph-loop && ls sessions`},
	"sed":                                   {`sed -n '/ralph-loop/p' README.md`},
	"sed -n '/ralph-loop/p' README.md":      {`sed -n '/ralph-loop/p' README.md`, `cat ~/.local/state/ralph-loop/sessions/s1/loop.json > /tmp/loop.json`},
	"subprocess.run(['ralph-loop', 'status'])": {`python3 -c "import subprocess; subprocess.run(['ralph-loop', 'status'])"`},
	// ralph-loop's commands that only read.
	"ralph-loop status":       {`ralph-loop status`},
	"log":                     {`ralph-loop log`},
	"--follow":                {`ralph-loop log --follow`},
	"gc":                      {`ralph-loop gc`},
	"version":                 {`ralph-loop version`},
	"help":                    {`ralph-loop help`},
	"--help":                  {`ralph-loop cancel --help`},
	"-h":                      {`ralph-loop cancel -h`},
	"--":                      {`ralph-loop start --help -- "a task"`},
	"ralph-loop start --help": {`ralph-loop start --help`},
	"install":                 {`ralph-loop install --dry-run`},
	"uninstall --dry-run":     {`ralph-loop uninstall --dry-run`},
	// Developing ralph-loop under a loop.
	"XDG_STATE_HOME=/tmp/dev ./bin/ralph-loop hook …": {`XDG_STATE_HOME=/tmp/dev ./bin/ralph-loop hook --host claude < event.json`},
	"env XDG_STATE_HOME=…":                            {`env XDG_STATE_HOME=/tmp/dev ralph-loop cancel --all`},
	"XDG_STATE_HOME=$(mktemp -d) …":                   {`XDG_STATE_HOME=$(mktemp -d) ralph-loop start "a task"`},
	"T=$(mktemp -d); XDG_STATE_HOME=$T …":             {`T=$(mktemp -d); XDG_STATE_HOME=$T ralph-loop cancel --all`},
	"XDG_STATE_HOME":                                  {`export XDG_STATE_HOME=/tmp/dev; ralph-loop cancel --all`},
	"export XDG_STATE_HOME=/tmp/dev; …":               {`export XDG_STATE_HOME=/tmp/dev; ralph-loop cancel --all`},
	"go test":                                         {`go test ./...`},
	"go build":                                        {`go build ./...`},
	"go vet":                                          {`go vet ./...`},
	"make":                                            {`make test`},
	// Clean-ups that cannot reach a file of ralph-loop's.
	"find ~ -name '.DS_Store' -delete":                          {`find ~ -name '.DS_Store' -delete`},
	"find ~ \\( -name '*.pyc' -o -name __pycache__ \\) -delete": {`find ~ \( -name '*.pyc' -o -name __pycache__ \) -delete`},
	"-name":  {`find ~ -name '*.pyc' -delete`},
	"-iname": {`find ~ -iname '.ds_store' -delete`},
	"-o":     {`find ~ \( -name '*.pyc' -o -name __pycache__ \) -delete`},
	"find ~/ -type d -name __pycache__ -exec rm -rf {} +": {`find ~/ -type d -name __pycache__ -exec rm -rf {} +`},
	"find ~/.local/bin -name '*.bak' -delete":             {`find ~/.local/bin -name '*.bak' -delete`},
	"chmod +x ~/.local/bin/*":                             {`chmod +x ~/.local/bin/*`},
	"chown -R $USER ~":                                    {`chown -R $USER ~`},
	"$USER":                                               {`chown -R $USER ~`},
	"$(whoami)":                                           {`chown -R $(whoami) ~`},
	// Everything that names neither.
	"rm -rf ./build":                  {`rm -rf ./build`},
	"rm -rf ~/.cache/go-build":        {`rm -rf ~/.cache/go-build`},
	"rm -rf ~/.local/state/other-app": {`rm -rf ~/.local/state/other-app`},
	"~/.local/state/ralph-loop-other": {`rm -rf ~/.local/state/ralph-loop-other`},
	"cp notes.txt ~/":                 {`cp notes.txt ~/`},
	"mkdir -p ~/.local/state":         {`mkdir -p ~/.local/state`},
	"chmod 755 ~/bin/tool":            {`chmod 755 ~/bin/tool`},
	"git clean -fdx":                  {`git clean -fdx`},
	"find . -name '*.o' -delete":      {`find . -name '*.o' -delete`},
	"claude -p \"…\"":                 {`claude -p "write the tests"`},
	"claude --version":                {`claude --version`},
	"kill 12345":                      {`kill 12345`},
	"echo 'ralph-loop cancel --all'":  {`echo 'ralph-loop cancel --all'`},
}

// docAllowedNoXDG are the rows of the "Allowed" list that hold where XDG_STATE_HOME is
// unset.
var docAllowedNoXDG = map[string][]string{
	"HOME=…": {`HOME=/tmp/dev ralph-loop cancel --all`},
}

// docDenied are the spans of the "Allowed" list that name what it says is denied.
var docDenied = map[string][]string{
	"cancel --all --help --help=false":    {`ralph-loop cancel --all --help --help=false`},
	"uninstall --dry-run --dry-run=false": {`ralph-loop uninstall --dry-run --dry-run=false`},
	"-path":                               {`find ~ -path '*/__pycache__/*' -delete`},
}

// docAllowedSpans are the code spans of docs/guard.md's "Allowed" list.
func docAllowedSpans(t *testing.T) []string {
	data, err := os.ReadFile("../../docs/guard.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "\n### Allowed\n")
	if !ok {
		t.Fatal("docs/guard.md has no Allowed list")
	}
	list, _, _ := strings.Cut(after, "\n## ")
	list = strings.Join(strings.Fields(list), " ") // a span may be cut across lines
	var spans []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(list, -1) {
		spans = append(spans, m[1])
	}
	return spans
}

// TestGuardDocAllowed: every code span of docs/guard.md's "Allowed" list is a row of the
// table (docAllowed, or docDenied for what the list says is denied), judged as the list says
// with the keep and the binary the hooks run kept, under every kind of home.
func TestGuardDocAllowed(t *testing.T) {
	spans := docAllowedSpans(t)
	if len(spans) < 50 {
		t.Fatalf("found %d spans in the Allowed list", len(spans))
	}
	for _, sp := range spans {
		if docAllowed[sp] == nil && docDenied[sp] == nil && docAllowedNoXDG[sp] == nil {
			t.Errorf("docs/guard.md's Allowed list names %q, which no row of docAllowed or docDenied shows", sp)
		}
	}
	for mode, name := range homeNames {
		w := newGuardWorld(t, mode)
		judge := w.tableJudge("")
		for sp, rows := range docAllowed {
			for _, c := range rows {
				if got := judge(w.bash(c)); got != "" {
					t.Errorf("%s: %q (Allowed: %q) denied (%s)", name, c, sp, got)
				}
			}
		}
		for sp, rows := range docAllowedNoXDG {
			for _, c := range rows {
				if got := judge(w.bash(c)); (got == "") != (w.stateHome == "") {
					t.Errorf("%s: %q (Allowed where XDG_STATE_HOME is unset: %q): %q", name, c, sp, got)
				}
			}
		}
		for sp, rows := range docDenied {
			for _, c := range rows {
				if got := judge(w.bash(c)); got == "" {
					t.Errorf("%s: %q (%q) allowed, want denied", name, c, sp)
				}
			}
		}
	}
}
