package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ralph-loop/ralph-loop/state"
)

// recordVersion is the schema version of record.json.
const recordVersion = 1

// Record is what install wrote at one scope of one host, kept outside the project in
// <state>/install/<host>-<scope>-<hash of the settings path>/record.json, so that
// uninstall removes exactly that: the hook command lines it wrote (wherever the binary has
// moved since), the settings it set, the files and directories it created, and what the
// command files held. The record directory also holds the backups.
type Record struct {
	Version  int    `json:"version"`
	Host     string `json:"host"`
	Scope    string `json:"scope"`
	Settings string `json:"settings"`
	// Commands are the hook command lines install wrote.
	Commands []string `json:"commands,omitempty"`
	// Set are the settings install set (absent before).
	Set []Setting `json:"set,omitempty"`
	// Kept are the key paths ("hooks", "hooks.Stop", "env") of the objects and lists install
	// added to that were in the file before it: uninstall leaves them, even empty, where
	// one install made is taken out once empty.
	Kept []string `json:"kept,omitempty"`
	// Added are the entries install added to lists (the sandbox's deny lists), and Made the
	// key paths of the objects and lists it made for them or for its sandbox settings.
	Added []Entry  `json:"added,omitempty"`
	Made  []string `json:"made,omitempty"`
	// Created are the files install created; Dirs the directories.
	Created []string `json:"created,omitempty"`
	Dirs    []string `json:"dirs,omitempty"`
	// Files maps a file install wrote to the sha256 of its content (also one another
	// scope's install on this machine wrote and this one shares).
	Files map[string]string `json:"files,omitempty"`
	// Replaced maps a file install replaced, one no install on this machine had written, to
	// what it held: uninstall puts it back.
	Replaced map[string]string `json:"replaced,omitempty"`
	// Extra is for an Extender's Extra (what it wrote, as it likes).
	Extra   map[string]string `json:"extra,omitempty"`
	Updated time.Time         `json:"updated"`
}

// RecordDir is where the record and backups of an install at a settings path are kept.
func RecordDir(stateDir, host, scope, settings string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(settings)))
	return filepath.Join(stateDir, "install", host+"-"+scope+"-"+hex.EncodeToString(sum[:6]))
}

func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// readRecord reads the record in dir (nil if there is none).
func readRecord(dir string) (*Record, error) {
	if dir == "" {
		return nil, nil
	}
	path := filepath.Join(dir, "record.json")
	data, _, err := readFile(path)
	if err != nil || data == nil {
		return nil, err
	}
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("read install record %s: %v", path, err)
	}
	if r.Version != recordVersion {
		return nil, fmt.Errorf("read install record %s: unknown version %d", path, r.Version)
	}
	return &r, nil
}

func (r *Record) write(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	r.Version = recordVersion
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return state.WriteFileAtomic(filepath.Join(dir, "record.json"), append(data, '\n'), 0o600)
}

func removeRecord(dir string) error {
	err := os.Remove(filepath.Join(dir, "record.json"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove install record: %w", err)
	}
	os.Remove(dir) // only if empty: backups stay
	return nil
}

// claim records a command file (or another of the host's files) as this install's, or not,
// after change c: when install writes it, or holds it already, or another scope's install on
// this machine wrote it (the scopes share it). A file found there as install would write
// it, which no install here wrote (a teammate's committed one), is not this install's.
func (r *Record) claim(path string, cf File, c Change, prev *Record, other otherInstall) {
	mine := prev != nil && prev.Files[path] != ""
	switch {
	case c.Action == "create" || c.Action == "update" || mine || other.scope != "":
		r.Files[path] = hashOf([]byte(cf.Content))
	default:
		delete(r.Files, path)
	}
	switch {
	case c.Action == "create":
		delete(r.Replaced, path)
	case c.Action == "update" && !mine && other.scope == "" && c.Old != nil:
		if r.Replaced == nil {
			r.Replaced = map[string]string{}
		}
		r.Replaced[path] = string(c.Old)
	}
}

func (r *Record) addCommand(c string) {
	if !slices.Contains(r.Commands, c) {
		r.Commands = append(r.Commands, c)
	}
}

func (r *Record) setRecorded(path []string) (Setting, bool) {
	for _, s := range r.Set {
		if slices.Equal(s.Path, path) {
			return s, true
		}
	}
	return Setting{}, false
}

func addUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// kept reports whether the object or list at a key path was in the file before install.
func (r *Record) kept(path ...string) bool {
	return r != nil && slices.Contains(r.Kept, strings.Join(path, "."))
}
