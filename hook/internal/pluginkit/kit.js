// The kit of every plugin of ralph-loop's own (hook/internal/pluginkit/kit.js, written here by
// install): running ralph-loop, the sessions it marks active, and ralph-loop's files as the
// plugin reads and writes them when it cannot run ralph-loop (see fallback). It uses the
// plugin's BINARY, HOST and FALLBACK.
const TIMEOUT_MS = 10 * 1000
// A session id that can name a file of the state directory (ralph-loop's own rule).
const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/
// The end of a tool call's result that is sent with its report (ralph-loop tells from it a
// call the user stopped).
const tail = (text) => String(text ?? "").slice(-__TAIL_MAX__)

// runHook runs ralph-loop with one event (input, written to it as JSON) and returns its
// reply ({} when it has nothing to say), {error} when it failed, or {cannotRun} when it could
// not be run at all. options are spawn's (cwd, env).
const runHook = (input, timeout, options) =>
  new Promise((resolve) => {
    let out = "", err = "", done = false
    const finish = (reply) => { if (!done) { done = true; resolve(reply) } }
    let child
    try {
      child = spawn(BINARY, ["hook", "--host", HOST], { ...options, stdio: ["pipe", "pipe", "pipe"] })
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
    child.stdin.end(JSON.stringify(input))
  })

// activeSessions tells which sessions may have an active loop, from the directory where
// ralph-loop marks them (a file named by the session id, there while the loop is), asked of
// ralph-loop (in cwd) once: an event of a session without a loop then costs a file lookup,
// not a process. A loop starts from a command, which always asks, and ralph-loop marks the
// session before it answers. Without an answer (an older ralph-loop, or none installed)
// every session may have one. dir() is the directory as last answered ("" before or
// without an answer).
const activeSessions = (cwd) => {
  let activeDir, activeDirSeen = ""
  const askActiveDir = () =>
    new Promise((resolve) => {
      let out = ""
      try {
        const child = spawn(BINARY, ["hook", "--host", HOST, "--active-dir"], { cwd, stdio: ["ignore", "pipe", "ignore"] })
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
  return {
    // active: any of ralph-loop's records says the session's loop may be active: its
    // marker, its loop file, ralph-loop's copy of it or of the marker in the keep (see
    // loopOf). The marker alone would let a script of the agent's that removes it end the
    // loop's stops unasked.
    active: async (id) => {
      activeDir ??= askActiveDir()
      const dir = (activeDirSeen = await activeDir)
      return !dir || !SESSION_ID.test(id) || id === "." || id === ".." || existsSync(join(dir, id)) || loopOf(id, dir) !== null
    },
    dir: () => activeDirSeen,
  }
}

// cannotRunOnce returns what the plugin answers when it cannot run BINARY in a session
// without an active loop: nothing, but that ralph-loop cannot run, once (a missing one only
// when the event mentions ralph, said by sayMissing: a project's plugin on a machine without
// ralph-loop).
const cannotRunOnce = () => {
  let missingSaid = false, brokenSaid = false
  return (e, mentionsRalph, sayMissing) => {
    if (e.code !== "ENOENT") {
      if (brokenSaid) return {}
      brokenSaid = true
      return { error: `ralph-loop: error: ${BINARY}: ${e.message ?? e}` }
    }
    if (!missingSaid && mentionsRalph) sayMissing()
    missingSaid ||= !!mentionsRalph
    return {}
  }
}

// fallbackStop is the answer to a stop in a session whose loop is active when BINARY cannot
// run: the session continues with the reason and how to fix it, at most as many times as
// the loop has iterations left (counted in the session's fallback-stop.N files).
const fallbackStop = (loop) => {
  let n = 0
  try { n = readdirSync(loop.dir).filter((f) => f.startsWith("fallback-stop.")).length } catch {}
  if (loop.iteration + n >= loop.max) return FALLBACK.limit
  mark(loop.dir, `fallback-stop.${n}`)
  return FALLBACK.stop
}

// cancelTyped reports whether prompt is the user's /cancel-ralph, and records it in the
// session's cancel-typed file, which lets its stops end and which ralph-loop, once it runs
// again, takes as the user's cancel.
const cancelTyped = (loop, prompt, sessionID) => {
  if (!/^\/cancel-ralph(\s|$)/.test((prompt ?? "").trim())) return false
  mark(loop.dir, "cancel-typed")
  typedWhileGone.add(sessionID)
  return true
}

// typedWhileGone are the sessions whose /cancel-ralph the plugin answered itself while it
// could not run BINARY. Kept in the host's process, which nothing the agent runs can
// write, they go with the next event ralph-loop gets (fallbackCancel), as the host's word
// that the cancel in the session's cancel-typed is the user's (see vouch).
const typedWhileGone = new Set()

// vouch adds to an event for ralph-loop that the plugin answered the session's cancel
// itself; done says that ralph-loop has run with it.
const vouch = (event) => {
  const input = typedWhileGone.has(event.sessionID) ? { ...event, fallbackCancel: true } : event
  return { input, done: () => typedWhileGone.delete(event.sessionID) }
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

// loopOf is the session's loop as its files say (activeDir: where ralph-loop said it marks
// active sessions, "" if it did not): its directory, iteration and limit (the defaults when
// no loop file says), or null when nothing says a loop is active: not its loop file, nor
// ralph-loop's copy of it or of its marker in the keep, nor its marker.
const loopOf = (id, activeDir) => {
  if (!SESSION_ID.test(id ?? "") || id === "." || id === "..") return null
  const state = activeDir ? dirname(activeDir) : xdg("XDG_STATE_HOME", ".local/state")
  const files = [join(state, "sessions", id, "loop.json")]
  let witnessed = false
  try {
    const loops = join(xdg("XDG_DATA_HOME", ".local/share"), "loops")
    for (const d of readdirSync(loops)) {
      files.push(join(loops, d, id + ".json"))
      witnessed ||= existsSync(join(loops, d, id + ".active"))
    }
  } catch {}
  let on = null
  for (const f of files) {
    try {
      const l = JSON.parse(readFileSync(f, "utf8"))
      if (l.status === "ACTIVE") { on = l; break }
    } catch {}
  }
  if (!on && !witnessed && !existsSync(join(state, "active", id))) return null
  const num = (v) => (Number.isSafeInteger(v) && v >= 0 ? v : null)
  const max = num(on?.max_iterations), iteration = num(on?.iteration)
  return { dir: join(state, "sessions", id), max: max ?? FALLBACK.maxIterations, iteration: max === null ? 0 : iteration ?? 0 }
}
// (end of the kit)
