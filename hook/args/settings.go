package args

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ralph-loop/ralph-loop/spend"
	"github.com/ralph-loop/ralph-loop/state"
)

// Per-project defaults, relative to the project directory. Both may set any loop flag, by
// its name without the dashes ("max-iterations": 40, "check": ["make test"]).
const (
	ProjectSettings = ".ralph/settings.json"       // committed
	LocalSettings   = ".ralph/settings.local.json" // not committed
)

// ErrSetting marks an error in what a settings file says (not JSON, an unknown key, a bad
// value), as against one reading it: ralph-loop start exits with it as with a bad flag.
var ErrSetting = errors.New("bad setting")

// settingError is an error in what a settings file says, at a place in it
// ("NAME:LINE:COLUMN").
type settingError struct {
	at  string
	err error
}

func (e settingError) Error() string        { return e.at + ": " + e.err.Error() }
func (e settingError) Unwrap() error        { return e.err }
func (e settingError) Is(target error) bool { return target == ErrSetting }

// Resolve builds a loop's settings: the built-in defaults, then the project's settings,
// then the local ones, then the flags typed with the command. Objects merge recursively
// and arrays replace. Unknown keys and bad values are errors, naming the file. Config.Sources
// records where each value came from.
func Resolve(p Parsed, projectDir string) (state.Config, error) {
	cfg := state.DefaultConfig()
	cfg.Sources = map[string]string{}
	for _, f := range LoopFlags() {
		cfg.Sources[f] = "default"
	}
	var merged map[string]any
	origin := map[string]string{} // the file each key comes from
	at := map[string]string{}     // and where in it: NAME:LINE:COLUMN
	for _, name := range []string{ProjectSettings, LocalSettings} {
		layer, where, err := readSettings(filepath.Join(projectDir, name), name)
		if err != nil {
			return cfg, err
		}
		for k := range layer {
			origin[k], at[k] = name, where[k]
			if at[k] == "" {
				at[k] = name
			}
		}
		merged = mergeJSON(merged, layer).(map[string]any)
	}
	keys := make([]string, 0, len(merged))
	for k := range merged {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "version" {
			if v, ok := merged[k].(json.Number); !ok || v.String() != "1" {
				return cfg, settingError{at[k], errors.New(`"version" must be 1`)}
			}
			continue
		}
		if k == SettingPrices || k == SettingUnpriced {
			// The user's own settings alone say what a model costs (UserSettings): a
			// project's file is one the agent can write. Still checked, and named as
			// not used when the loop is armed.
			if err := checkUserSetting(k, merged[k]); err != nil {
				return cfg, settingError{at[k], err}
			}
			cfg.Sources[k] = origin[k]
			continue
		}
		if err := applySetting(&cfg, k, merged[k]); err != nil {
			return cfg, settingError{at[k], err}
		}
		cfg.Sources[k] = origin[k]
	}
	// The flags typed win; checks typed replace the settings' list.
	cfg.Task, cfg.Mode, cfg.TaskFrom = p.Config.Task, p.Config.Mode, p.Config.TaskFrom
	if p.Given[FlagCheck] {
		cfg.Checks = nil
	}
	for _, kv := range p.values {
		if err := setConfig(&cfg, kv[0], kv[1]); err != nil {
			return cfg, fmt.Errorf("--%s: %w", kv[0], err) // Parse accepted it already
		}
		cfg.Sources[kv[0]] = "flag"
	}
	return cfg, validate(cfg)
}

// UserSettingsName names the user's own settings file for people.
const UserSettingsName = "~/.config/ralph-loop/settings.json"

// UserSettings reads the user's own settings file at path ($XDG_CONFIG_HOME/ralph-loop/
// settings.json; a missing file is no settings): the prices of models ("prices") and what
// an unpriced model does to a cost budget ("unpriced"). They are the user's alone: a
// project's settings, which the agent can write, never say what a model costs nor pause a
// loop. Any other key is an error, naming the file.
func UserSettings(path string) (prices map[string]spend.Price, unpriced string, err error) {
	name := path
	m, where, err := readSettings(path, name)
	if err != nil {
		return nil, "", err
	}
	for k, v := range m {
		at := where[k]
		if at == "" {
			at = name
		}
		switch k {
		case "version":
			if n, ok := v.(json.Number); !ok || n.String() != "1" {
				return nil, "", settingError{at, errors.New(`"version" must be 1`)}
			}
		case SettingPrices:
			if prices, err = priceSetting(v); err != nil {
				return nil, "", settingError{at, err}
			}
		case SettingUnpriced:
			if unpriced, err = unpricedSetting(v); err != nil {
				return nil, "", settingError{at, err}
			}
		default:
			return nil, "", settingError{at, fmt.Errorf("unknown setting %q (your own settings hold %q and %q; the loop flags go in a project's %s)",
				k, SettingPrices, SettingUnpriced, ProjectSettings)}
		}
	}
	return prices, unpriced, nil
}

// checkUserSetting checks a setting of the user's own that a project's file holds.
func checkUserSetting(k string, v any) error {
	var err error
	if k == SettingPrices {
		_, err = priceSetting(v)
	} else {
		_, err = unpricedSetting(v)
	}
	return err
}

// SettingUnpriced is the user's setting of what a model with no known price does under a
// cost budget: "bound" (the default: its tokens count at the highest prices ralph-loop
// knows, so the budget is never overrun, and the loop goes on) or "pause" (the loop waits
// for the user's price, letting the stop through).
const SettingUnpriced = "unpriced"

// Values of SettingUnpriced (state.Config.Unpriced).
const (
	UnpricedBound = "bound"
	UnpricedPause = state.UnpricedPause
)

func unpricedSetting(v any) (string, error) {
	switch v {
	case UnpricedBound:
		return "", nil
	case UnpricedPause:
		return UnpricedPause, nil
	}
	return "", fmt.Errorf("%q must be %q or %q", SettingUnpriced, UnpricedBound, UnpricedPause)
}

// SettingPrices is the settings' key for the user's prices, by model: {"prices": {"MODEL":
// {"input": 4, "cache_write": 5, "cache_read": 0.2, "output": 20}}}, USD per million tokens,
// over the embedded table (ralph-loop prices).
const SettingPrices = "prices"

// priceKinds are the four prices each model of "prices" must have.
var priceKinds = []string{"input", "cache_write", "cache_read", "output"}

// priceSetting reads the "prices" setting.
func priceSetting(v any) (map[string]spend.Price, error) {
	models, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%q must be an object of models, each {%s}", SettingPrices, strings.Join(priceKinds, ", "))
	}
	out := map[string]spend.Price{}
	for model, pv := range models {
		kinds, ok := pv.(map[string]any)
		if strings.TrimSpace(model) == "" || !ok {
			return nil, fmt.Errorf("%q: %q must be an object {%s} of USD per million tokens", SettingPrices, model, strings.Join(priceKinds, ", "))
		}
		var f [4]float64
		for k := range kinds {
			if !slices.Contains(priceKinds, k) {
				return nil, fmt.Errorf("%q: %q: unknown price %q (the prices are %s)", SettingPrices, model, k, strings.Join(priceKinds, ", "))
			}
		}
		for i, k := range priceKinds {
			n, ok := kinds[k].(json.Number)
			if !ok {
				return nil, fmt.Errorf("%q: %q: %q must be a number of USD per million tokens", SettingPrices, model, k)
			}
			x, err := n.Float64()
			if err != nil || x < 0 || x > MaxCost {
				return nil, fmt.Errorf("%q: %q: %q must be from 0 to %d USD per million tokens", SettingPrices, model, k, MaxCost)
			}
			f[i] = x
		}
		out[model] = spend.Price{Input: f[0], CacheWrite: f[1], CacheRead: f[2], Output: f[3]}
	}
	return out, nil
}

// MaxSettingsSize bounds a settings file.
const MaxSettingsSize = 1 << 20

// readSettings reads one settings file, name as the user knows it: its keys, and where each
// is in it (NAME:LINE:COLUMN); a missing file is empty. Only a regular file (maybe through a
// link) of at most MaxSettingsSize is read: a repository's link to /dev/zero or a FIFO is
// refused, never read forever or waited on.
func readSettings(path, name string) (map[string]any, map[string]string, error) {
	data, err := state.ReadRegular(path, MaxSettingsSize)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read settings: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		off := dec.InputOffset()
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case err == nil, errors.As(err, &typ):
			err, off = errors.New("not a JSON object"), 0
		case errors.As(err, &syn):
			off = syn.Offset - 1 // the byte it stopped at
		}
		return nil, nil, settingError{name + ":" + lineCol(data, int(off)), err}
	}
	if dec.More() {
		return nil, nil, settingError{name + ":" + lineCol(data, int(dec.InputOffset())), errors.New("data after the JSON object")}
	}
	where := map[string]string{}
	for k, off := range keyOffsets(data) {
		where[k] = name + ":" + lineCol(data, off)
	}
	return m, where, nil
}

// keyOffsets are the byte offsets of the top-level keys of a JSON object (of the last, for
// a key given twice: the value decoding keeps).
func keyOffsets(data []byte) map[string]int {
	out := map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return out
	}
	for dec.More() {
		start := int(dec.InputOffset())
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			return out
		}
		for start < len(data) && data[start] != '"' {
			start++ // past the comma and the white space before the key
		}
		out[key] = start
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return out
		}
	}
	return out
}

// lineCol is "LINE:COLUMN" (from 1; the column in bytes) of a byte offset in data.
func lineCol(data []byte, off int) string {
	off = min(max(off, 0), len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("%d:%d", line, col)
}

// mergeJSON lays b over a: objects merge key by key, recursively; anything else in b
// (arrays included) replaces what a had.
func mergeJSON(a, b any) any {
	ao, aok := a.(map[string]any)
	bo, bok := b.(map[string]any)
	if !bok {
		if b == nil {
			return a
		}
		return b
	}
	if !aok {
		ao = map[string]any{}
	}
	out := make(map[string]any, len(ao)+len(bo))
	for k, v := range ao {
		out[k] = v
	}
	for k, v := range bo {
		out[k] = mergeJSON(out[k], v)
	}
	return out
}

// applySetting sets one loop setting from a settings file's value.
func applySetting(c *state.Config, key string, v any) error {
	if !known(key) {
		if s := suggest(key, Options{}); s != "" {
			return fmt.Errorf("unknown setting %q (did you mean %q?)", key, s)
		}
		if distance(key, SettingPrices) <= 2 {
			return fmt.Errorf("unknown setting %q (did you mean %q?)", key, SettingPrices)
		}
		return fmt.Errorf("unknown setting %q (settings take the loop flags' names: %s; and %q)", key, strings.Join(LoopFlags(), ", "), SettingPrices)
	}
	if key == FlagCheck {
		c.Checks = nil
		var list []any
		switch t := v.(type) {
		case string:
			list = []any{t}
		case []any:
			list = t
		default:
			return fmt.Errorf("%q must be a command or a list of commands", key)
		}
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("%q must be a command or a list of commands", key)
			}
			if err := setConfig(c, key, s); err != nil {
				return fmt.Errorf("%q: %w", key, err)
			}
		}
		return nil
	}
	var s string
	f, _ := lookup(key, Options{})
	switch t := v.(type) {
	case bool:
		if f.Arg != "" {
			return fmt.Errorf("%q must be a string or a number", key)
		}
		s = strconv.FormatBool(t)
	case string:
		s = t
	case json.Number:
		s = t.String()
	default:
		if f.Arg == "" {
			return fmt.Errorf("%q must be true or false", key)
		}
		return fmt.Errorf("%q must be a string or a number", key)
	}
	if f.Arg == "" && s != "true" && s != "false" {
		return fmt.Errorf("%q must be true or false", key)
	}
	if err := setConfig(c, key, s); err != nil {
		return fmt.Errorf("%q: %w", key, err)
	}
	return nil
}
