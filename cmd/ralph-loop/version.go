package main

import (
	_ "embed"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
)

// Set at build time by a release (GoReleaser, see .goreleaser.yaml):
// -ldflags "-X main.version=… -X main.commit=… -X main.date=…". The Makefile sets source
// instead, as git tells it ("HASH DATE [DESCRIBE] [dirty]", as in archive.txt), which works
// where Go records no VCS information (GOFLAGS=-buildvcs=false, a git worktree). A build
// with none of them (go build, go install) takes them from what Go records
// (debug.ReadBuildInfo), or in a source archive made by git archive from archive.txt.
var version, commit, date, source string

// archive is filled in by git archive (export-subst in .gitattributes): the commit, its date
// and git describe, in a source archive that has no .git to read them from.
//
//go:embed archive.txt
var archive string

// buildInfo is what "ralph-loop version" says: one version string everywhere, the one Go
// gives a module (the tag vX.Y.Z at a tag, else a pseudo-version, "+dirty" for uncommitted
// changes), printed without the "v" as npm and the plugin manifests write it.
type buildInfo struct {
	Version string // e.g. 1.2.3 or 0.0.0-20261126185928-03990d8a1b2c
	Commit  string // full hash, or "" when not known
	Date    string // the commit's time, RFC 3339 UTC, or ""
}

func getBuildInfo() buildInfo {
	bi, ok := debug.ReadBuildInfo()
	return resolveBuildInfo(version, commit, date, source, bi, ok, archive)
}

// getVersion is the version string alone.
func getVersion() string { return getBuildInfo().Version }

// resolveBuildInfo picks, field by field, the linker's value, else the Makefile's source,
// else Go's build info, else the source archive's.
func resolveBuildInfo(ver, com, dat, src string, bi *debug.BuildInfo, ok bool, arch string) buildInfo {
	out := buildInfo{Version: ver, Commit: com, Date: dat}
	if c, d, v, ok := parseArchive(src); ok {
		out = fill(out, c, d, v)
	}
	if ok && bi != nil {
		var rev, tm string
		var dirty bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				tm = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if out.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			out.Version = bi.Main.Version
		}
		if out.Version == "" && rev != "" {
			// A build Go did not stamp with a version (-buildvcs on, no module version):
			// the pseudo-version Go would give the commit.
			out.Version = pseudoVersion(rev, tm)
			if dirty {
				out.Version += "+dirty"
			}
		}
		if out.Commit == "" {
			out.Commit = rev
		}
		if out.Date == "" {
			out.Date = tm
		}
	}
	if c, d, v, ok := parseArchive(arch); ok {
		out = fill(out, c, d, v)
	}
	if out.Version == "" {
		out.Version = "devel"
	}
	out.Version = strings.TrimPrefix(out.Version, "v")
	if t, err := time.Parse(time.RFC3339, out.Date); err == nil {
		out.Date = t.UTC().Format(time.RFC3339)
	}
	return out
}

// fill sets the fields of b not yet known.
func fill(b buildInfo, commit, date, version string) buildInfo {
	if b.Commit == "" {
		b.Commit, b.Date = commit, date
	}
	if b.Version == "" {
		b.Version = version
	}
	return b
}

// pseudoVersion is Go's version for a commit that no tag names: v0.0.0-TIME-HASH12.
func pseudoVersion(rev, tm string) string {
	t, err := time.Parse(time.RFC3339, tm)
	if err != nil || len(rev) < 12 {
		return ""
	}
	return "v0.0.0-" + t.UTC().Format("20060102150405") + "-" + rev[:12]
}

// parseArchive reads archive.txt as git archive wrote it, "HASH DATE DESCRIBE", or the
// Makefile's source, which may add "dirty". In a checkout archive.txt still holds the
// unexpanded placeholder, and ok is false. The version is the one Go gives the commit: the
// tag when the commit is one (describe gives the tag alone), else a pseudo-version; with
// "+dirty" for uncommitted changes.
func parseArchive(s string) (commit, date, version string, ok bool) {
	f := strings.Fields(s)
	if len(f) < 2 || strings.Contains(s, "$Format") || len(f[0]) != 40 {
		return "", "", "", false
	}
	commit, date = f[0], f[1]
	version = pseudoVersion(commit, date)
	dirty := f[len(f)-1] == "dirty"
	if dirty {
		f = f[:len(f)-1]
	}
	defer func() {
		if dirty && version != "" {
			version += "+dirty"
		}
	}()
	if len(f) > 2 {
		tag, _, _ := strings.Cut(f[2], "-")
		var maj, min, patch int
		if n, _ := fmt.Sscanf(tag, "v%d.%d.%d", &maj, &min, &patch); n == 3 && fmt.Sprintf("v%d.%d.%d", maj, min, patch) == tag {
			if tag == f[2] {
				version = tag // the commit is the tag
			} else if t, err := time.Parse(time.RFC3339, date); err == nil {
				// After a tag: Go's pseudo-version from it.
				version = fmt.Sprintf("v%d.%d.%d-0.%s-%s", maj, min, patch+1, t.UTC().Format("20060102150405"), commit[:12])
			}
		}
	}
	return commit, date, version, true
}

// String is what "ralph-loop version" prints: the version, the commit and the build date
// (the commit's time: a build is reproducible, so it carries no clock reading of its own).
func (b buildInfo) String() string {
	s := "ralph-loop " + b.Version + "\n"
	if b.Commit != "" {
		s += "commit " + b.Commit + "\n"
	}
	if b.Date != "" {
		s += "built " + b.Date + "\n"
	}
	return s
}
