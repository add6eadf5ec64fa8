package e2e

// DemoPrompt and DemoScript are the session "make demo" plays (and the npm package's test,
// with only what npm installed): the agent tries to stop without the promise, then claims the
// promise without doing anything, then does the work and keeps its promise.
const DemoPrompt = `/ralph-loop "Create hello.txt containing hello, world" --max-iterations 5`

// DemoScript is the scripted model of DemoPrompt's session.
var DemoScript = Script{Turns: []Turn{
	Text("hello.txt is surely there already. I'm done."),
	Text("<promise>DONE</promise>"),
	Tool("Fine: let me really do it.", "Write", map[string]any{"file_path": "hello.txt", "content": "hello, world\n"}),
	Bash("Let me check it.", "cat hello.txt"),
	Text(`hello.txt holds "hello, world". <promise>DONE</promise>`),
}}
