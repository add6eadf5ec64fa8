package main

import (
	"encoding/json"
	"strings"

	"github.com/ralph-loop/ralph-loop/inject"
)

// libJS finds the native binary in this platform's package.
func libJS() string {
	m := map[string]string{}
	for _, p := range Platforms {
		m[p.OS+" "+p.CPU] = p.Name()
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return strings.NewReplacer("PACKAGES", string(b), "GETIT", inject.GetIt).Replace(`"use strict";
// Where this platform's native ralph-loop is: in the package npm installed for it, one of
// the optionalDependencies (npm installs only the one whose os and cpu match).
const path = require("path");

const packages = PACKAGES;

function binaryPath() {
  const key = process.platform + " " + process.arch;
  const pkg = packages[key];
  if (!pkg) {
    throw new Error("no ralph-loop binary is published for " + key + "; build it from source (go install github.com/ralph-loop/ralph-loop/cmd/ralph-loop@latest)");
  }
  const exe = process.platform === "win32" ? "ralph-loop.exe" : "ralph-loop";
  try {
    return require.resolve(pkg + "/bin/" + exe);
  } catch (e) {
    throw new Error("the package " + pkg + " with this platform's binary is not installed (optional dependencies left out, e.g. --omit=optional?); install again: GETIT");
  }
}

module.exports = { binaryPath };
`)
}

// launcherJS is the command npm puts on PATH. At its first run it puts the native binary
// itself in its place (esbuild's way, without an install script: npm 11 warns of every
// package with one, and may not run it), once the binary has shown it runs and is this
// package's version, so that a hook costs no node process; then it runs the binary. On
// Windows, where npm's shims run node on this file, and when anything goes wrong, it stays
// and runs the binary each time. It prints nothing of its own but a failure to run the
// binary: a hook's stdout is its host's protocol.
const launcherJS = `#!/usr/bin/env node
"use strict";
// ralph-loop's launcher: at its first run it puts this platform's native binary in its
// place, so that later runs cost no node process; it runs the binary.
const fs = require("fs");
const path = require("path");
const { spawnSync, execFileSync } = require("child_process");
const { binaryPath } = require("../lib.js");

// replace copies the native binary over this file, once it answers with this package's
// version, and its dashboard (ralph-loop watch runs DASHBOARD beside ralph-loop) beside
// it; it returns the file to run: this one, now native, or the binary where it is.
function replace(bin) {
  if (process.platform === "win32") {
    return bin;
  }
  try {
    const want = require("../package.json").version;
    const got = execFileSync(bin, ["version", "--short"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (got !== want) {
      return bin;
    }
    const self = fs.realpathSync(__filename);
    const dash = path.join(path.dirname(self), "DASHBOARD");
    fs.copyFileSync(path.join(path.dirname(bin), "DASHBOARD"), dash + ".tmp-" + process.pid);
    fs.chmodSync(dash + ".tmp-" + process.pid, 0o755);
    fs.renameSync(dash + ".tmp-" + process.pid, dash);
    const tmp = self + ".tmp-" + process.pid;
    fs.copyFileSync(bin, tmp);
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, self);
    return self;
  } catch (e) {
    return bin;
  }
}

let bin;
try {
  bin = replace(binaryPath());
} catch (e) {
  process.stderr.write("ralph-loop: error: " + e.message + "\n");
  process.exit(1);
}
const r = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  process.stderr.write("ralph-loop: error: run " + bin + ": " + r.error.message + "\n");
  process.exit(1);
}
if (r.signal) {
  process.kill(process.pid, r.signal);
}
process.exit(r.status === null ? 1 : r.status);
`
