# shellcheck shell=sh
# shellcheck disable=SC2154 # e, b and s come from the command line, the rest from install's part below
#
# ralph-loop's hook script: what a host's hook answers when it cannot run ralph-loop.
#
# `ralph-loop install` writes one copy of this file for each host, as
# $XDG_DATA_HOME/ralph-loop/hooks/<host>.sh (~/.local/share/ralph-loop/hooks/claude.sh; on
# macOS ~/Library/Application Support/ralph-loop/hooks/claude.sh), with the part marked
# "written by install" filled in for that host; the Claude Code plugin ships it as
# hooks/ralph-loop.sh. Its source is hook/install/hook.sh in ralph-loop's repository.
#
# Each hook command line install writes ends with "# ralph-loop hook" and, for every event
# but a tool call's, runs ralph-loop itself first:
#
#   e=Stop b=/path/to/ralph-loop s=/path/to/this/file; [ -f "$b" ] && [ -x "$b" ] &&
#   exec "$b" hook --host claude; [ -f "$s" ] && . "$s"; exit 0 # ralph-loop hook
#
# (at a shared scope, a project's or the plugin's: b= and "exec ralph-loop" when it is on
# PATH). So this file is read, with ".", in the shell of the command line, only when
# ralph-loop cannot run: removed, moved, made unrunnable, or never installed on this machine.
# A tool event's line reads it first instead, for the fast path below, and then runs
# ralph-loop. It sets:
#
#   e  the hook event, by the host's name for it (Stop, PreToolUse, ...)
#   b  the absolute path of the ralph-loop the line runs; empty for the one on PATH
#   s  this file
#
# Nothing here starts a process on the fast path. It reads, and never writes, ralph-loop's
# files, but for the two it leaves for ralph-loop in the session's state directory (see
# state/fallback.go): fallback-stop.N, one for each stop it blocked, and cancel-typed, the
# user's /cancel-ralph. It lives in ralph-loop's data directory, where the guard and install
# --sandbox's deny rules keep the agent from changing it while a loop is active, as they do
# the settings file that names it.

# zsh, when it is the shell of the command line, reads this file as sh would.
[ -z "${ZSH_VERSION-}" ] || emulate sh

#@facts (written by install: the host's session field, its events and their kinds)

# The state directory (r), as ralph-loop finds it: $XDG_STATE_HOME/ralph-loop, else
# ~/.local/state/ralph-loop, else (macOS) ~/Library/Application Support/ralph-loop.
case $XDG_STATE_HOME in
/*) r=$XDG_STATE_HOME/ralph-loop ;;
*)
	r=$HOME/.local/state/ralph-loop
	[ -d "$r" ] || r="$HOME/Library/Application Support/ralph-loop"
	;;
esac

# The fast path, for a tool event (a tool call about to run, or done). While no session on
# this machine has an active loop (no marker in active/), ralph-loop has nothing to do: the
# input is read away by cat, which replaces the shell (exec: no process is started), and
# the command line ends. Otherwise the command line goes on and runs ralph-loop. A marker
# removed by the agent only skips the tool hooks until the loop's next stop, which always
# runs ralph-loop (and blocks).
if [ "$kind" = tool ]; then
	for f in "$r"/active/* "$r"/active/.[!.]* "$r"/active/..?*; do
		[ -e "$f" ] && return 0
	done
	exec cat >/dev/null
fi

# Any other event, and ralph-loop cannot run. The session (sid) is the host's session field
# of the event's input, if it is a valid session id.
in=$(cat)
sid=
case $in in
*"\"$key\""*)
	sid=${in#*"\"$key\""}
	sid=${sid#*\"}
	sid=${sid%%\"*}
	;;
esac
case $sid in
. | .. | *[!A-Za-z0-9._-]*) sid= ;;
esac

# ralph-loop's data directory (k), with its copies of the loops, found as the state
# directory is.
case $XDG_DATA_HOME in
/*) k=$XDG_DATA_HOME/ralph-loop ;;
*)
	k=$HOME/.local/share/ralph-loop
	[ -d "$k" ] || k="$HOME/Library/Application Support/ralph-loop"
	;;
esac

# Whether the session's loop is active (a): its loop file, or its copy in the data
# directory, says so (lf is that file), or its marker is there. These lines of a loop file
# are read as ralph-loop writes them, one field a line (state.ScriptLines; a test keeps both
# in step).
d=$r/sessions/$sid
lf=
a=
if [ -n "$sid" ]; then
	for lf in "$d/loop.json" "$k"/loops/*/"$sid.json"; do
		grep -qs '^  "status": "ACTIVE",$' "$lf" && break
		lf=
	done
	if [ -n "$lf" ] || [ -e "$r/active/$sid" ]; then
		a=1
	fi
fi

# What the texts call ralph-loop (p): its path, or ralph-loop on PATH; and that as the
# inside of a JSON string (pj), for the hosts that answer in JSON.
p=${b:-$prog}
pj=
t=$p
while [ -n "$t" ]; do
	c=${t%"${t#?}"}
	t=${t#?}
	case $c in
	\\ | \") pj=$pj\\$c ;;
	[[:cntrl:]]) pj="$pj?" ;;
	*) pj=$pj$c ;;
	esac
done

#@answers (written by install: answer WHAT prints the host's reply to this event and exits)

# A file for ralph-loop in the session's state directory, made only if not there yet.
leave() {
	(
		umask 077
		mkdir -p "$d" && set -C && : >"$d/$1"
	) 2>/dev/null
}

case $kind in
stop)
	# A stop of an active loop is blocked, saying why, as many times as the loop has
	# iterations left (max_iterations - iteration, less the stops blocked so far here), then
	# let through with a notice. The user's /cancel-ralph, recorded, lets it through.
	if [ -n "$a" ]; then
		[ -e "$d/cancel-typed" ] && exit 0
		m=
		i=
		if [ -n "$lf" ]; then
			m=$(sed -n 's/^  "max_iterations": \([0-9]*\),$/\1/p' "$lf")
			i=$(sed -n 's/^  "iteration": \([0-9]*\),$/\1/p' "$lf")
		fi
		case $m/$i in
		*[!0-9/]* | /* | */)
			m=$max
			i=0
			;;
		esac
		set -- "$d"/fallback-stop.*
		n=$#
		[ -e "$1" ] || n=0
		if [ $((i + n)) -lt "$m" ]; then
			leave "fallback-stop.$n"
			answer block
		fi
		answer limit
	fi
	;;
prompt)
	# The user's /cancel-ralph, in any host's form: typed (Codex's $cancel-ralph, the Claude
	# Code plugin's /ralph-loop:cancel-ralph), as a command file's tag (Gemini CLI, Cursor,
	# Factory Droid) or as Copilot CLI's skill. It is recorded for ralph-loop, which takes
	# it as the user's cancel once it runs again (hook/fallback.go), and answered; the
	# session's stops are let through from then on.
	if [ -n "$a" ]; then
		# shellcheck disable=SC2016 # $cancel-ralph is Codex's, as typed
		case $in in
		*'prompt":"/cancel-ralph'* | *'prompt": "/cancel-ralph'* | \
			*'prompt":"$cancel-ralph'* | *'prompt": "$cancel-ralph'* | \
			*'prompt":"/ralph-loop:cancel-ralph'* | *'prompt": "/ralph-loop:cancel-ralph'* | \
			*'[ralph-loop command /cancel-ralph]'* | *'invoked the \"/cancel-ralph\" skill'*)
			leave cancel-typed
			answer cancelled
			;;
		esac
		[ -e "$d/cancel-typed" ] && exit 0
		answer notice
	fi
	;;
config)
	# A settings change, which could unhook the loop, is refused.
	if [ -n "$a" ] && ! [ -e "$d/cancel-typed" ]; then
		answer config
	fi
	;;
*)
	if [ -n "$a" ] && ! [ -e "$d/cancel-typed" ]; then
		answer notice
	fi
	;;
esac

# No active loop in this session: nothing to do, but telling the user, at a session's start
# or a prompt that names ralph, that ralph-loop is gone (b) or not on this machine.
if [ -n "$b" ]; then w=gone; else w=absent; fi
case $notice in
always) answer "$w" ;;
ralph)
	case $in in
	*ralph*) answer "$w" ;;
	esac
	;;
esac
exit 0
