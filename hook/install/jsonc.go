package install

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// A settings file is edited in place, as a careful person would by hand: the planner works
// on the decoded value (object, []any, …), and the difference between that value before
// and after is patched into the file's syntax tree (hujson, which keeps every byte of
// whitespace and every comment). Members and elements install adds go where the file's own
// layout would put them (its indentation, its line ending, one line or many), so that
// install changes only what it adds and uninstall, taking those out, gives the file back
// byte for byte.

// Syntax says what a host reads in its JSON settings beyond plain JSON.
type Syntax struct {
	// Comments: // and /* */ comments (Gemini CLI and Qwen Code read their settings
	// through stripJsonComments).
	Comments bool

	// BOM: a UTF-8 byte order mark at the start (Qwen Code strips one).
	BOM bool

	// Commas: a comma after the last member of an object or list. stripJsonComments keeps
	// one, and JSON.parse then fails (Gemini CLI stops on such a file).
	Commas bool
}

var bom = []byte("\xef\xbb\xbf")

// jsonDoc is a settings file as written: its syntax tree and its layout.
type jsonDoc struct {
	bom  bool
	root hujson.Value
	nl   string // "\n" or "\r\n"
	unit string // one level of indentation
	// compact: the file has no whitespace between its tokens at all.
	compact bool
}

// parseDoc reads a settings file: its syntax tree, and its value for the planner. A file
// whose syntax the host does not read (comments, a BOM) is refused, saying why.
func parseDoc(data []byte, syn Syntax, title string) (*jsonDoc, any, error) {
	d := &jsonDoc{nl: "\n", unit: "  "}
	if bytes.HasPrefix(data, bom) {
		if !syn.BOM {
			return nil, nil, fmt.Errorf("it starts with a byte order mark, which %s does not read", title)
		}
		d.bom, data = true, data[len(bom):]
	}
	tree, err := hujson.Parse(append([]byte(nil), data...))
	if err != nil {
		var line, col int
		msg := strings.TrimPrefix(err.Error(), "hujson: ")
		if n, _ := fmt.Sscanf(msg, "line %d, column %d:", &line, &col); n == 2 {
			_, rest, _ := strings.Cut(msg, ": ")
			return nil, nil, &docError{at: fmt.Sprintf("%d:%d", line, col), msg: rest}
		}
		return nil, nil, errors.New(msg)
	}
	comment, comma := extrasAt(data)
	if comment >= 0 && !syn.Comments {
		return nil, nil, &docError{at: lineCol(data, comment), msg: "a comment, which " + title + " does not read"}
	}
	if comma >= 0 && !syn.Commas {
		return nil, nil, &docError{at: lineCol(data, comma), msg: "a comma after the last member of an object or list, which " + title + " does not read"}
	}
	d.root = tree
	v, err := plainValue(data)
	if err != nil {
		return nil, nil, err
	}
	if bytes.Contains(data, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	d.unit = indentUnit(data)
	min := tree.Clone()
	min.Minimize()
	d.compact = len(min.Pack()) == len(bytes.TrimRight(data, " \t\r\n"))
	return d, v, nil
}

// extrasAt finds, in JSON that parsed (comments and trailing commas allowed), the byte
// offset of its first comment and of its first comma after the last member of an object or
// list (-1 for none).
func extrasAt(data []byte) (comment, comma int) {
	comment, comma = -1, -1
	lastComma := -1 // a comma with only white space and comments after it so far
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			lastComma = -1
		case c == '/' && i+1 < len(data) && (data[i+1] == '/' || data[i+1] == '*'):
			if comment < 0 {
				comment = i
			}
			end := []byte("\n")
			if data[i+1] == '*' {
				end = []byte("*/")
			}
			j := bytes.Index(data[i+2:], end)
			if j < 0 {
				return comment, comma
			}
			i += 2 + j + len(end) - 1
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 && comma < 0 {
				comma = lastComma
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			lastComma = -1
		}
	}
	return comment, comma
}

// docError is a fault of a settings file at a place in it (at: LINE:COLUMN, from 1, the
// column in bytes), as .ralph/settings.json's are said.
type docError struct {
	at, msg string
}

func (e *docError) Error() string { return e.at + ": " + e.msg }

// lineCol is "LINE:COLUMN" (from 1; the column in bytes) of a byte offset in data.
func lineCol(data []byte, off int) string {
	off = min(max(off, 0), len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("%d:%d", line, col)
}

// shapeError is a value of the settings at a key path that is not of the kind install needs
// there (an object, a list).
type shapeError struct {
	path []string
	want string
}

func (e *shapeError) Error() string {
	return fmt.Sprintf("%s is not a JSON %s", strings.Join(e.path, "."), e.want)
}

// offsetOf is the byte offset of the value at a key path in the file as it was read (-1
// when there is none).
func (d *jsonDoc) offsetOf(path []string) int {
	v := &d.root
	for _, key := range path {
		o, ok := v.Value.(*hujson.Object)
		if !ok {
			return -1
		}
		var next *hujson.Value
		for i := range o.Members {
			if name, ok := o.Members[i].Name.Value.(hujson.Literal); ok && name.String() == key {
				next = &o.Members[i].Value // the last of a key given twice, as the value has it
			}
		}
		if next == nil {
			return -1
		}
		v = next
	}
	return v.StartOffset
}

// plainValue decodes JSON that may hold comments, trailing commas or a BOM.
func plainValue(data []byte) (any, error) {
	data = bytes.TrimPrefix(data, bom)
	std, err := hujson.Standardize(append([]byte(nil), data...))
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "hujson: "))
	}
	return parseJSON(std)
}

// indentUnit is the indentation of the file's first indented line (a tab, or so many
// spaces), two spaces if none is.
func indentUnit(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n")) {
		n := len(line) - len(bytes.TrimLeft(line, " \t"))
		if n == 0 || n == len(bytes.TrimRight(line, "\r")) {
			continue
		}
		if line[0] == '\t' {
			return "\t"
		}
		return strings.Repeat(" ", n-len(bytes.TrimLeft(line[:n], " ")))
	}
	return "  "
}

// pack is the file with the tree as edited.
func (d *jsonDoc) pack() []byte {
	out := d.root.Pack()
	if d.bom {
		out = append(append([]byte(nil), bom...), out...)
	}
	return out
}

// patch edits the tree from the value before to the value after.
func (d *jsonDoc) patch(before, after any) {
	d.patchValue(&d.root, before, after, "", false)
}

// layout is how the members or elements of one object or array are laid out.
type layout struct {
	inline bool   // all on the line of the opening brace
	indent string // of each member's line (multi-line)
	sep    string // what goes before a member added after others (inline)
	colon  string // between a name and its value
}

func (d *jsonDoc) patchValue(v *hujson.Value, before, after any, indent string, inline bool) {
	if sameJSON(before, after) {
		return
	}
	switch t := v.Value.(type) {
	case *hujson.Object:
		if b, ok := before.(*object); ok {
			if a, ok := after.(*object); ok {
				d.patchObject(t, b, a, indent, inline)
				return
			}
		}
	case *hujson.Array:
		if b, ok := before.([]any); ok {
			if a, ok := after.([]any); ok {
				d.patchArray(t, b, a, indent, inline)
				return
			}
		}
	}
	v.Value = d.newValue(after, indent, inline).Value
}

// layoutOf finds how a container's members are laid out from their leading extras.
func (d *jsonDoc) layoutOf(befores []hujson.Extra, after hujson.Extra, indent string, parentInline bool) layout {
	l := layout{colon: " ", sep: " "}
	if d.compact {
		l.colon, l.sep = "", ""
	}
	if len(befores) == 0 {
		// An empty object or list: "{ }" stays on its line; otherwise members go on
		// lines of their own, one level in (from the closing brace's line, if it has one).
		l.inline = parentInline || len(after) > 0 && bytes.IndexByte(after, '\n') < 0
		l.indent = indent + d.unit
		if i := bytes.LastIndexByte(after, '\n'); i >= 0 && isSpace(after) {
			l.indent = string(after[i+1:]) + d.unit
		}
		return l
	}
	l.inline = true
	for _, b := range befores {
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			l.inline = false
			rest := b[i+1:]
			l.indent = string(rest[:len(rest)-len(bytes.TrimLeft(rest, " \t"))])
		}
	}
	if l.inline {
		l.indent = indent
		if len(befores) > 1 && isSpace(befores[len(befores)-1]) || d.compact {
			l.sep = string(befores[len(befores)-1])
		}
	}
	return l
}

func isSpace(b []byte) bool { return len(bytes.Trim(b, " \t\r\n")) == 0 }

// before is what goes before an added member: its line, or the inline separator.
func (d *jsonDoc) before(l layout, first bool) hujson.Extra {
	if l.inline {
		if first {
			return nil
		}
		return hujson.Extra(l.sep)
	}
	return hujson.Extra(d.nl + l.indent)
}

// item is one member or element of a container being rebuilt.
type item struct {
	name hujson.Value
	val  hujson.Value
	new  bool
}

// rebuild lays out a container's items: an added one gets the layout's leading extra, the
// last one keeps the container's trailing comma (or lack of one), and a container left
// empty loses the whitespace install gave it.
//
// A comment on the line of the last member stays with it: it is carried before the first
// member added after it, and back to the end when the members after it are taken out.
func (d *jsonDoc) rebuild(items []item, lead func(*item) *hujson.Extra, trailing bool, after *hujson.Extra, l layout, wasEmpty bool, removedTail hujson.Extra) {
	lineComment := func(b []byte) []byte {
		if i := bytes.IndexByte(b, '\n'); i >= 0 && !l.inline {
			if head := bytes.TrimRight(b[:i], "\r"); !isSpace(head) {
				return head
			}
		}
		return nil
	}
	appended := false
	for i := range items {
		if items[i].new {
			*lead(&items[i]) = d.before(l, i == 0)
			if i == 0 && wasEmpty && l.inline && len(*after) > 0 {
				*lead(&items[i]) = append(hujson.Extra{}, *after...) // "{ }": "{ a }"
			}
			if i > 0 && !items[i-1].new {
				if head := lineComment(*after); head != nil {
					*lead(&items[i]) = append(append(hujson.Extra{}, head...), *lead(&items[i])...)
					*after = append(hujson.Extra{}, (*after)[len(head):]...)
				}
			}
			appended = true
		}
	}
	if !appended && len(items) > 0 {
		if head := lineComment(removedTail); head != nil {
			*after = append(append(hujson.Extra{}, head...), *after...)
		}
	}
	if n := len(items); n > 0 {
		last := &items[n-1].val
		switch {
		case trailing && last.AfterExtra == nil:
			last.AfterExtra = hujson.Extra{}
		case !trailing:
			last.AfterExtra = nil
		}
		if wasEmpty && !l.inline && len(*after) == 0 {
			*after = hujson.Extra(d.nl + strings.TrimSuffix(l.indent, d.unit))
		}
	} else if string(*after) == d.nl+strings.TrimSuffix(l.indent, d.unit) {
		// What install gave "{}" to close on a line of its own. ("{\n}" written by
		// hand reads the same once filled, and comes back as "{}".)
		*after = nil
	}
}

func (d *jsonDoc) patchObject(o *hujson.Object, before, after *object, indent string, inline bool) {
	var befores []hujson.Extra
	for _, m := range o.Members {
		befores = append(befores, m.Name.BeforeExtra)
	}
	l := d.layoutOf(befores, o.AfterExtra, indent, inline)
	if len(o.Members) > 0 {
		if b := o.Members[len(o.Members)-1].Value.BeforeExtra; isSpace(b) {
			l.colon = string(b)
		}
	}
	trailing := len(o.Members) > 0 && o.Members[len(o.Members)-1].Value.AfterExtra != nil
	var items []item
	var removedTail hujson.Extra
	seen := map[string]bool{}
	for _, m := range o.Members {
		lit, _ := m.Name.Value.(hujson.Literal)
		k := lit.String()
		if seen[k] {
			items, removedTail = append(items, item{name: m.Name, val: m.Value}), nil
			continue
		}
		seen[k] = true
		a, ok := after.get(k)
		if !ok {
			if removedTail == nil {
				removedTail = append(hujson.Extra{}, m.Name.BeforeExtra...)
			}
			continue
		}
		removedTail = nil
		b, _ := before.get(k)
		mi := l.indent
		d.patchValue(&m.Value, b, a, mi, l.inline)
		items = append(items, item{name: m.Name, val: m.Value})
	}
	for _, k := range after.keys {
		if seen[k] {
			continue
		}
		nv := d.newValue(after.vals[k], l.indent, l.inline)
		nv.BeforeExtra = hujson.Extra(l.colon)
		items = append(items, item{name: hujson.Value{Value: hujson.String(k)}, val: nv, new: true})
	}
	wasEmpty := len(o.Members) == 0
	d.rebuild(items, func(it *item) *hujson.Extra { return &it.name.BeforeExtra }, trailing, &o.AfterExtra, l, wasEmpty, removedTail)
	o.Members = o.Members[:0:0]
	for _, it := range items {
		o.Members = append(o.Members, hujson.ObjectMember{Name: it.name, Value: it.val})
	}
}

func (d *jsonDoc) patchArray(a *hujson.Array, before, after []any, indent string, inline bool) {
	var befores []hujson.Extra
	for _, e := range a.Elements {
		befores = append(befores, e.BeforeExtra)
	}
	l := d.layoutOf(befores, a.AfterExtra, indent, inline)
	trailing := len(a.Elements) > 0 && a.Elements[len(a.Elements)-1].AfterExtra != nil
	n := min(len(before), len(a.Elements))
	pairs := lcs(before[:n], after)
	var items []item
	bi, ai := 0, 0
	flush := func(bEnd, aEnd int) {
		// Between two kept elements: the first ones on each side are the same element
		// changed, the rest removed or added.
		for bi < bEnd && ai < aEnd {
			e := a.Elements[bi]
			d.patchValue(&e, before[bi], after[ai], l.indent, l.inline)
			items = append(items, item{val: e})
			bi, ai = bi+1, ai+1
		}
		bi = bEnd
		for ; ai < aEnd; ai++ {
			items = append(items, item{val: d.newValue(after[ai], l.indent, l.inline), new: true})
		}
	}
	for _, p := range pairs {
		flush(p[0], p[1])
		items = append(items, item{val: a.Elements[p[0]]})
		bi, ai = p[0]+1, p[1]+1
	}
	flush(n, len(after))
	var removedTail hujson.Extra
	if k := len(pairs); k == 0 || pairs[k-1][0] < len(a.Elements)-1 {
		// Elements at the end are taken out (or changed): what led the first of them.
		first := 0
		if k > 0 {
			first = pairs[k-1][0] + 1
		}
		if first < len(a.Elements) && len(after) <= len(pairs) {
			removedTail = a.Elements[first].BeforeExtra
		}
	}
	d.rebuild(items, func(it *item) *hujson.Extra { return &it.val.BeforeExtra }, trailing, &a.AfterExtra, l, len(a.Elements) == 0, removedTail)
	a.Elements = a.Elements[:0:0]
	for _, it := range items {
		a.Elements = append(a.Elements, it.val)
	}
}

// lcs pairs the elements of a and b that stay, as a longest common subsequence.
func lcs(a, b []any) [][2]int {
	ea := make([]string, len(a))
	for i, v := range a {
		ea[i] = string(encodeJSON(normalize(v)))
	}
	eb := make([]string, len(b))
	for i, v := range b {
		eb[i] = string(encodeJSON(normalize(v)))
	}
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if ea[i] == eb[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case ea[i] == eb[j]:
			out = append(out, [2]int{i, j})
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

// newValue is v written in the file's layout, starting on a line indented by indent (or
// on one line).
func (d *jsonDoc) newValue(v any, indent string, inline bool) hujson.Value {
	var b bytes.Buffer
	d.write(&b, normalize(v), indent, inline)
	nv, err := hujson.Parse(b.Bytes())
	if err != nil {
		panic(fmt.Sprintf("install: wrote invalid JSON %q: %v", b.Bytes(), err))
	}
	return nv
}

func (d *jsonDoc) write(b *bytes.Buffer, v any, indent string, inline bool) {
	open := func(i int) {
		if inline {
			if i > 0 && !d.compact {
				b.WriteString(" ")
			}
			return
		}
		b.WriteString(d.nl + indent + d.unit)
	}
	closing := func() {
		if !inline {
			b.WriteString(d.nl + indent)
		}
	}
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
			open(i)
			writeString(b, k)
			b.WriteString(":")
			if !d.compact {
				b.WriteString(" ")
			}
			d.write(b, normalize(t.vals[k]), indent+d.unit, inline)
		}
		closing()
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
			open(i)
			d.write(b, normalize(e), indent+d.unit, inline)
		}
		closing()
		b.WriteByte(']')
	default:
		writeValue(b, t, 0)
	}
}
