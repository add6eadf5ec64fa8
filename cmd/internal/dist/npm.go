package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/inject"
)

// Platform is one npm platform package: Node's process.platform and process.arch, and Go's.
type Platform struct {
	OS, CPU     string // npm's os and cpu: linux, x64
	GOOS, GOARC string
}

// Platforms are the targets of .goreleaser.yaml, as npm names them.
var Platforms = []Platform{
	{"linux", "x64", "linux", "amd64"},
	{"linux", "arm64", "linux", "arm64"},
	{"darwin", "x64", "darwin", "amd64"},
	{"darwin", "arm64", "darwin", "arm64"},
	{"win32", "x64", "windows", "amd64"},
	{"win32", "arm64", "windows", "arm64"},
}

// Name is the platform package's name: @ralph-loop/cli-linux-x64.
func (p Platform) Name() string { return inject.NPMPackage + "-" + p.OS + "-" + p.CPU }

// Exe is a program's file name in the package: ralph-loop, or its dashboard
// (inject.DashboardProgram).
func (p Platform) Exe(program string) string {
	if p.OS == "win32" {
		return program + ".exe"
	}
	return program
}

// Programs are the binaries a platform package carries, by GoReleaser's build id.
var Programs = []string{"ralph-loop", inject.DashboardProgram}

// File is one tarball.
type File struct {
	Name string // e.g. ralph-loop-cli-1.2.3.tgz (npm pack's naming)
	Data []byte
}

// TarballName is npm pack's file name for a package.
func TarballName(pkg, version string) string {
	return strings.ReplaceAll(strings.TrimPrefix(pkg, "@"), "/", "-") + "-" + version + ".tgz"
}

// binaries reads GoReleaser's artifacts.json: each build's binary for each GOOS_GOARCH, by
// the build's id (ralph-loop, ralph-loop-watch).
func binaries(dir string) (map[string]map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "artifacts.json"))
	if err != nil {
		return nil, fmt.Errorf("read GoReleaser's artifacts (run make dist): %w", err)
	}
	var arts []struct {
		Type, Path, Goos, Goarch string
		Extra                    struct{ ID string }
	}
	if err := json.Unmarshal(data, &arts); err != nil {
		return nil, fmt.Errorf("%s/artifacts.json: %w", dir, err)
	}
	out := map[string]map[string]string{}
	for _, a := range arts {
		if a.Type == "Binary" {
			t := a.Goos + "_" + a.Goarch
			if out[t] == nil {
				out[t] = map[string]string{}
			}
			out[t][a.Extra.ID] = a.Path
		}
	}
	return out, nil
}

// Packages makes the tarballs: a platform package for each platform with binaries in bins
// (GOOS_GOARCH -> build id -> path), with every one of Programs, and the main package, whose
// optionalDependencies name them all.
func Packages(version string, bins map[string]map[string]string, repo string) ([]File, error) {
	var files []File
	opt := map[string]string{}
	for _, p := range Platforms {
		opt[p.Name()] = version
		built, ok := bins[p.GOOS+"_"+p.GOARC]
		if !ok {
			continue
		}
		entries := map[string]entry{}
		for _, prog := range Programs {
			path, ok := built[prog]
			if !ok {
				return nil, fmt.Errorf("GoReleaser built no %s for %s_%s", prog, p.GOOS, p.GOARC)
			}
			bin, err := os.ReadFile(filepath.Join(repo, path))
			if err != nil {
				return nil, err
			}
			entries["bin/"+p.Exe(prog)] = entry{data: bin, mode: 0o755}
		}
		pj := ordered{
			{"name", p.Name()}, {"version", version},
			{"description", "The " + p.OS + " " + p.CPU + " binary of ralph-loop (installed by " + inject.NPMPackage + ")"},
			{"license", "MIT"}, {"repository", repository},
			{"os", []string{p.OS}}, {"cpu", []string{p.CPU}},
			{"preferUnplugged", true},
		}
		entries["package.json"] = entry{data: pj.json(), mode: 0o644}
		tgz, err := tarball(entries)
		if err != nil {
			return nil, err
		}
		files = append(files, File{TarballName(p.Name(), version), tgz})
	}
	if len(files) == 0 {
		return nil, errors.New("GoReleaser built no binary for any npm platform")
	}
	main := map[string]entry{
		"package.json":   {data: mainPackageJSON(version, opt), mode: 0o644},
		"bin/ralph-loop": {data: []byte(launcherJS), mode: 0o755},
		"lib.js":         {data: []byte(libJS()), mode: 0o644},
	}
	// The package's README is written for npm's users (the repository's starts with the
	// commands a developer of ralph-loop runs).
	for name, src := range map[string]string{"README.md": filepath.Join("cmd", "internal", "dist", "npm-readme.md"), "LICENSE": "LICENSE"} {
		b, err := os.ReadFile(filepath.Join(repo, src))
		if err != nil {
			return nil, err
		}
		main[name] = entry{data: b, mode: 0o644}
	}
	tgz, err := tarball(main)
	if err != nil {
		return nil, err
	}
	return append(files, File{TarballName(inject.NPMPackage, version), tgz}), nil
}

var repository = map[string]string{"type": "git", "url": "git+https://github.com/ralph-loop/ralph-loop.git"}

func mainPackageJSON(version string, opt map[string]string) []byte {
	return ordered{
		{"name", inject.NPMPackage}, {"version", version},
		{"description", "Keep a coding agent working on a task, in its current session, until it has really finished (the native ralph-loop binary)"},
		{"license", "MIT"}, {"repository", repository},
		{"homepage", "https://github.com/ralph-loop/ralph-loop#readme"},
		{"bin", map[string]string{"ralph-loop": "bin/ralph-loop"}},
		{"engines", map[string]string{"node": ">=18"}},
		{"optionalDependencies", opt},
	}.json()
}

// ordered is a JSON object whose keys keep their order.
type ordered []struct {
	k string
	v any
}

func (o ordered) json() []byte {
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, kv := range o {
		k, _ := json.Marshal(kv.k)
		v, _ := json.MarshalIndent(kv.v, "  ", "  ")
		fmt.Fprintf(&b, "  %s: %s", k, v)
		if i < len(o)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

type entry struct {
	data []byte
	mode int64
}

// npmTime is the time npm pack gives every entry (reproducible tarballs).
var npmTime = time.Date(1985, 10, 26, 8, 15, 0, 0, time.UTC)

// tarball is an npm package tarball: the files under package/, in name order.
func tarball(files map[string]entry) ([]byte, error) {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	for _, n := range names {
		f := files[n]
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + n, Mode: f.mode, Size: int64(len(f.data)), ModTime: npmTime, Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
