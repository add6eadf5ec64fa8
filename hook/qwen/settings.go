package qwen

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// settingsFiles are Qwen Code's settings files, highest precedence first: system, the
// project's (workspace), the user's, system defaults.
func settingsFiles(getenv func(string) string, project string) []string {
	system := getenv("QWEN_CODE_SYSTEM_SETTINGS_PATH")
	if system == "" {
		system = "/etc/qwen-code/settings.json"
	}
	defaults := getenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH")
	if defaults == "" {
		defaults = filepath.Join(filepath.Dir(system), "system-defaults.json")
	}
	files := []string{system}
	if project != "" {
		files = append(files, filepath.Join(project, ".qwen", "settings.json"))
	}
	if d, err := userDir(getenv); err == nil {
		files = append(files, filepath.Join(d, "settings.json"))
	}
	return append(files, defaults)
}

// readSettings reads one settings file (JSON with comments, after a byte order mark if
// any, as Qwen Code reads it); nil when it is missing or unreadable.
func readSettings(path string) map[string]json.RawMessage {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var m map[string]json.RawMessage
	if json.Unmarshal(stripComments(data), &m) != nil {
		return nil
	}
	return m
}

// blockCap is Qwen Code's cap on consecutive stop blocks as the session sees it, and what
// set it (the variable or the setting): $QWEN_CODE_STOP_HOOK_BLOCK_CAP when set, else
// stopHookBlockingCap from the settings of highest precedence that has it, else 8; clamped
// to 1..100 as Qwen Code does, a value it would not take giving 8.
func blockCap(getenv func(string) string, project string) (int, string) {
	if v := strings.TrimSpace(getenv(BlockCapEnv)); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f != math.Trunc(f) {
			return DefaultBlockCap, BlockCapEnv
		}
		return normalizeCap(f), BlockCapEnv
	}
	for _, f := range settingsFiles(getenv, project) {
		raw, ok := readSettings(f)[BlockCapSetting]
		if !ok {
			continue
		}
		var n float64
		if json.Unmarshal(raw, &n) != nil {
			return DefaultBlockCap, BlockCapSetting
		}
		return normalizeCap(n), BlockCapSetting
	}
	return DefaultBlockCap, BlockCapSetting
}

func normalizeCap(f float64) int {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return DefaultBlockCap
	}
	n := math.Floor(f)
	if n < 1 {
		return DefaultBlockCap
	}
	return int(math.Min(n, MaxBlockCap))
}

// stopTimeout is the timeout of ralph-loop's Stop hook in the settings (the longest, if
// several set one), or Qwen Code's default of 60 s. A command hook's timeout is in seconds,
// except that 1000 or more is milliseconds (Qwen Code's older unit).
func stopTimeout(getenv func(string) string, project string) time.Duration {
	var d time.Duration
	for _, f := range settingsFiles(getenv, project) {
		raw, ok := readSettings(f)["hooks"]
		if !ok {
			continue
		}
		var hooks struct {
			Stop []struct {
				Hooks []struct {
					Command string          `json:"command"`
					Timeout json.RawMessage `json:"timeout"`
				} `json:"hooks"`
			} `json:"Stop"`
		}
		if json.Unmarshal(raw, &hooks) != nil {
			continue
		}
		for _, g := range hooks.Stop {
			for _, h := range g.Hooks {
				if t := hookTimeout(h.Timeout); Installer.Ours(h.Command, nil) && t > d {
					d = t
				}
			}
		}
	}
	if d == 0 {
		return 60 * time.Second
	}
	return d
}

// hookTimeout is a command hook's timeout as Qwen Code reads the "timeout" value: seconds,
// or milliseconds from 1000 up; 0 when it is not a positive number (the default applies).
func hookTimeout(raw json.RawMessage) time.Duration {
	var v float64
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0
	}
	if v >= 1000 {
		return time.Duration(v * float64(time.Millisecond))
	}
	return time.Duration(v * float64(time.Second))
}

// stripComments blanks out // and /* */ comments outside strings, keeping every other byte
// (and so the offsets of errors).
func stripComments(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	inString, escaped := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i++
					break
				}
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
		}
	}
	return out
}
