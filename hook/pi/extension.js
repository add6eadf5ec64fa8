// ralph-loop's pi extension (ralph-loop-extension v1), written by "ralph-loop install --host pi";
// "ralph-loop uninstall --host pi" removes it. It translates: each event ralph-loop needs goes
// as JSON to "ralph-loop hook --host pi", and the extension does what the reply says. Every
// decision is ralph-loop's, but for the answers install wrote into it for when ralph-loop
// cannot run (see fallback).
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, isAbsolute, join } from "node:path"

const HOST = __HOST__
const BINARY = __BINARY__ // an absolute path, or "ralph-loop" (looked for on PATH)
const SCOPE = __SCOPE__
const MISSING = __MISSING__ // said once when BINARY is not there
// What the extension answers by itself when it cannot run BINARY in a session whose loop is
// active: ralph-loop's replies, written by install (see fallback below).
const FALLBACK = __FALLBACK__
const COMMANDS = __COMMANDS__ // the loop commands, with their descriptions
const STOP_TIMEOUT_MS = 15 * 60 * 1000 // a loop's checks (--check) run at the stop
const TYPE = "ralph-loop" // ralph-loop's messages to the agent, shown as such
const LOOP_COMMAND = /\/(ralph-loop|ulw-loop|cancel-ralph)\b/

__KIT__

// The user's copy of this extension, when the project has one too: the user's acts, and the
// project's registers nothing (pi would give two commands of one name numbered names).
const userCopy = () => {
  const env = process.env.PI_CODING_AGENT_DIR
  const dir = env ? (env.startsWith("~/") ? join(homedir(), env.slice(2)) : env) : join(homedir(), ".pi", "agent")
  return join(dir, "extensions", "ralph-loop.js")
}

export default function (pi) {
  if (SCOPE !== "user" && existsSync(userCopy())) return

  const say = (ctx, message, type = "info") => {
    if (ctx?.hasUI) ctx.ui.notify(message, type)
    else console.error(message)
  }

  // ask runs ralph-loop with one event and returns its reply ({} when it has nothing to
  // say). When it cannot be run at all, the extension answers by itself (fallback).
  const ask = async (ctx, event, timeout = TIMEOUT_MS) => {
    const { mentionsRalph, ...rest } = event
    const { input, done } = vouch(rest)
    const reply = await runHook(input, timeout, { cwd: event.directory })
    if (reply.cannotRun) return fallback(ctx, event, reply.cannotRun)
    done()
    return reply
  }
  const marked = activeSessions()
  const active = marked.active

  // When BINARY cannot run (moved, removed or made unrunnable, or no ralph-loop on PATH),
  // the extension answers as the hooks' command line of other hosts does (hook/install's
  // command.go), with ralph-loop's files read and written as that does:
  //   - in a session whose loop is active (its marker in the state directory's active/, or
  //     its loop file or ralph-loop's copy of it in the keep saying ACTIVE), a stop (the end
  //     of a run that did not end on an error or Esc) continues the session with the reason
  //     and how to fix it, at most as many times as the loop has iterations left (counted in
  //     the session's fallback-stop.N files); the user's /cancel-ralph is recorded in the
  //     session's cancel-typed file, which lets its stops end and which ralph-loop, once it
  //     runs again, takes as the user's cancel; a prompt or a session's start is told why;
  //   - in any other session it does nothing, and says once that ralph-loop cannot run (a
  //     missing one only when a prompt names a loop command: a project's extension on a
  //     machine without ralph-loop).
  const cannotRun = cannotRunOnce()
  const fallback = (ctx, event, e) => {
    const loop = loopOf(event.sessionID, marked.dir())
    if (!loop) return cannotRun(e, event.mentionsRalph, () => say(ctx, MISSING, "warning"))
    const cancelled = existsSync(join(loop.dir, "cancel-typed"))
    switch (event.hook) {
      case "agent_end":
        return cancelled || !stopped(event.messages) ? {} : fallbackStop(loop)
      case "command":
      case "input":
        if (cancelTyped(loop, event.prompt, event.sessionID)) return FALLBACK.cancelled
        return cancelled ? {} : FALLBACK.notice
      case "session_start":
        return cancelled ? {} : FALLBACK.notice
    }
    return {}
  }
  // stopped: a run's messages end a turn the agent finished (its last message did not end on
  // an error or on Esc), as ralph-loop reads them.
  const stopped = (messages) => {
    const last = (messages ?? []).findLast((m) => m.role === "assistant")
    return !!last && last.stopReason !== "error" && last.stopReason !== "aborted"
  }

  const show = (ctx, reply) => {
    if (reply.error) say(ctx, reply.error.split("\n")[0], "error")
    if (reply.notice) say(ctx, reply.notice)
  }
  const base = (hook, ctx) => ({ hook, sessionID: ctx.sessionManager.getSessionId(), directory: ctx.cwd })

  // A continuation is sent once pi is idle (a message sent from inside agent_end is not
  // processed), unless a run starts first: the user's message, whose own end is the next
  // stop.
  const pending = new Map()
  // The tool calls being logged (tool_result): pi need not wait for them, the next
  // agent_end does.
  const logging = new Set()
  const later = (ctx, id, text) => {
    const token = {}
    pending.set(id, token)
    const tick = () => {
      if (pending.get(id) !== token) return
      try {
        if (!ctx.isIdle()) return void setTimeout(tick, 20)
        pending.delete(id)
        pi.sendMessage({ customType: TYPE, content: text, display: true }, { triggerTurn: true })
      } catch (e) {
        // The session was replaced meanwhile (its context is stale): nothing to continue.
        pending.delete(id)
        say(undefined, `ralph-loop: error: ${e?.message ?? e}`)
      }
    }
    setTimeout(tick, 0)
  }

  for (const [name, description] of Object.entries(COMMANDS)) {
    pi.registerCommand(name, {
      description,
      handler: async (args, ctx) => {
        const prompt = `/${name} ${args ?? ""}`.trim()
        const reply = await ask(ctx, { ...base("command", ctx), prompt, noUI: !ctx.hasUI, busy: !ctx.isIdle(), mentionsRalph: true })
        show(ctx, reply)
        if (reply.refuse) say(ctx, reply.refuse)
        if (reply.send) pi.sendMessage({ customType: TYPE, content: reply.send, display: true }, { triggerTurn: true, deliverAs: "steer" })
      },
    })
  }

  pi.on("input", async (event, ctx) => {
    const b = base("input", ctx)
    const mentions = LOOP_COMMAND.test(event.text ?? "")
    if (event.source === "extension" || !(mentions || (await active(b.sessionID)))) return
    const reply = await ask(ctx, { ...b, prompt: event.text ?? "", source: event.source, noUI: !ctx.hasUI, busy: !ctx.isIdle(), mentionsRalph: mentions })
    show(ctx, reply)
    if (reply.refuse) {
      say(ctx, reply.refuse, "warning")
      return { action: "handled" }
    }
    if (reply.send) return { action: "transform", text: `${event.text}\n\n${reply.send}` }
  })

  pi.on("agent_start", async (_event, ctx) => {
    pending.delete(ctx.sessionManager.getSessionId())
  })

  pi.on("agent_end", async (event, ctx) => {
    const b = base("agent_end", ctx)
    pending.delete(b.sessionID)
    if (!(await active(b.sessionID))) return
    // The agent's messages of the run, their text blocks and usage (tool results and the
    // user's messages are not the agent's output).
    const messages = (event.messages ?? []).filter((m) => m.role === "assistant").map((m) => ({
      role: m.role,
      stopReason: m.stopReason,
      model: m.model,
      content: (Array.isArray(m.content) ? m.content : []).filter((c) => c.type === "text").map((c) => ({ type: "text", text: c.text })),
      usage: m.usage,
    }))
    await Promise.all(logging)
    const reply = await ask(ctx, { ...b, messages }, STOP_TIMEOUT_MS)
    show(ctx, reply)
    if (reply.continue) later(ctx, b.sessionID, reply.continue)
  })

  pi.on("tool_call", async (event, ctx) => {
    const b = base("tool_call", ctx)
    if (!(await active(b.sessionID))) return
    const reply = await ask(ctx, { ...b, tool: event.toolName, callID: event.toolCallId, args: event.input, home: homedir() })
    show(ctx, reply)
    if (reply.deny) return { block: true, reason: reply.deny }
  })

  pi.on("tool_result", async (event, ctx) => {
    const b = base("tool_result", ctx)
    if (!(await active(b.sessionID))) return
    // How it ended: an error result whose end says it was aborted is a call the user stopped
    // (Esc), which did no work.
    const text = (Array.isArray(event.content) ? event.content : []).filter((c) => c.type === "text").map((c) => c.text).join("\n")
    const call = { tool: event.toolName, callID: event.toolCallId, failed: event.isError === true, tail: tail(text) }
    const logged = ask(ctx, { ...b, ...call }).then((reply) => show(ctx, reply)).catch(() => {})
    logging.add(logged)
    logged.finally(() => logging.delete(logged))
  })

  pi.on("session_start", async (event, ctx) => {
    show(ctx, await ask(ctx, { ...base("session_start", ctx), reason: event.reason }))
  })

  pi.on("session_compact", async (_event, ctx) => {
    const b = base("session_compact", ctx)
    if (!(await active(b.sessionID))) return
    const reply = await ask(ctx, b)
    show(ctx, reply)
    if (reply.send) pi.sendMessage({ customType: TYPE, content: reply.send, display: false }, { deliverAs: "nextTurn" })
  })

  pi.on("session_shutdown", async (event, ctx) => {
    const b = base("session_shutdown", ctx)
    pending.delete(b.sessionID)
    if (!(await active(b.sessionID))) return
    show(ctx, await ask(ctx, { ...b, reason: event.reason }))
  })
}
