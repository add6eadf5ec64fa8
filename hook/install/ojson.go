package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// object is a JSON object that keeps its keys in order, so that a settings file is written
// back with the user's keys where they were.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) del(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// parseJSON reads one JSON value into *object, []any, string, json.Number, bool or nil.
func parseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(kt.(string), v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token()
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil
	}
}

// encodeJSON writes v with two-space indentation, as Claude Code writes its settings.
func encodeJSON(v any) []byte {
	var b bytes.Buffer
	writeValue(&b, v, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, depth int) {
	indent := func(d int) { b.WriteString("\n" + strings.Repeat("  ", d)) }
	switch t := v.(type) {
	case *object:
		if len(t.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			writeString(b, k)
			b.WriteString(": ")
			writeValue(b, t.vals[k], depth+1)
		}
		indent(depth)
		b.WriteByte('}')
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			writeValue(b, e, depth+1)
		}
		indent(depth)
		b.WriteByte(']')
	case string:
		writeString(b, t)
	case json.Number:
		b.WriteString(t.String())
	case bool:
		fmt.Fprint(b, t)
	case int:
		fmt.Fprint(b, t)
	case int64:
		fmt.Fprint(b, t)
	case []Field:
		writeValue(b, fieldsObject(t), depth)
	case nil:
		b.WriteString("null")
	default:
		panic(fmt.Sprintf("install: cannot encode %T", v))
	}
}

func writeString(b *bytes.Buffer, s string) {
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Write(bytes.TrimSuffix(tmp.Bytes(), []byte("\n")))
}

// fieldsObject makes an object of fields, in order.
func fieldsObject(fs []Field) *object {
	o := newObject()
	for _, f := range fs {
		v := f.Value
		if sub, ok := v.([]Field); ok {
			v = fieldsObject(sub)
		}
		o.set(f.Key, v)
	}
	return o
}

// sameJSON reports whether a and b encode the same.
func sameJSON(a, b any) bool {
	return bytes.Equal(encodeJSON(normalize(a)), encodeJSON(normalize(b)))
}

// normalize turns values decoded by encoding/json (float64, map) into the forms
// encodeJSON writes.
func normalize(v any) any {
	switch t := v.(type) {
	case []Field:
		return fieldsObject(t)
	case float64:
		return json.Number(fmt.Sprint(t))
	case map[string]any:
		o := newObject()
		for k, e := range t {
			o.set(k, normalize(e))
		}
		return o
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}
