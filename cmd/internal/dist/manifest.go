package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Manifests are the Claude Code plugin files that carry a version.
var Manifests = []string{".claude-plugin/marketplace.json", "plugins/ralph-loop/.claude-plugin/plugin.json"}

// checkManifests refuses a release version (X.Y.Z alone) that the plugin manifests do not
// carry: one version everywhere. Snapshots (pre-release, +dirty) are not checked.
func checkManifests(repo, version string) error {
	if strings.ContainsAny(version, "-+") {
		return nil
	}
	for _, m := range Manifests {
		vs, err := manifestVersions(filepath.Join(repo, m))
		if err != nil {
			return err
		}
		for _, v := range vs {
			if v != version {
				return fmt.Errorf("%s says version %q, the release is %s: a release carries the plugin's version; release %s, "+
					"or give the plugin %s first: go run ./cmd/internal/generate -plugin-version %s, and commit (docs/release.md)",
					m, v, version, v, version, version)
			}
		}
	}
	return nil
}

// manifestVersions are the "version" fields of a manifest (its own, and its plugins').
func manifestVersions(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m struct {
		Version string `json:"version"`
		Plugins []struct {
			Version string `json:"version"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []string
	if m.Version != "" {
		out = append(out, m.Version)
	}
	for _, p := range m.Plugins {
		if p.Version != "" {
			out = append(out, p.Version)
		}
	}
	return out, nil
}
