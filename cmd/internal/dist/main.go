// Command dist writes the npm packages of a release into DIR/npm, from the binaries
// GoReleaser built into DIR (DIR/artifacts.json), at the same version: @ralph-loop/cli
// (inject.NPMPackage), whose optionalDependencies are one package per platform carrying
// os/cpu and the native binary, the way esbuild and Biome ship theirs. At a release version
// (no pre-release, no "+dirty") it first checks that the Claude Code plugin manifests say the
// same version. "make dist" runs it with -check before GoReleaser (that check alone, so that a
// release refused costs seconds, not the build), and without it after.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	dir := flag.String("dir", "dist", "GoReleaser's output directory")
	version := flag.String("version", "", "the release's version (without the v)")
	check := flag.Bool("check", false, "only check that the plugin manifests carry a release version")
	flag.Parse()
	err := fmt.Errorf("no -version")
	if *version != "" {
		err = checkManifests(".", *version)
	}
	if !*check && err == nil {
		err = run(*dir, *version, ".")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dist: error:", err)
		os.Exit(1)
	}
}

// run writes the npm packages of version (checked already) from the binaries in dir.
func run(dir, version, repo string) error {
	bins, err := binaries(dir)
	if err != nil {
		return err
	}
	files, err := Packages(version, bins, repo)
	if err != nil {
		return err
	}
	out := dir + "/npm"
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(out+"/"+f.Name, f.Data, 0o644); err != nil {
			return err
		}
		fmt.Printf("dist: %s/%s\n", out, f.Name)
	}
	return nil
}
