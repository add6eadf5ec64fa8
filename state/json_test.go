package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// The state files are written and read with the lists of loopjson.go instead of
// encoding/json (see json.go). These tests hold the two to the same bytes and the same
// values: a field added to one of the types and not to its list, or listed with another
// name, option or place, fails them, naming the field.

// jsonTypes are the types written with the lists, each with a new value of its own.
var jsonTypes = map[string]func() fielder{
	"Loop":    func() fielder { return new(Loop) },
	"Event":   func() fielder { return new(Event) },
	"ToolUse": func() fielder { return new(ToolUse) },
	"witness": func() fielder { return new(witness) },
}

// TestJSONEveryField fills every field of each type (recursively) and requires the list's
// JSON to be encoding/json's, byte for byte, both indented and compact, and to read back as
// encoding/json reads it.
func TestJSONEveryField(t *testing.T) {
	for name, mk := range jsonTypes {
		t.Run(name, func(t *testing.T) {
			v := mk()
			fill(reflect.ValueOf(v).Elem(), rand.New(rand.NewPCG(1, 2)), 0, false)
			checkSame(t, name, v)
		})
	}
}

// TestJSONRandom does the same for many values with fields left zero or empty at random,
// which the omitempty and omitzero options leave out, and strings, numbers and times that
// need escapes and other forms.
func TestJSONRandom(t *testing.T) {
	for name, mk := range jsonTypes {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(300) {
				v := mk()
				fill(reflect.ValueOf(v).Elem(), rand.New(rand.NewPCG(seed, 7)), 0, true)
				if !checkSame(t, fmt.Sprintf("%s (seed %d)", name, seed), v) {
					return
				}
			}
		})
	}
}

// checkSame compares the lists' JSON of v with encoding/json's.
func checkSame(t *testing.T, what string, v fielder) bool {
	t.Helper()
	want, werr := json.MarshalIndent(v, "", "  ")
	got, gerr := marshalIndent(v)
	if (werr != nil) != (gerr != nil) {
		t.Errorf("%s: MarshalIndent error %v, the list's %v", what, werr, gerr)
		return false
	}
	if werr != nil {
		return true
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: the list's JSON is not encoding/json's%s\ngot:\n%s\nwant:\n%s", what, missing(got, want), got, want)
		return false
	}
	wantC, _ := json.Marshal(v)
	gotC, err := marshal(v)
	if err != nil || !bytes.Equal(gotC, wantC) {
		t.Errorf("%s: compact JSON differs (%v)\ngot:  %s\nwant: %s", what, err, gotC, wantC)
		return false
	}
	for _, data := range [][]byte{want, wantC} {
		back := reflect.New(reflect.TypeOf(v).Elem()).Interface().(fielder)
		if err := unmarshal(data, back); err != nil {
			t.Errorf("%s: the list cannot read encoding/json's JSON: %v\n%s", what, err, data)
			return false
		}
		ref := reflect.New(reflect.TypeOf(v).Elem()).Interface()
		if err := json.Unmarshal(data, ref); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !reflect.DeepEqual(back, ref) {
			t.Errorf("%s: read back differently from encoding/json%s\ngot:  %+v\nwant: %+v", what, differs(back, ref), back, ref)
			return false
		}
	}
	return true
}

// missing names the JSON names one output has and the other lacks.
func missing(got, want []byte) string {
	g, w := names(got), names(want)
	var out []string
	for n := range w {
		if !g[n] {
			out = append(out, n+" (not in the type's list in loopjson.go)")
		}
	}
	for n := range g {
		if !w[n] {
			out = append(out, n+" (listed in loopjson.go, but not a field)")
		}
	}
	if len(out) == 0 {
		return ""
	}
	sort.Strings(out)
	return ": " + strings.Join(out, ", ")
}

// names are the paths of the names in a JSON document, such as owner.pid.
func names(data []byte) map[string]bool {
	var v any
	json.Unmarshal(data, &v)
	out := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				out[prefix+k] = true
				walk(prefix+k+".", e)
			}
		case []any:
			for _, e := range v {
				walk(prefix, e)
			}
		}
	}
	walk("", v)
	return out
}

// differs names the struct fields where a and b differ.
func differs(a, b any) string {
	var out []string
	var walk func(path string, x, y reflect.Value)
	walk = func(path string, x, y reflect.Value) {
		if reflect.DeepEqual(x.Interface(), y.Interface()) {
			return
		}
		if x.Kind() == reflect.Struct && x.Type() != reflect.TypeOf(time.Time{}) {
			for i := range x.NumField() {
				if x.Type().Field(i).IsExported() {
					walk(path+"."+x.Type().Field(i).Name, x.Field(i), y.Field(i))
				}
			}
			return
		}
		out = append(out, path)
	}
	walk("", reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem())
	return ": " + strings.Join(out, ", ")
}

// Tricky values for the filler.
var (
	fillStrings = []string{"a", "ACTIVE", "<b>&amp;</b>", "tab\there\nnew line", `quote " and \ backslash`, "\x00\x01\x1f\x7f",
		"ünïcödé →", "\u2028\u2029", "bad \xff\xfe utf-8", "\xed\xa0\x80 surrogate", "emoji 🙂", "/slash/", "µs", strings.Repeat("x", 300)}
	fillFloats = []float64{1, 0.5, 123.456, 1e-7, 1e21, 1e20, 3.5e-300, -2.25, 0.000001, 12345678901234567890, math.Copysign(0, -1)}
	fillInts   = []int64{1, -1, 42, math.MaxInt64, math.MinInt64, 1 << 53, 100000000000}
	fillZones  = []*time.Location{time.UTC, time.FixedZone("", 3600), time.FixedZone("", -5*3600-1800)}
)

// fill sets v (and everything it holds) to non-zero values; with sparse, fields are left
// zero or empty at random as well.
func fill(v reflect.Value, r *rand.Rand, depth int, sparse bool) {
	if sparse && r.IntN(4) == 0 {
		v.SetZero()
		return
	}
	if v.Type() == reflect.TypeOf(time.Time{}) {
		t := time.Date(2000+r.IntN(60), time.Month(1+r.IntN(12)), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(2)*r.IntN(1e9), fillZones[r.IntN(len(fillZones))])
		v.Set(reflect.ValueOf(t))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fillStrings[r.IntN(len(fillStrings))])
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(fillInts[r.IntN(len(fillInts))])
	case reflect.Uint64:
		v.SetUint(uint64(1 + r.IntN(1<<30)))
	case reflect.Float64:
		v.SetFloat(fillFloats[r.IntN(len(fillFloats))])
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), r, depth+1, sparse)
		v.Set(p)
	case reflect.Slice:
		n := 1 + r.IntN(3)
		if sparse {
			n = r.IntN(3)
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(s.Index(i), r, depth+1, sparse)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for i := range 1 + r.IntN(3) {
			k := reflect.New(v.Type().Key()).Elem()
			k.SetString(fmt.Sprintf("%s-%d", fillStrings[r.IntN(len(fillStrings))], i))
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, r, depth+1, sparse)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), r, depth+1, sparse)
			}
		}
	default:
		panic("fill: no filler for " + v.Type().String())
	}
}

// FuzzLoopJSON reads the fuzzer's input as a loop file with the list (decodeLoop) and with
// encoding/json (the reading before issue 40, oldDecodeLoop): a file one reads, the other
// reads the same; a file only encoding/json reads gives a name twice, or spelled in another
// case, which the list refuses.
func FuzzLoopJSON(f *testing.F) {
	for seed := range uint64(20) {
		l := new(Loop)
		fill(reflect.ValueOf(l).Elem(), rand.New(rand.NewPCG(seed, 3)), 0, seed > 0)
		l.Version = Version
		data, _ := json.MarshalIndent(l, "", "  ")
		f.Add(data)
	}
	for _, s := range []string{`{"version":1,"loop_id":"l","session_id":"s","status":"ACTIVE"}`, `{"version":1,"Loop_ID":"l"}`,
		`{"version":1,"version":1}`, `{"version":2}`, `{"version":"1"}`, `null`, `[]`, `{"version":1,"max_time":null}`,
		`{"version":1,"loop_id":"l","session_id":"s","status":"A","tool_ids":[],"owner":{},"prices":{"m":{"input":1e400}}}`,
		`{"version":1,"loop_id":"\u00e9\ud83d\ude00\ud800x","session_id":"s","status":"A","max_time":1500}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, gerr := decodeLoop("f", data)
		want, werr := oldDecodeLoop("f", data)
		switch {
		case gerr == nil && werr == nil:
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("read differently%s\ngot:  %+v\nwant: %+v", differs(got, want), got, want)
			}
		case gerr == nil:
			t.Fatalf("the list reads what encoding/json refuses (%v): %+v", werr, got)
		case werr == nil || !errors.Is(werr, ErrVersion) && errors.Is(gerr, ErrVersion):
			if !twiceOrFolded(data) {
				t.Fatalf("refused %q (%v), which encoding/json reads as %v (%v)", data, gerr, want, werr)
			}
		case errors.Is(werr, ErrVersion) != errors.Is(gerr, ErrVersion) && !twiceOrFolded(data):
			t.Fatalf("errors of different kinds: %v, encoding/json's %v", gerr, werr)
		}
	})
}

// oldDecodeLoop is decodeLoop as it was with encoding/json.
func oldDecodeLoop(path string, data []byte) (*Loop, error) {
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if head.Version == nil {
		return nil, fmt.Errorf("%w: %s has no version", ErrCorrupt, path)
	}
	if *head.Version != Version {
		return nil, fmt.Errorf("%w: %s has version %d", ErrVersion, path, *head.Version)
	}
	var l Loop
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if l.SessionID == "" || l.LoopID == "" || l.Status == "" {
		return nil, fmt.Errorf("%w: %s lacks session_id, loop_id or status", ErrCorrupt, path)
	}
	return &l, nil
}

// twiceOrFolded reports whether a JSON document has an object with a name given twice, or
// two names that differ only in case (as encoding/json compares them).
func twiceOrFolded(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type obj struct {
		names []string
		key   bool // the next string token is a name
	}
	var stack []*obj
	found := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return found
		}
		var top *obj
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{':
				if top != nil && top.key {
					top.key = false // the object is a value
				}
				stack = append(stack, &obj{key: true})
				continue
			case '[':
				if top != nil && top.key {
					top.key = false
				}
				stack = append(stack, nil)
				continue
			case '}', ']':
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1] != nil {
					stack[len(stack)-1].key = true
				}
				continue
			}
		case string:
			if top != nil && top.key {
				if slices.ContainsFunc(top.names, func(n string) bool { return bytes.EqualFold([]byte(n), []byte(tok)) }) {
					found = true
				}
				top.names = append(top.names, tok)
				top.key = false
				continue
			}
		}
		if top != nil {
			top.key = true
		}
	}
}

// TestJSONClone copies values of each type with their lists (clone): the copy equals the
// value, and changing anything the copy holds, however deep, leaves the value as it was.
func TestJSONClone(t *testing.T) {
	for name, mk := range jsonTypes {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(100) {
				a, b := mk(), mk()
				fill(reflect.ValueOf(a).Elem(), rand.New(rand.NewPCG(seed, 9)), 0, seed > 0)
				fill(reflect.ValueOf(b).Elem(), rand.New(rand.NewPCG(seed, 9)), 0, seed > 0)
				c := mk()
				clone(c, a)
				if !reflect.DeepEqual(c, a) {
					t.Fatalf("seed %d: the copy differs%s", seed, differs(c, a))
				}
				scribble(reflect.ValueOf(c).Elem())
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("seed %d: changing the copy changed the value%s", seed, differs(a, b))
				}
			}
		})
	}
}

// scribble changes, in place, everything v holds: what its pointers point to, its slices'
// elements and its maps' values.
func scribble(v reflect.Value) {
	if v.Type() == reflect.TypeOf(time.Time{}) {
		v.Set(reflect.ValueOf(time.Unix(1, 0)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.Pointer:
		if !v.IsNil() {
			scribble(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			scribble(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			scribble(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				scribble(v.Field(i))
			}
		}
	}
}
