package main

import (
	"runtime/debug"
	"testing"
)

// One version story: whatever the build, the version is the one Go gives the commit (the
// tag at a tag, else a pseudo-version; +dirty), without the "v", with the commit and its
// date; the linker's values (a release) win.
func TestResolveBuildInfo(t *testing.T) {
	const h = "03990d84a304bb99d54b4988ce57bfcdda822a20"
	const d = "2026-11-26T18:43:03Z"
	vcs := func(ver string, dirty string) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Version: ver}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: h}, {Key: "vcs.time", Value: d}, {Key: "vcs.modified", Value: dirty}}}
	}
	unexpanded := "$Format:%H %cI %(describe:tags)$\n"
	for _, tc := range []struct {
		name               string
		ver, com, dat, src string
		bi                 *debug.BuildInfo
		arch               string
		want               buildInfo
	}{
		{"release (GoReleaser)", "1.2.3", h, d, "", nil, unexpanded, buildInfo{"1.2.3", h, d}},
		{"make build, no tag", "", "", "", h + " " + d, nil, unexpanded, buildInfo{"0.0.0-20261126184303-03990d84a304", h, d}},
		{"make build, dirty", "", "", "", h + " " + d + " dirty", nil, unexpanded, buildInfo{"0.0.0-20261126184303-03990d84a304+dirty", h, d}},
		{"make build at a tag", "", "", "", h + " " + d + " v1.4.0", nil, unexpanded, buildInfo{"1.4.0", h, d}},
		{"make build after a tag", "", "", "", h + " " + d + " v1.4.0-3-g03990d8", nil, unexpanded, buildInfo{"1.4.1-0.20261126184303-03990d84a304", h, d}},
		{"make VERSION=2.0.0", "2.0.0", "", "", h + " " + d, nil, unexpanded, buildInfo{"2.0.0", h, d}},
		{"go build in a checkout", "", "", "", "", vcs("v0.0.0-20261126184303-03990d84a304", "false"), unexpanded, buildInfo{"0.0.0-20261126184303-03990d84a304", h, d}},
		{"go build, vcs but no version", "", "", "", "", vcs("(devel)", "true"), unexpanded, buildInfo{"0.0.0-20261126184303-03990d84a304+dirty", h, d}},
		{"go install @v1.2.3", "", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, unexpanded, buildInfo{"1.2.3", "", ""}},
		{"source archive", "", "", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, h + " 2026-11-26T19:43:03+01:00 v1.4.0-3-g03990d8\n", buildInfo{"1.4.1-0.20261126184303-03990d84a304", h, d}},
		{"source archive without tags", "", "", "", "", nil, h + " " + d + " \n", buildInfo{"0.0.0-20261126184303-03990d84a304", h, d}},
		{"nothing known", "", "", "", "", nil, unexpanded, buildInfo{"devel", "", ""}},
	} {
		got := resolveBuildInfo(tc.ver, tc.com, tc.dat, tc.src, tc.bi, tc.bi != nil, tc.arch)
		if got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
