// Package wire decodes a host's hook event from JSON: the fields a host package asks for,
// read in one streaming pass that skips everything else (tool inputs and responses can be
// huge) without holding it, and a key that identifies the exact input.
package wire

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/ralph-loop/ralph-loop/hook/internal/jsonstream"
)

// MaxField bounds a string field kept from the input (a prompt, the last message).
const MaxField = 64 << 20

// MaxHead is how much of a Heads field is kept.
const MaxHead = 4 << 10

// ErrInput means the input is not one JSON object with the expected field types.
var ErrInput = errors.New("malformed hook input")

// Spec says which fields of an object to keep and where.
type Spec struct {
	// Strings are string fields; a value of another type is an error, null is skipped.
	Strings map[string]*string
	// Bools are boolean fields; a value of another type is an error, null is skipped.
	Bools map[string]*bool
	// Loose are string fields that are ignored when they hold another type (tool inputs,
	// whose schemas vary).
	Loose map[string]*string
	// Flags are boolean fields of tool inputs, whose schemas vary: false when false or null,
	// true for any other value (one that asks for something is not passed over).
	Flags map[string]*bool
	// Numbers are fields kept as their JSON text when they are numbers (ignored otherwise).
	Numbers map[string]*string
	// Heads are string fields of which only the first MaxHead bytes are kept (a tool's
	// output, read for how it starts); ignored when they hold another type.
	Heads map[string]*string
	// Objects are nested objects read with their own spec (ignored when not objects).
	Objects map[string]*Spec
	// Each are arrays of objects: for each object element (others are skipped), the
	// function returns the spec it is read with, until it returns nil (the elements after
	// are skipped). Ignored when not arrays.
	Each map[string]func() *Spec
}

// Decode reads one JSON object from r into spec and returns a key identifying the input:
// the hex SHA-256 of its bytes. Anything but a single object, or a field of the wrong
// type, is an error wrapping ErrInput.
func Decode(r io.Reader, spec *Spec) (string, error) {
	h := sha256.New()
	d := jsonstream.NewReader(io.TeeReader(r, h), 64<<10)
	if k, err := d.Kind(); err != nil || k != '{' {
		if err == io.ErrUnexpectedEOF {
			return "", fmt.Errorf("%w: empty input", ErrInput)
		}
		return "", fmt.Errorf("%w: not a JSON object", ErrInput)
	}
	if err := object(d, spec, ""); err != nil {
		return "", fmt.Errorf("%w: %v", ErrInput, err)
	}
	if end, err := d.AtEnd(); err != nil || !end {
		return "", fmt.Errorf("%w: data after the JSON object", ErrInput)
	}
	return sum(h), nil
}

// Unmarshal reads one JSON object of at most limit bytes from r into v with encoding/json
// (the events of a plugin of ralph-loop's own, whose shape it wrote) and returns its key, as
// Decode does. Input that is too large or does not fit v is an error wrapping ErrInput.
func Unmarshal(r io.Reader, limit int, v any) (string, error) {
	raw, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrInput, err)
	}
	if len(raw) > limit {
		return "", fmt.Errorf("%w: over %d MiB", ErrInput, limit>>20)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return "", fmt.Errorf("%w: %v", ErrInput, err)
	}
	h := sha256.New()
	h.Write(raw)
	return sum(h), nil
}

func sum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)[:16]) }

func object(d *jsonstream.Reader, spec *Spec, path string) error {
	return d.Object(func(key []byte) error {
		k, err := d.Kind()
		if err != nil {
			return err
		}
		name := string(key)
		if dst, ok := spec.Bools[name]; ok {
			switch k {
			case 'n':
				return d.Skip()
			case 't', 'f':
				*dst, err = d.Bool()
				return err
			}
			return fmt.Errorf("%s%s is not a boolean", path, name)
		}
		if dst, ok := spec.Strings[name]; ok {
			switch k {
			case 'n':
				return d.Skip()
			case '"':
				return str(d, dst, path+name)
			}
			return fmt.Errorf("%s%s is not a string", path, name)
		}
		if dst, ok := spec.Flags[name]; ok {
			*dst = k != 'f' && k != 'n'
			return d.Skip()
		}
		if dst, ok := spec.Loose[name]; ok && k == '"' {
			return str(d, dst, path+name)
		}
		if dst, ok := spec.Heads[name]; ok && k == '"' {
			v, err := d.String(nil, MaxHead)
			*dst = string(v)
			return err
		}
		if dst, ok := spec.Numbers[name]; ok && (k == '-' || k >= '0' && k <= '9') {
			v, err := d.Number(nil)
			if err != nil {
				return err
			}
			*dst = string(v)
			return nil
		}
		if sub, ok := spec.Objects[name]; ok && k == '{' {
			return object(d, sub, path+name+".")
		}
		if next, ok := spec.Each[name]; ok && k == '[' {
			return d.Array(func() error {
				if k, err := d.Kind(); err != nil || k != '{' {
					return d.Skip()
				}
				sub := next()
				if sub == nil {
					return d.Skip()
				}
				return object(d, sub, path+name+"[].")
			})
		}
		return d.Skip()
	})
}

func str(d *jsonstream.Reader, dst *string, name string) error {
	v, err := d.String(nil, MaxField+1)
	if err != nil {
		return err
	}
	if len(v) > MaxField {
		return fmt.Errorf("%s is longer than %d bytes", name, MaxField)
	}
	*dst = string(v)
	return nil
}

// WriteJSON writes v to w as one line of JSON, with <, > and & as they are (a promise
// marker reads as typed): every host's hook reply.
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
