package guard

// denyCopy are the commands denied by the rules of copy.go (copies, archives and sync).
var denyCopy = []string{
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
	`chown -R daemon:daemon ~`,
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

// allowCopy are the commands let through by the rules of copy.go (copies, archives and sync).
var allowCopy = []string{
	// Everyday clean-ups whose name filters match no file of ralph-loop's (issue 25).
	`chown -R $USER ~`,
	`chown -R "$USER":staff ~`,
	`chown -R $(whoami) ~/.local`,
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
