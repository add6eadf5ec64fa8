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
const TIMEOUT_MS = 10 * 1000
const TYPE = "ralph-loop" // ralph-loop's messages to the agent, shown as such
// A session id that can name a file of the state directory (ralph-loop's own rule).
const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/
const LOOP_COMMAND = /\/(ralph-loop|ulw-loop|cancel-ralph)\b/

// The user's copy of this extension, when the project has one too: the user's acts, and the
// project's registers nothing (pi would give two commands of one name numbered names).
const userCopy = () => {
  const env = process.env.PI_CODING_AGENT_DIR
  const dir = env ? (env.startsWith("~/") ? join(homedir(), env.slice(2)) : env) : join(homedir(), ".pi", "agent")
  return join(dir, "extensions", "ralph-loop.js")
}

export default function (pi) {
  if (SCOPE !== "user" && existsSync(userCopy())) return

  let missingSaid = false, brokenSaid = false
  const say = (ctx, message, type = "info") => {
    if (ctx?.hasUI) ctx.ui.notify(message, type)
    else console.error(message)
  }

  // ask runs ralph-loop with one event and returns its reply ({} when it has nothing to
  // say). When it cannot be run at all, the extension answers by itself (fallback).
  const ask = async (ctx, event, timeout = TIMEOUT_MS) => {
    const reply = await run(event, timeout)
    return reply.cannotRun ? fallback(ctx, event, reply.cannotRun) : reply
  }
  const run = (event, timeout) =>
    new Promise((resolve) => {
      let out = "", err = "", done = false
      const finish = (reply) => { if (!done) { done = true; resolve(reply) } }
      let child
      try {
        child = spawn(BINARY, ["hook", "--host", HOST], { cwd: event.directory, stdio: ["pipe", "pipe", "pipe"] })
      } catch (e) {
        return finish({ cannotRun: e })
      }
      const timer = setTimeout(() => { child.kill("SIGKILL"); finish({ error: `ralph-loop: error: no reply in ${timeout / 1000} s` }) }, timeout)
      child.stdout.on("data", (d) => (out += d))
      child.stderr.on("data", (d) => (err += d))
      // spawn fails (ENOENT, EACCES, ...) before anything is written: BINARY cannot run.
      child.on("error", (e) => {
        clearTimeout(timer)
        finish({ cannotRun: e })
      })
      child.on("close", (code) => {
        clearTimeout(timer)
        if (code !== 0) return finish({ error: err.trim() || `ralph-loop: error: exit status ${code}` })
        try { finish(out.trim() ? JSON.parse(out) : {}) } catch { finish({ error: "ralph-loop: error: a reply that is not JSON" }) }
      })
      child.stdin.on("error", () => {})
      const { mentionsRalph, ...rest } = event
      child.stdin.end(JSON.stringify(rest))
    })

  // The directory where ralph-loop marks the sessions whose loop is active (a file named by
  // the session id, there while the loop is), asked of ralph-loop once: an event of a session
  // without a loop then costs a file lookup, not a process. A loop starts from a command,
  // which always asks, and ralph-loop marks the session before it answers. Without an answer
  // (an older ralph-loop, or none installed) every event asks.
  let activeDir, activeDirSeen = ""
  const active = async (id) => {
    activeDir ??= askActiveDir()
    const dir = (activeDirSeen = await activeDir)
    return !dir || !SESSION_ID.test(id) || id === "." || id === ".." || existsSync(join(dir, id))
  }
  const askActiveDir = () =>
    new Promise((resolve) => {
      let out = ""
      try {
        const child = spawn(BINARY, ["hook", "--host", HOST, "--active-dir"], { stdio: ["ignore", "pipe", "ignore"] })
        const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS)
        child.stdout.on("data", (d) => (out += d))
        child.on("error", () => { clearTimeout(timer); resolve("") })
        child.on("close", (code) => {
          clearTimeout(timer)
          const dir = out.trim()
          resolve(code === 0 && isAbsolute(dir) && !dir.includes("\n") ? dir : "")
        })
      } catch {
        resolve("")
      }
    })

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
  const fallback = (ctx, event, e) => {
    const loop = loopOf(event.sessionID)
    if (!loop) {
      if (e.code !== "ENOENT") {
        if (brokenSaid) return {}
        brokenSaid = true
        return { error: `ralph-loop: error: ${BINARY}: ${e.message ?? e}` }
      }
      if (!missingSaid && event.mentionsRalph) say(ctx, MISSING, "warning")
      missingSaid ||= !!event.mentionsRalph
      return {}
    }
    const cancelled = existsSync(join(loop.dir, "cancel-typed"))
    switch (event.hook) {
      case "agent_end": {
        if (cancelled || !stopped(event.messages)) return {}
        let n = 0
        try { n = readdirSync(loop.dir).filter((f) => f.startsWith("fallback-stop.")).length } catch {}
        if (loop.iteration + n >= loop.max) return FALLBACK.limit
        mark(loop.dir, `fallback-stop.${n}`)
        return FALLBACK.stop
      }
      case "command":
      case "input":
        if (/^\/cancel-ralph(\s|$)/.test((event.prompt ?? "").trim())) {
          mark(loop.dir, "cancel-typed")
          return FALLBACK.cancelled
        }
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
  const mark = (dir, name) => {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      writeFileSync(join(dir, name), "", { flag: "wx", mode: 0o600 })
    } catch {}
  }
  // ralph-loop's directory under an XDG base ($name if absolute, else ~/dflt if ralph-loop is
  // there, else macOS's), as ralph-loop and the hooks' command line find it.
  const xdg = (name, dflt) => {
    const v = process.env[name]
    if (v && isAbsolute(v)) return join(v, "ralph-loop")
    const linux = join(homedir(), dflt, "ralph-loop")
    return existsSync(linux) ? linux : join(homedir(), "Library", "Application Support", "ralph-loop")
  }
  // loopOf is the session's loop as its files say when ralph-loop cannot be asked: its
  // directory, iteration and limit (the defaults when no loop file says), or null when
  // nothing says a loop is active.
  const loopOf = (id) => {
    if (!SESSION_ID.test(id ?? "") || id === "." || id === "..") return null
    const state = activeDirSeen ? dirname(activeDirSeen) : xdg("XDG_STATE_HOME", ".local/state")
    const files = [join(state, "sessions", id, "loop.json")]
    try {
      const loops = join(xdg("XDG_DATA_HOME", ".local/share"), "loops")
      for (const d of readdirSync(loops)) files.push(join(loops, d, id + ".json"))
    } catch {}
    let on = null
    for (const f of files) {
      try {
        const l = JSON.parse(readFileSync(f, "utf8"))
        if (l.status === "ACTIVE") { on = l; break }
      } catch {}
    }
    if (!on && !existsSync(join(state, "active", id))) return null
    const num = (v) => (Number.isSafeInteger(v) && v >= 0 ? v : null)
    const max = num(on?.max_iterations), iteration = num(on?.iteration)
    return { dir: join(state, "sessions", id), max: max ?? FALLBACK.maxIterations, iteration: max === null ? 0 : iteration ?? 0 }
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
    show(ctx, await ask(ctx, { ...b, tool: event.toolName, callID: event.toolCallId }))
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
