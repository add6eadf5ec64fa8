package guard

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
