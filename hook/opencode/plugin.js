// ralph-loop's __HOST_NAME__ plugin (ralph-loop-plugin v1), written by "ralph-loop install --host __HOST_NAME__";
// "ralph-loop uninstall --host __HOST_NAME__" removes it. It translates: each event ralph-loop
// needs goes as JSON to "ralph-loop hook --host __HOST_NAME__", and the plugin does what the reply
// says. Every decision is ralph-loop's, but for the answers install wrote into it for when
// ralph-loop cannot run (see fallback).
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, isAbsolute, join } from "node:path"

const HOST = __HOST__ // opencode, or a fork with its plugin API (kilo)
const BINARY = __BINARY__ // an absolute path, or "ralph-loop" (looked for on PATH)
const SCOPE = __SCOPE__
const MISSING = __MISSING__ // said once when BINARY is not there
// What the plugin answers by itself when it cannot run BINARY in a session whose loop is
// active: ralph-loop's replies, written by install (see fallback below).
const FALLBACK = __FALLBACK__
const COMMANDS = ["ralph-loop", "ulw-loop", "cancel-ralph"]
const STOP_TIMEOUT_MS = 15 * 60 * 1000 // a loop's checks (--check) run at the stop
const TOAST_MS = 4000
// "opencode run" (without --attach, which leaves the loop to the server) exits at the first
// idle: ralph-loop refuses to start a loop there ("kilo run" waits for the continuation;
// ralph-loop knows which host can loop there).
const argv = process.argv.slice(2)
const RUN = argv.find((a) => !a.startsWith("-")) === "run" && !argv.some((a) => a === "--attach" || a.startsWith("--attach="))

__KIT__

export const RalphLoop = async (ctx) => {
  const { client, directory } = ctx
  // The server's URL, for the guard's rule on requests to it (read when asked: it is known
  // once the server listens).
  const serverUrl = () => { try { return String(ctx.serverUrl ?? "") } catch { return "" } }
  // A user copy and a project copy of this plugin may both be loaded: the user's acts.
  const loaded = (globalThis.__ralphLoopPlugin ??= {})
  const here = (loaded[directory] ??= {})
  here[SCOPE] = true
  const acts = () => SCOPE === "user" || !here.user

  // The TUI shows one toast at a time and may drop one that comes while another is shown:
  // each stays TOAST_MS, and of those that come meanwhile only the latest follows it.
  let toastUntil = 0, pending = null, timer = null
  const toast = () => {
    timer = null
    const wait = toastUntil - Date.now()
    if (wait > 0) return void (timer = setTimeout(toast, wait))
    const t = pending
    pending = null
    toastUntil = Date.now() + TOAST_MS + 250
    client.tui.showToast({ body: { title: "ralph-loop", message: t.message, variant: t.variant, duration: TOAST_MS } }).catch(() => {})
  }
  const say = (message, variant = "info") => {
    client.app.log({ body: { service: "ralph-loop", level: variant === "error" ? "error" : "info", message } }).catch(() => {})
    pending = { message, variant }
    if (!timer) toast()
  }

  // ask runs ralph-loop with one event and returns its reply ({} when it has nothing to say).
  // When it cannot be run at all, the plugin answers by itself (fallback).
  const ask = async (event, timeout = TIMEOUT_MS) => {
    const env = { ...process.env, RALPH_LOOP_OPENCODE_SERVER: serverUrl() }
    const { input, done } = vouch(event)
    const reply = await runHook(input, timeout, { cwd: directory, env })
    if (reply.cannotRun) return fallback(event, reply.cannotRun)
    done()
    return reply
  }
  const marked = activeSessions(directory)
  const active = marked.active

  // When BINARY cannot run (moved, removed or made unrunnable, or no ralph-loop on PATH),
  // the plugin answers as the hooks' command line of the other hosts does (hook/install's
  // command.go), with ralph-loop's files read and written as that does:
  //   - in a session whose loop is active (its marker in the state directory's active/, or
  //     its loop file or ralph-loop's copy of it in the keep saying ACTIVE), a stop continues
  //     the session with the reason and how to fix it, at most as many times as the loop has
  //     iterations left (counted in the session's fallback-stop.N files); the user's
  //     /cancel-ralph is recorded in the session's cancel-typed file, which lets its stops
  //     go idle and which ralph-loop, once it runs again, takes as the user's cancel; a
  //     prompt is told why;
  //   - in any other session it does nothing, and says once that ralph-loop cannot run (a
  //     missing one only when a prompt mentions ralph: a project's plugin on a machine
  //     without ralph-loop).
  const cannotRun = cannotRunOnce()
  const fallback = (event, e) => {
    const loop = loopOf(event.sessionID, marked.dir())
    if (!loop) return cannotRun(e, event.mentionsRalph, () => say(MISSING, "warning"))
    const cancelled = existsSync(join(loop.dir, "cancel-typed"))
    if (event.hook === "session.idle") return cancelled ? {} : fallbackStop(loop)
    if (event.hook !== "chat.message" && event.hook !== "command.execute.before") return {}
    const prompt = (event.prompt ?? "").trim()
    if (cancelTyped(loop, prompt, event.sessionID)) return FALLBACK.cancelled
    // The stop's own continuation comes back as a message: nothing more to say.
    if (cancelled || prompt === FALLBACK.stop.continue) return {}
    return FALLBACK.notice
  }

  const show = (reply) => {
    if (reply.error) say(reply.error.split("\n")[0], "error")
    if (reply.notice) say(reply.notice)
  }

  // What the prompt hooks hand the model: ralph-loop's context added, or the prompt replaced
  // (a refused command: the model is asked to tell the user why, and to do nothing else).
  const apply = (reply, parts) => {
    show(reply)
    if (reply.replace !== undefined) {
      const first = parts.findIndex((p) => p.type === "text")
      for (let i = parts.length - 1; i >= 0; i--) if (parts[i].type === "text" && i !== first) parts.splice(i, 1)
      if (first >= 0) parts[first].text = reply.replace
      else parts.push({ type: "text", text: reply.replace })
    }
    if (reply.append) {
      const last = parts.findLastIndex((p) => p.type === "text")
      if (last >= 0) parts[last].text += "\n\n" + reply.append
      else parts.push({ type: "text", text: reply.append })
    }
  }

  // The host's own goal for the session, active or paused (Kilo's /goal keeps it in the
  // session's metadata, "kilo.goal": {text, status, active}, and pauses it for any message
  // or command that comes, this one too); undefined when none, or when the session cannot
  // be read. A loop beside it would push the agent twice.
  const goalOf = async (id) => {
    try {
      const g = (await client.session.get({ path: { id } })).data?.metadata?.["kilo.goal"]
      if (g?.active !== true && g?.status !== "paused") return undefined
      return { text: String(g.text ?? ""), paused: g.active !== true }
    } catch {
      return undefined
    }
  }

  const sessions = new Map()
  const session = (id) => {
    if (!sessions.has(id)) sessions.set(id, { busy: false, deciding: false, again: false, error: null, unfinished: false })
    return sessions.get(id)
  }
  const expanded = new Set() // sessions whose next message is one of our commands, expanded
  // The tool calls being logged (tool.execute.after): opencode need not wait for them, the
  // next stop does.
  const logging = new Set()
  const endsTurn = (m) => m.info?.role === "assistant" && !!m.info.finish && m.info.finish !== "tool-calls"

  // stop asks ralph-loop whether the turn that just ended may end the loop's iteration, with
  // the turn's messages (this iteration's, no earlier one's),
  // and sends the continuation back into the session when it says so. Only an idle that
  // follows a busy counts (opencode goes idle twice after a model error), one at a time.
  const stop = async (id) => {
    const s = session(id)
    if (!s.busy) return
    if (s.deciding) return void (s.again = true)
    s.busy = false
    const error = s.error
    s.error = null
    s.deciding = true
    try {
      // A turn that ended on an error or an interrupt (Esc) is not a stop (opencode shows the
      // error): a loop waits for the user's next message, as when Claude Code's turn fails,
      // and ralph-loop tells the user so.
      if (error) {
        if (await active(id)) show(await ask({ hook: "session.error", sessionID: id, directory, error }))
        return
      }
      const res = await client.session.messages({ path: { id } })
      const messages = res.data ?? []
      // Only an idle after the agent's last message ended its turn is a stop. Kilo's TUI goes
      // idle for a moment between a tool step and a message the user typed meanwhile, which
      // it then sends: that idle belongs to no finished turn, and a continuation sent there
      // would come one turn late from then on.
      s.unfinished = messages.length > 0 && !endsTurn(messages[messages.length - 1])
      if (s.unfinished) return
      // The turn: the messages after the agent's last one that ended an earlier turn (it
      // finished other than to call tools). A message the user sent while it ran is part of
      // it: opencode hands it to the agent at its next step.
      let from = messages.length - 1
      while (from > 0 && !endsTurn(messages[from - 1])) from--
      const iteration = messages.slice(from).map((m) => ({
        id: m.info?.id,
        role: m.info?.role,
        parts: (m.parts ?? []).filter((p) => p.type === "text").map((p) => ({ text: p.text, synthetic: p.synthetic === true })),
        usage: m.info?.role === "assistant" ? { model: m.info.modelID, cost: m.info.cost, tokens: m.info.tokens } : undefined,
      }))
      await Promise.all(logging)
      const reply = await ask({ hook: "session.idle", sessionID: id, directory, messages: iteration }, STOP_TIMEOUT_MS)
      show(reply)
      if (reply.continue) {
        await client.session.promptAsync({ path: { id }, body: { parts: [{ type: "text", text: reply.continue }] } })
      }
    } catch (e) {
      say(`ralph-loop: error: ${e?.message ?? e}`, "error")
    } finally {
      s.deciding = false
    }
    if (s.again) {
      s.again = false
      await stop(id)
    }
  }

  return {
    event: async ({ event }) => {
      if (!acts()) return
      const p = event.properties ?? {}
      if (event.type === "session.status" && p.sessionID) {
        if (p.status?.type === "busy") session(p.sessionID).busy = true
        if (p.status?.type === "idle") await stop(p.sessionID)
      } else if (event.type === "session.error" && p.sessionID) {
        session(p.sessionID).error = p.error?.name ?? "an error"
      } else if (event.type === "session.deleted" && p.info?.id) {
        sessions.delete(p.info.id)
        show(await ask({ hook: "session.deleted", sessionID: p.info.id, directory }))
      }
    },
    "command.execute.before": async (input, output) => {
      if (!acts() || !COMMANDS.includes(input.command)) return
      expanded.add(input.sessionID)
      const prompt = `/${input.command} ${input.arguments ?? ""}`.trim()
      const goal = input.command === "cancel-ralph" ? undefined : await goalOf(input.sessionID)
      const reply = await ask({ hook: "command.execute.before", sessionID: input.sessionID, directory, prompt, run: RUN, mentionsRalph: true, goal })
      if (reply.drop) {
        // Answered in full (the cancel): thrown here, the command ends before it becomes a
        // message, and nothing of it reaches the model.
        expanded.delete(input.sessionID)
        show(reply)
        throw new Error(reply.notice)
      }
      // The command's template is for the agent: shown as the user's message it read as their
      // own words. It reaches the model marked synthetic (which the TUI does not show), after
      // the command as the user typed it.
      for (const p of output.parts) if (p.type === "text") p.synthetic = true
      output.parts.unshift({ type: "text", text: prompt })
      apply(reply, output.parts)
    },
    "chat.message": async (input, output) => {
      if (!acts() || expanded.delete(input.sessionID)) return
      const prompt = output.parts.filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text).join("\n")
      if (!prompt) return
      // Typed while the agent works, or in the pause of an unfinished turn (Kilo hands the
      // message over at that idle, while the plugin may still be looking at it): handed to the
      // agent within the turn.
      const s = session(input.sessionID)
      const busy = s.busy || s.unfinished || s.deciding
      s.unfinished = false
      apply(await ask({ hook: "chat.message", sessionID: input.sessionID, directory, prompt, run: RUN, busy, mentionsRalph: /ralph/i.test(prompt) }), output.parts)
    },
    "tool.execute.before": async (input, output) => {
      if (!acts() || !(await active(input.sessionID))) return
      const reply = await ask({ hook: "tool.execute.before", sessionID: input.sessionID, directory, tool: input.tool, callID: input.callID, args: output.args })
      show(reply)
      if (reply.deny) throw new Error(reply.deny)
    },
    "tool.execute.after": async (input, output) => {
      if (!acts() || !(await active(input.sessionID))) return
      // How it ended: a shell command with no exit status was killed, and the end of its
      // output says whether the user stopped it (Esc): such a call did no work.
      const call = { tool: input.tool, callID: input.callID, failed: output?.metadata?.exit === null, tail: tail(output?.output) }
      const logged = ask({ hook: "tool.execute.after", sessionID: input.sessionID, directory, ...call }).then(show).catch(() => {})
      logging.add(logged)
      logged.finally(() => logging.delete(logged))
    },
  }
}
