package args

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestSettingsErrorPlace: a settings file's mistake is named at its line and column (of the
// key, for a bad key or value; of the byte where decoding stopped, for bad JSON), and is an
// ErrSetting, which a file that cannot be read is not.
func TestSettingsErrorPlace(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"unknown key", "{\n  \"check\": \"x\",\n  \"max-iteration\": 4\n}", `.ralph/settings.json:3:3: unknown setting "max-iteration" (did you mean "max-iterations"?)`},
		{"bad value", "{\"check\": \"x\", \"max-iterations\": 0}", `.ralph/settings.json:1:16: "max-iterations": "0" must be at least 1`},
		{"trailing comma", "{\n\t\"max-iterations\": 4,\n}", `.ralph/settings.json:3:1: invalid character '}' looking for beginning of object key string`},
		{"not an object", "\n[1]", `.ralph/settings.json:1:1: not a JSON object`},
		{"after the object", "{}\n{}", `.ralph/settings.json:2:1: data after the JSON object`},
		{"key twice", "{\"max-iterations\": 3,\n \"max-iterations\": 0}", `.ralph/settings.json:2:2: "max-iterations": "0" must be at least 1`},
		{"escaped key", "{\"max\\u002diteration\": 3}", `.ralph/settings.json:1:2: unknown setting "max-iteration" (did you mean "max-iterations"?)`},
		{"prices typo", "{\"price\": {}}", `.ralph/settings.json:1:2: unknown setting "price" (did you mean "prices"?)`},
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".ralph"), 0o755)
		if err := os.WriteFile(filepath.Join(dir, ProjectSettings), []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Resolve(Parsed{}, dir)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrSetting) {
			t.Errorf("%s: got %v (ErrSetting %v), want %q", c.name, err, errors.Is(err, ErrSetting), c.want)
		}
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ProjectSettings), 0o755) // a directory: not readable as a file
	if _, err := Resolve(Parsed{}, dir); err == nil || errors.Is(err, ErrSetting) {
		t.Errorf("unreadable settings: got %v, want an error that is not ErrSetting", err)
	}
}
