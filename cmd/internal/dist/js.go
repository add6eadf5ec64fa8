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

// launcherJS is the command npm puts on PATH. At its first run it makes itself a script
// that the system runs with the native binary as its interpreter ("#!<binary>
// --npm-shebang", then this same launcher), once that script has shown it runs and answers
// with this package's version, so that a hook costs no node process (esbuild's way of
// putting the binary in place, without an install script: npm 11 warns of every package
// with one, and may not run it). It never copies the binary over itself: a ralph-loop
// started at that moment has had the system read the file's first line, and has node read
// the rest; node would find the binary and fail with a SyntaxError (issue 36). The file is
// at every moment a script node runs (node skips a first "#!" line). On Windows, where
// npm's shims run node on this file, where the binary's path cannot be a "#!" line (a
// space in it) and when anything goes wrong, it stays and runs the binary each time. It
// prints nothing of its own but a failure to run the binary: a hook's stdout is its host's
// protocol.
var launcherJS = strings.ReplaceAll(`#!/usr/bin/env node
"use strict";
// ralph-loop's launcher: at its first run it makes this file a script the system runs with
// this platform's native binary, so that later runs cost no node process; it runs the
// binary.
const fs = require("fs");
const { spawnSync, execFileSync } = require("child_process");
const { binaryPath } = require("../lib.js");

const SHEBANG = "NPMSHEBANG";

// replace makes this file "#!<bin> NPMSHEBANG" followed by this launcher, once that
// answers with this package's version. It returns the binary to run now.
function replace(bin) {
  if (process.platform === "win32") {
    return bin;
  }
  let tmp;
  try {
    const self = fs.realpathSync(__filename);
    const src = fs.readFileSync(self, "utf8");
    if (!src.startsWith("#!/usr/bin/env node\n")) {
      return bin; // replaced already: node runs it only when it started just before
    }
    const real = fs.realpathSync(bin);
    if (/\s/.test(real)) {
      return bin;
    }
    tmp = self + ".tmp-" + process.pid;
    fs.writeFileSync(tmp, "#!" + real + " " + SHEBANG + "\n" + src.slice(src.indexOf("\n") + 1), { mode: 0o755 });
    fs.chmodSync(tmp, 0o755);
    // The system must run it with the binary (a "#!" line too long for it would not), and
    // the binary must be this package's version.
    const want = require("../package.json").version;
    const got = execFileSync(tmp, ["version", "--short"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (got === want) {
      fs.renameSync(tmp, self);
      tmp = undefined;
    }
  } catch (e) {
    // It stays the launcher.
  }
  if (tmp !== undefined) {
    try {
      fs.unlinkSync(tmp);
    } catch (e) {}
  }
  return bin;
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
`, "NPMSHEBANG", inject.NPMShebang)
