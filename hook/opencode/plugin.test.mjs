// Unit tests of plugin.js, run by TestPluginNode (plugin_node_test.go) with node --test:
// PLUGIN is the plugin as install writes it, for the stand-in ralph-loop STUB, which logs
// each run (its arguments to $STUB_LOG, its input to $STUB_LOG.in), prints $STUB_ACTIVE for
// --active-dir, marks a session active when it is asked to arm a loop, and replies
// $STUB_REPLY.
import { test } from "node:test"
import assert from "node:assert/strict"
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync, rmSync } from "node:fs"
import { join } from "node:path"
import { tmpdir } from "node:os"
import { pathToFileURL } from "node:url"

const { RalphLoop } = await import(pathToFileURL(process.env.PLUGIN).href)

// world is a fresh directory (the plugin keeps per-directory state), the stand-in's log, and
// a client that records what the plugin asked of opencode.
const world = async ({ activeDir = true } = {}) => {
  const dir = mkdtempSync(join(tmpdir(), "plugin-test-"))
  const active = join(dir, "state", "active")
  mkdirSync(active, { recursive: true })
  process.env.STUB_LOG = join(dir, "runs.log")
  process.env.STUB_ACTIVE = activeDir ? active : ""
  process.env.STUB_REPLY = ""
  const calls = { prompts: [], toasts: [], messages: [] }
  const client = {
    tui: { showToast: async ({ body }) => void calls.toasts.push(body.message) },
    app: { log: async () => {} },
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
  const tool = (sessionID, callID = "c1") =>
    hooks["tool.execute.before"]({ tool: "bash", sessionID, callID }, { args: { command: "ls" } }).then(() =>
      hooks["tool.execute.after"]({ tool: "bash", sessionID, callID }, {}),
    )
  return { dir, active, hooks, calls, runs, inputs, tool, done: () => rmSync(dir, { recursive: true, force: true }) }
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

test("without the directory of the markers (an older ralph-loop), every tool call is asked about", async () => {
  const w = await world({ activeDir: false })
  await w.tool("ses_d")
  assert.deepEqual(w.inputs().map((e) => e.hook), ["tool.execute.before", "tool.execute.after"])
  w.done()
})

test("a session id that cannot name a marker file is asked about", async () => {
  const w = await world()
  writeFileSync(join(w.dir, "state", "x"), "") // ../x from the markers' directory
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
