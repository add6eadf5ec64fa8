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

// launcherJS is the command npm puts on PATH until install.js replaces it with the binary
// itself (and what stays when install scripts are off): it runs the binary.
const launcherJS = `#!/usr/bin/env node
"use strict";
// ralph-loop's launcher: runs this platform's native binary. The install script puts the
// binary itself here where it can, so that a hook costs no node process; this file runs
// when install scripts are off (--ignore-scripts) or on Windows.
const { spawnSync } = require("child_process");
const { binaryPath } = require("../lib.js");

let bin;
try {
  bin = binaryPath();
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

// installJS replaces the launcher with the native binary (esbuild's way), once the binary
// has shown it runs and is this package's version. On Windows npm's shims run node on the
// launcher, which stays; so does it when anything goes wrong.
const installJS = `"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const { binaryPath } = require("./lib.js");

function main() {
  if (process.platform === "win32") {
    return;
  }
  const bin = binaryPath();
  const want = require("./package.json").version;
  const got = execFileSync(bin, ["version", "--short"], { encoding: "utf8" }).trim();
  if (got !== want) {
    throw new Error(bin + " says version " + got + ", not " + want);
  }
  const launcher = path.join(__dirname, "bin", "ralph-loop");
  const tmp = launcher + ".tmp-" + process.pid;
  fs.copyFileSync(bin, tmp);
  fs.chmodSync(tmp, 0o755);
  fs.renameSync(tmp, launcher);
}

try {
  main();
} catch (e) {
  process.stderr.write("ralph-loop: the launcher stays (it runs the binary through node): " + e.message + "\n");
}
`
