// Command dist writes the npm packages of a release into DIR/npm, from the binaries
// GoReleaser built into DIR (DIR/artifacts.json), at the same version: @ralph-loop/cli
// (inject.NPMPackage), whose optionalDependencies are one package per platform carrying
// os/cpu and the native binary, the way esbuild and Biome ship theirs. At a release version
// (no pre-release, no "+dirty") it first checks that the Claude Code plugin manifests say the
// same version. "make dist" runs it after GoReleaser.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	dir := flag.String("dir", "dist", "GoReleaser's output directory")
	version := flag.String("version", "", "the release's version (without the v)")
	flag.Parse()
	if err := run(*dir, *version, "."); err != nil {
		fmt.Fprintln(os.Stderr, "dist: error:", err)
		os.Exit(1)
	}
}

func run(dir, version, repo string) error {
	if version == "" {
		return fmt.Errorf("no -version")
	}
	if err := checkManifests(repo, version); err != nil {
		return err
	}
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
