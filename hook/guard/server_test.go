package guard

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
