// Unit tests of plugin.js, run by TestPluginNode (plugin_node_test.go) with node --test:
// PLUGIN is the plugin as install writes it, for the stand-in ralph-loop at $STUB, which
// logs each run (its arguments to $STUB_LOG, its input to $STUB_LOG.in), prints
// $STUB_ACTIVE for --active-dir, marks a session active when it is asked to arm a loop, and
// replies $STUB_REPLY.
import { test } from "node:test"
import assert from "node:assert/strict"
import { chmodSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync, existsSync, rmSync } from "node:fs"
import { join } from "node:path"
import { tmpdir } from "node:os"
import { pathToFileURL } from "node:url"

const { RalphLoop } = await import(pathToFileURL(process.env.PLUGIN).href)

// world is a fresh directory (the plugin keeps per-directory state) with ralph-loop's state
// and keep under it (XDG_STATE_HOME, XDG_DATA_HOME), the stand-in's log, and a client that
// records what the plugin asked of opencode.
const world = async ({ activeDir = true } = {}) => {
  const dir = mkdtempSync(join(tmpdir(), "plugin-test-"))
  const state = join(dir, "state", "ralph-loop")
  const active = join(state, "active")
  mkdirSync(active, { recursive: true })
  process.env.XDG_STATE_HOME = join(dir, "state")
  process.env.XDG_DATA_HOME = join(dir, "data")
  process.env.STUB_LOG = join(dir, "runs.log")
  process.env.STUB_ACTIVE = activeDir ? active : ""
  process.env.STUB_REPLY = ""
  const calls = { prompts: [], toasts: [], logs: [], messages: [] }
  const client = {
    tui: { showToast: async ({ body }) => void calls.toasts.push(body.message) },
    app: { log: async ({ body }) => void calls.logs.push(body.message) },
    session: {
      messages: async () => ({ data: calls.messages }),
      promptAsync: async ({ path, body }) => void calls.prompts.push({ id: path.id, text: body.parts[0].text }),
    },
  }
  const hooks = await RalphLoop({ client, directory: join(dir, "project"), serverUrl: new URL("http://127.0.0.1:4096") })
  mkdirSync(join(dir, "project"))
  const runs = () => (existsSync(process.env.STUB_LOG) ? readFileSync(process.env.STUB_LOG, "utf8").trim().split("\n") : [])
  const inputs = () =>
    existsSync(process.env.STUB_LOG + ".in") ? readFileSync(process.env.STUB_LOG + ".in", "utf8").trim().split("\n").map((l) => JSON.parse(l)) : []
  // tool is a tool call, before and after. The plugin logs a call (after) in the background:
  // opencode does not wait for it, so neither does the hook; tool then waits until the
  // stand-in has run for it, where the session may have a loop.
  const tool = async (sessionID, callID = "c1") => {
    await hooks["tool.execute.before"]({ tool: "bash", sessionID, callID }, { args: { command: "ls" } })
    const before = inputs().length
    await hooks["tool.execute.after"]({ tool: "bash", sessionID, callID }, {})
    if (!activeDir || existsSync(join(active, sessionID))) {
      for (let i = 0; i < 1000 && inputs().length === before; i++) await new Promise((r) => setTimeout(r, 5))
    }
  }
  const status = (sessionID, type) => hooks.event({ event: { type: "session.status", properties: { sessionID, status: { type } } } })
  // turn is a busy, then an idle: a stop.
  const turn = async (sessionID) => {
    await status(sessionID, "busy")
    await status(sessionID, "idle")
  }
  return { dir, state, active, hooks, calls, runs, inputs, tool, turn, done: () => rmSync(dir, { recursive: true, force: true }) }
}

// loopFile is a loop file as ralph-loop writes it (the fields the plugin reads).
const loopFile = (path, fields) => {
  mkdirSync(join(path, ".."), { recursive: true })
  writeFileSync(path, JSON.stringify({ version: 1, session_id: "s", max_iterations: 5, status: "ACTIVE", iteration: 1, ...fields }, null, 2))
}

// without runs f with the stand-in ralph-loop out of the way: moved (or made unrunnable).
const without = async (how, f) => {
  const stub = process.env.STUB
  if (how === "moved") renameSync(stub, stub + ".away")
  else chmodSync(stub, 0o644)
  try {
    await f()
  } finally {
    if (how === "moved") renameSync(stub + ".away", stub)
    else chmodSync(stub, 0o755)
  }
}

test("a session without a loop runs no ralph-loop for its tool calls", async () => {
  const w = await world()
  for (let i = 0; i < 5; i++) await w.tool("ses_a", `c${i}`)
  assert.deepEqual(w.runs(), ["hook --host __HOST__ --active-dir"])
  w.done()
})

test("a session whose loop is active is asked about every tool call, before and after", async () => {
  const w = await world()
  writeFileSync(join(w.active, "ses_b"), "")
  await w.tool("ses_b")
  assert.equal(w.runs().filter((r) => r === "hook --host __HOST__").length, 2)
  assert.deepEqual(w.inputs().map((e) => e.hook), ["tool.execute.before", "tool.execute.after"])
  assert.equal(w.inputs()[0].args.command, "ls")
  w.done()
})

test("a loop armed mid-session: the prompt always asks, and the next tool call is asked about", async () => {
  const w = await world()
  await w.tool("ses_c", "c0")
  const parts = [{ type: "text", text: "/ralph-loop do it" }]
  await w.hooks["chat.message"]({ sessionID: "ses_c" }, { parts }) // the stand-in marks ses_c
  await w.tool("ses_c", "c1")
  assert.deepEqual(w.inputs().map((e) => e.hook), ["chat.message", "tool.execute.before", "tool.execute.after"])
  assert.equal(w.inputs()[1].callID, "c1")
  w.done()
})

test("a stop waits for the tool calls being logged, which opencode does not wait for", async () => {
  const w = await world()
  writeFileSync(join(w.active, "ses_g"), "")
  process.env.STUB_SLOW_AFTER = "0.3"
  try {
    await w.hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_g", callID: "c1" }, { args: { command: "ls" } })
    await w.hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_g", callID: "c1" }, {})
    assert.equal(existsSync(process.env.STUB_LOG + ".seq"), false, "the tool hook waited for the call's log")
    await w.turn("ses_g")
  } finally {
    delete process.env.STUB_SLOW_AFTER
  }
  assert.deepEqual(readFileSync(process.env.STUB_LOG + ".seq", "utf8").trim().split("\n"), ["tool.execute.after", "session.idle"])
  w.done()
})

test("without the directory of the markers (an older ralph-loop), every tool call is asked about", async () => {
  const w = await world({ activeDir: false })
  await w.tool("ses_d")
  assert.deepEqual(w.inputs().map((e) => e.hook), ["tool.execute.before", "tool.execute.after"])
  w.done()
})

test("a session id that cannot name a marker file is asked about", async () => {
  const w = await world()
  writeFileSync(join(w.state, "x"), "") // ../x from the markers' directory
  await w.tool("../x")
  await w.tool("..")
  assert.equal(w.inputs().length, 4)
  w.done()
})

test("a command's template goes to the model unseen, after the command as typed", async () => {
  const w = await world()
  process.env.STUB_REPLY = JSON.stringify({ append: "ralph-loop: a loop is now active" })
  const parts = [{ type: "text", text: "The ralph-loop hook reads this command's arguments" }]
  await w.hooks["command.execute.before"]({ command: "ralph-loop", sessionID: "ses_t", arguments: '"task" --max-iterations 3' }, { parts })
  assert.deepEqual(parts, [
    { type: "text", text: '/ralph-loop "task" --max-iterations 3' },
    { type: "text", text: "The ralph-loop hook reads this command's arguments\n\nralph-loop: a loop is now active", synthetic: true },
  ])
  w.done()
})

test("a denied tool call throws the reason", async () => {
  const w = await world()
  writeFileSync(join(w.active, "ses_e"), "")
  process.env.STUB_REPLY = JSON.stringify({ deny: "ralph-loop: denied: not while the loop runs" })
  await assert.rejects(w.hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_e", callID: "c1" }, { args: {} }), /not while the loop runs/)
  w.done()
})

test("the prompt's context is appended, a refused prompt replaced", async () => {
  const w = await world()
  process.env.STUB_REPLY = JSON.stringify({ append: "ralph-loop: a loop is now active" })
  const parts = [{ type: "text", text: "/ralph-loop task" }, { type: "file", url: "x" }]
  await w.hooks["chat.message"]({ sessionID: "ses_f" }, { parts })
  assert.equal(parts[0].text, "/ralph-loop task\n\nralph-loop: a loop is now active")
  process.env.STUB_REPLY = JSON.stringify({ replace: "tell the user why", notice: "refused" })
  const refused = [{ type: "text", text: "/ralph-loop --bad" }, { type: "text", text: "more" }]
  await w.hooks["chat.message"]({ sessionID: "ses_g" }, { parts: refused })
  assert.deepEqual(refused, [{ type: "text", text: "tell the user why" }])
  w.done()
})

test("an idle after a busy hands over the turn, and a blocked stop continues the session", async () => {
  const w = await world()
  w.calls.messages = [
    { info: { id: "m1", role: "user" }, parts: [{ type: "text", text: "task" }] },
    { info: { id: "m2", role: "assistant", finish: "stop", modelID: "fake", cost: 0, tokens: { input: 1, output: 2 } }, parts: [{ type: "text", text: "I'm done." }] },
  ]
  process.env.STUB_REPLY = JSON.stringify({ continue: "ralph-loop: iteration 2/5" })
  await w.hooks.event({ event: { type: "session.status", properties: { sessionID: "ses_h", status: { type: "idle" } } } })
  assert.equal(w.inputs().length, 0, "an idle with no busy before it is not a stop")
  await w.hooks.event({ event: { type: "session.status", properties: { sessionID: "ses_h", status: { type: "busy" } } } })
  await w.hooks.event({ event: { type: "session.status", properties: { sessionID: "ses_h", status: { type: "idle" } } } })
  const stop = w.inputs()[0]
  assert.equal(stop.hook, "session.idle")
  assert.deepEqual(stop.messages.map((m) => m.parts.map((p) => p.text).join()), ["task", "I'm done."])
  assert.deepEqual(w.calls.prompts, [{ id: "ses_h", text: "ralph-loop: iteration 2/5" }])
  w.done()
})

test("an idle whose last message did not end the turn is not a stop, and a message then is within the turn", async () => {
  const w = await world()
  // Kilo's TUI: idle between a tool step and the message the user typed meanwhile.
  w.calls.messages = [
    { info: { id: "m1", role: "user" }, parts: [{ type: "text", text: "task" }] },
    { info: { id: "m2", role: "assistant", finish: "tool-calls" }, parts: [{ type: "text", text: "Working." }] },
  ]
  process.env.STUB_REPLY = JSON.stringify({ continue: "ralph-loop: iteration 2/5" })
  await w.hooks.event({ event: { type: "session.status", properties: { sessionID: "ses_k", status: { type: "busy" } } } })
  await w.hooks.event({ event: { type: "session.status", properties: { sessionID: "ses_k", status: { type: "idle" } } } })
  assert.equal(w.inputs().length, 0, "an idle after a tool step is not a stop")
  assert.deepEqual(w.calls.prompts, [])
  process.env.STUB_REPLY = "{}"
  await w.hooks["chat.message"]({ sessionID: "ses_k" }, { parts: [{ type: "text", text: "Also the README." }] })
  assert.equal(w.inputs()[0].busy, true, "the message came within the turn")
  w.calls.messages.push({ info: { id: "m3", role: "user" }, parts: [{ type: "text", text: "Also the README." }] })
  await w.hooks.event({ event: { type: "session.status", properties: { sessionID: "ses_k", status: { type: "busy" } } } })
  await w.hooks.event({ event: { type: "session.status", properties: { sessionID: "ses_k", status: { type: "idle" } } } })
  assert.equal(w.inputs().length, 1, "an idle after the user's message, unanswered, is not a stop")
  w.done()
})

test("a turn that ended on an error is not a stop", async () => {
  const w = await world()
  await w.hooks.event({ event: { type: "session.status", properties: { sessionID: "ses_i", status: { type: "busy" } } } })
  await w.hooks.event({ event: { type: "session.error", properties: { sessionID: "ses_i", error: { name: "APIError" } } } })
  await w.hooks.event({ event: { type: "session.status", properties: { sessionID: "ses_i", status: { type: "idle" } } } })
  assert.equal(w.inputs().length, 0)
  w.done()
})

test("a turn of an active loop that ended on Esc or an error is no stop: ralph-loop is told, and says so", async () => {
  const w = await world()
  writeFileSync(join(w.active, "ses_j"), "")
  process.env.STUB_REPLY = JSON.stringify({ notice: "ralph-loop: you stopped the agent (Esc)" })
  await w.hooks.event({ event: { type: "session.status", properties: { sessionID: "ses_j", status: { type: "busy" } } } })
  await w.hooks.event({ event: { type: "session.error", properties: { sessionID: "ses_j", error: { name: "MessageAbortedError" } } } })
  await w.hooks.event({ event: { type: "session.status", properties: { sessionID: "ses_j", status: { type: "idle" } } } })
  assert.deepEqual(w.inputs().map((i) => [i.hook, i.error]), [["session.error", "MessageAbortedError"]])
  assert.deepEqual(w.calls.toasts, ["ralph-loop: you stopped the agent (Esc)"])
  assert.deepEqual(w.calls.prompts, [], "no continuation")
  w.done()
})

test("a command ralph-loop answers in full (the cancel) is dropped: it throws before it becomes a message", async () => {
  const w = await world()
  process.env.STUB_REPLY = JSON.stringify({ drop: true, notice: "ralph loop cancelled at iteration 2/5" })
  const parts = [{ type: "text", text: "The ralph-loop hook handles /cancel-ralph" }]
  await assert.rejects(w.hooks["command.execute.before"]({ command: "cancel-ralph", sessionID: "ses_c", arguments: "" }, { parts }), /cancelled/)
  assert.deepEqual(w.calls.toasts, ["ralph loop cancelled at iteration 2/5"])
  // The session's next message is the user's own, not the command's expansion.
  process.env.STUB_REPLY = "{}"
  await w.hooks["chat.message"]({ sessionID: "ses_c" }, { parts: [{ type: "text", text: "hello" }] })
  assert.equal(w.inputs().at(-1).prompt, "hello")
  w.done()
})

test("a call's report says how it ended: a shell command stopped by Esc has no exit status", async () => {
  const w = await world()
  writeFileSync(join(w.active, "ses_a"), "")
  const out = "partial\n\n<shell_metadata>\nUser aborted the command\n</shell_metadata>"
  await w.hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_a", callID: "c1" }, { output: out, metadata: { exit: null } })
  await w.hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_a", callID: "c2" }, { output: "x".repeat(500), metadata: { exit: 0 } })
  for (let i = 0; i < 1000 && w.inputs().length < 2; i++) await new Promise((r) => setTimeout(r, 5))
  const [a, b] = w.inputs().sort((x, y) => x.callID.localeCompare(y.callID))
  assert.deepEqual([a.failed, a.tail], [true, out])
  assert.deepEqual([b.failed, b.tail.length], [false, 200])
  w.done()
})

for (const how of ["moved", "made unrunnable"]) {
  test(`ralph-loop ${how} in an active loop: each stop continues the session with the reason, up to the loop's iterations`, async () => {
    const w = await world()
    await w.tool("ses_j") // the markers' directory is known
    loopFile(join(w.state, "sessions", "ses_j", "loop.json"), { iteration: 3, max_iterations: 5 })
    await without(how, async () => {
      await w.turn("ses_j")
      await w.turn("ses_j")
      assert.equal(w.calls.prompts.length, 2)
      for (const p of w.calls.prompts) assert.match(p.text, /^ralph-loop: this session's loop is still active, but its hooks cannot run .*ralph-loop/)
      assert.deepEqual(readdirSync(join(w.state, "sessions", "ses_j")).sort(), ["fallback-stop.0", "fallback-stop.1", "loop.json"])
      assert.ok(w.calls.logs.some((t) => /hooks cannot run .* type \/cancel-ralph to end the loop/.test(t)), w.calls.logs.join("\n"))
      // The continuation, back as a message, is not the user's: nothing more is said.
      const said = w.calls.logs.length
      await w.hooks["chat.message"]({ sessionID: "ses_j" }, { parts: [{ type: "text", text: w.calls.prompts[0].text }] })
      // Iteration 3 of 5 and two stops blocked: the third goes idle, saying so.
      await w.turn("ses_j")
      assert.equal(w.calls.prompts.length, 2)
      assert.match(w.calls.logs.at(-1), /used its last iteration/)
      assert.equal(w.calls.logs.length, said + 1)
    })
    w.done()
  })
}

test("ralph-loop missing, the loop known only by its marker or by the keep's copy: the stop continues", async () => {
  const w = await world()
  writeFileSync(join(w.active, "ses_k"), "")
  loopFile(join(w.dir, "data", "ralph-loop", "loops", "0123abcd", "ses_l.json"), {})
  await without("moved", async () => {
    await w.turn("ses_k")
    await w.turn("ses_l")
  })
  assert.deepEqual(w.calls.prompts.map((p) => p.id), ["ses_k", "ses_l"])
  assert.ok(existsSync(join(w.state, "sessions", "ses_k", "fallback-stop.0")))
  assert.ok(existsSync(join(w.state, "sessions", "ses_l", "fallback-stop.0")))
  w.done()
})

test("the user's /cancel-ralph while ralph-loop is missing is recorded, and the stops then go idle", async () => {
  const w = await world()
  writeFileSync(join(w.active, "ses_m"), "")
  await without("moved", async () => {
    const parts = [{ type: "text", text: "Cancel the loop (expanded template)" }]
    await w.hooks["command.execute.before"]({ command: "cancel-ralph", sessionID: "ses_m", arguments: "" }, { parts })
    assert.match(parts[0].text, /ralph-loop: loop cancelled\./)
    assert.ok(existsSync(join(w.state, "sessions", "ses_m", "cancel-typed")))
    await w.turn("ses_m")
    assert.deepEqual(w.calls.prompts, [])
    assert.match(w.calls.logs.join("\n"), /the cancel is recorded/)
  })
  // Typed as text, in another session.
  writeFileSync(join(w.active, "ses_n"), "")
  await without("made unrunnable", async () => {
    const parts = [{ type: "text", text: "/cancel-ralph" }]
    await w.hooks["chat.message"]({ sessionID: "ses_n" }, { parts })
    assert.ok(existsSync(join(w.state, "sessions", "ses_n", "cancel-typed")))
  })
  w.done()
})

test("ralph-loop missing in a session without a loop: the stop goes idle, and a prompt about ralph is told once", async () => {
  const w = await world()
  await without("moved", async () => {
    await w.turn("ses_o")
    await w.hooks["chat.message"]({ sessionID: "ses_o" }, { parts: [{ type: "text", text: "/ralph-loop do it" }] })
    await w.hooks["chat.message"]({ sessionID: "ses_o" }, { parts: [{ type: "text", text: "/ralph-loop do it" }] })
  })
  assert.deepEqual(w.calls.prompts, [])
  assert.equal(w.calls.logs.filter((t) => /not on this machine's PATH/.test(t)).length, 1)
  assert.ok(!existsSync(join(w.state, "sessions", "ses_o")))
  w.done()
})
