package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tailscale/hujson"
)

// JSON and JSONC files (VS Code's and Zed's settings have comments and
// trailing commas) are edited through hujson's syntax tree, which keeps
// every byte it is not asked to change: comments, blank lines, key order,
// indentation. What git konteks inserts is indented like its siblings.

// parseJSONC parses a JSON or JSONC document; an empty one is {}.
func parseJSONC(src []byte) (hujson.Value, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return hujson.Value{Value: &hujson.Object{}}, nil
	}
	v, err := hujson.Parse(src)
	if err != nil {
		return hujson.Value{}, fmt.Errorf("not valid JSON (%v)", err)
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return hujson.Value{}, fmt.Errorf("not valid JSON for this file: the document is not an object")
	}
	return v, nil
}

// packJSONC is the document's bytes; a document git konteks created from
// nothing ends with a newline.
func packJSONC(v hujson.Value, created bool) []byte {
	b := v.Pack()
	if created && !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	return b
}

// member returns the index of the member named key in obj, or -1.
func member(obj *hujson.Object, key string) int {
	for i, m := range obj.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == key {
			return i
		}
	}
	return -1
}

// indentOf is the indentation of the line pos is on.
func indentOf(extra []byte) string {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 {
		return ""
	}
	return string(extra[i+1:])
}

// unitOf guesses the document's indentation unit (two spaces if it has
// no indented line).
func unitOf(src []byte) string {
	for _, line := range strings.Split(string(src), "\n") {
		t := strings.TrimLeft(line, " \t")
		if t != "" && len(t) < len(line) {
			return line[:len(line)-len(t)]
		}
	}
	return "  "
}

// formatted is v as a hujson value indented for a place at depth indent.
func formatted(v any, indent, unit string) (hujson.Value, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, unit)
	if err := enc.Encode(v); err != nil {
		return hujson.Value{}, err
	}
	hv, err := hujson.Parse(bytes.TrimSpace(buf.Bytes()))
	if err != nil {
		return hujson.Value{}, err
	}
	return hv, nil
}

// objectAt returns the object at path below root, creating empty objects
// on the way when create is set (nil when absent and not created, or when
// something on the path is not an object).
func objectAt(root *hujson.Value, path []string, unit string, create bool) (*hujson.Value, error) {
	cur := root
	indent := ""
	for _, key := range path {
		obj, ok := cur.Value.(*hujson.Object)
		if !ok {
			return nil, fmt.Errorf("%s is not an object", strings.Join(path, "."))
		}
		i := member(obj, key)
		if i < 0 {
			if !create {
				return nil, nil
			}
			nv, err := formatted(map[string]any{}, indent+unit, unit)
			if err != nil {
				return nil, err
			}
			appendMember(obj, key, nv, indent, unit)
			i = len(obj.Members) - 1
		}
		cur = &obj.Members[i].Value
		indent += unit
	}
	if _, ok := cur.Value.(*hujson.Object); !ok {
		return nil, fmt.Errorf("%s is not an object", strings.Join(path, "."))
	}
	return cur, nil
}

// appendMember adds key: v as the last member of obj, whose members sit
// at indent+unit.
func appendMember(obj *hujson.Object, key string, v hujson.Value, indent, unit string) {
	before := "\n" + indent + unit
	trailing := false
	if n := len(obj.Members); n > 0 {
		before = "\n" + indentOf(obj.Members[n-1].Name.BeforeExtra)
		trailing = obj.Members[n-1].Value.AfterExtra != nil
	} else if len(bytes.TrimSpace(obj.AfterExtra)) == 0 {
		obj.AfterExtra = []byte("\n" + indent)
	}
	v.BeforeExtra = []byte(" ")
	v.AfterExtra = nil
	if trailing {
		v.AfterExtra = []byte{}
	}
	obj.Members = append(obj.Members, hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: []byte(before), Value: hujson.String(key)},
		Value: v,
	})
}

// depth is the indentation of the members of the object at path.
func depth(path []string, unit string) string { return strings.Repeat(unit, len(path)) }

// setMember sets path.name to v in a JSONC document, creating the objects
// on the path; the document is unchanged when it already says the same.
func setMember(src []byte, path []string, name string, v any) ([]byte, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	unit := unitOf(src)
	parent, err := objectAt(&root, path, unit, true)
	if err != nil {
		return nil, err
	}
	obj := parent.Value.(*hujson.Object)
	indent := depth(path, unit)
	nv, err := formatted(v, indent+unit, unit)
	if err != nil {
		return nil, err
	}
	if i := member(obj, name); i >= 0 {
		if jsonEqual(obj.Members[i].Value, v) {
			return src, nil
		}
		nv.BeforeExtra = obj.Members[i].Value.BeforeExtra
		nv.AfterExtra = obj.Members[i].Value.AfterExtra
		obj.Members[i].Value = nv
	} else {
		appendMember(obj, name, nv, indent, unit)
	}
	return packJSONC(root, len(bytes.TrimSpace(src)) == 0), nil
}

// removeMember removes path.name from a JSONC document, and the objects on
// the path that are left empty and were made for it (keep says which
// objects stay even empty: the document's own).
func removeMember(src []byte, path []string, name string) ([]byte, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	parent, err := objectAt(&root, path, "", false)
	if err != nil || parent == nil {
		return src, err
	}
	obj := parent.Value.(*hujson.Object)
	i := member(obj, name)
	if i < 0 {
		return src, nil
	}
	removeAt(obj, i)
	pruneEmpty(&root, path)
	return root.Pack(), nil
}

// removeAt removes member i of obj, keeping the trailing comma as it was.
func removeAt(obj *hujson.Object, i int) {
	last := i == len(obj.Members)-1
	trailing := obj.Members[len(obj.Members)-1].Value.AfterExtra != nil
	obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
	if n := len(obj.Members); last && n > 0 {
		obj.Members[n-1].Value.AfterExtra = keepComma(obj.Members[n-1].Value.AfterExtra, trailing)
	}
	if len(obj.Members) == 0 && len(bytes.TrimSpace(obj.AfterExtra)) == 0 {
		obj.AfterExtra = nil
	}
}

// keepComma is the extra after a value that is now the last: non-nil
// (hujson's mark of a trailing comma) when the list had one.
func keepComma(extra []byte, trailing bool) []byte {
	switch {
	case !trailing:
		return nil
	case extra == nil:
		return []byte{}
	}
	return extra
}

// pruneEmpty removes the objects along path, innermost first, that hold
// nothing (no member, no comment).
func pruneEmpty(root *hujson.Value, path []string) {
	for n := len(path); n > 0; n-- {
		parent, err := objectAt(root, path[:n-1], "", false)
		if err != nil || parent == nil {
			return
		}
		obj := parent.Value.(*hujson.Object)
		i := member(obj, path[n-1])
		if i < 0 {
			return
		}
		child, ok := obj.Members[i].Value.Value.(*hujson.Object)
		if !ok || len(child.Members) > 0 || len(bytes.TrimSpace(child.AfterExtra)) > 0 {
			return
		}
		removeAt(obj, i)
	}
}

// jsonEqual reports whether the JSONC value hv means v.
func jsonEqual(hv hujson.Value, v any) bool {
	c := hv.Clone()
	c.Standardize()
	var a, b any
	if json.Unmarshal(c.Pack(), &a) != nil {
		return false
	}
	raw, err := json.Marshal(v)
	if err != nil || json.Unmarshal(raw, &b) != nil {
		return false
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// arrayAt returns the array at path (created when create is set).
func arrayAt(root *hujson.Value, path []string, unit string, create bool) (*hujson.Array, string, error) {
	parent, err := objectAt(root, path[:len(path)-1], unit, create)
	if err != nil || parent == nil {
		return nil, "", err
	}
	obj := parent.Value.(*hujson.Object)
	key := path[len(path)-1]
	indent := depth(path[:len(path)-1], unit)
	i := member(obj, key)
	if i < 0 {
		if !create {
			return nil, "", nil
		}
		nv, err := formatted([]any{}, indent+unit, unit)
		if err != nil {
			return nil, "", err
		}
		appendMember(obj, key, nv, indent, unit)
		i = len(obj.Members) - 1
	}
	arr, ok := obj.Members[i].Value.Value.(*hujson.Array)
	if !ok {
		return nil, "", fmt.Errorf("%s is not an array", strings.Join(path, "."))
	}
	return arr, indent + unit, nil
}

// appendElement adds v to the array at path unless an element mine
// recognises is there already (then the document is unchanged).
func appendElement(src []byte, path []string, v any, mine func(any) bool) ([]byte, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	unit := unitOf(src)
	arr, indent, err := arrayAt(&root, path, unit, true)
	if err != nil {
		return nil, err
	}
	for _, e := range arr.Elements {
		if mine(decoded(e)) {
			if jsonEqual(e, v) {
				return src, nil
			}
		}
	}
	nv, err := formatted(v, indent+unit, unit)
	if err != nil {
		return nil, err
	}
	before := "\n" + indent + unit
	trailing := false
	if n := len(arr.Elements); n > 0 {
		before = "\n" + indentOf(arr.Elements[n-1].BeforeExtra)
		trailing = arr.Elements[n-1].AfterExtra != nil
	} else if len(bytes.TrimSpace(arr.AfterExtra)) == 0 {
		arr.AfterExtra = []byte("\n" + indent)
	}
	// Replace an outdated element of ours rather than add a second.
	kept := arr.Elements[:0]
	for _, e := range arr.Elements {
		if !mine(decoded(e)) {
			kept = append(kept, e)
		}
	}
	arr.Elements = kept
	nv.BeforeExtra = []byte(before)
	nv.AfterExtra = nil
	if trailing {
		nv.AfterExtra = []byte{}
	}
	arr.Elements = append(arr.Elements, nv)
	return packJSONC(root, len(bytes.TrimSpace(src)) == 0), nil
}

// removeElements removes the elements of the array at path that mine
// recognises, then the array and objects left empty on the path.
func removeElements(src []byte, path []string, mine func(any) bool) ([]byte, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	arr, _, err := arrayAt(&root, path, "", false)
	if err != nil || arr == nil {
		return src, err
	}
	trailing := len(arr.Elements) > 0 && arr.Elements[len(arr.Elements)-1].AfterExtra != nil
	kept := arr.Elements[:0]
	for _, e := range arr.Elements {
		if !mine(decoded(e)) {
			kept = append(kept, e)
		}
	}
	arr.Elements = kept
	if n := len(kept); n > 0 {
		arr.Elements[n-1].AfterExtra = keepComma(arr.Elements[n-1].AfterExtra, trailing)
	}
	if len(arr.Elements) == 0 && len(bytes.TrimSpace(arr.AfterExtra)) == 0 {
		parent, _ := objectAt(&root, path[:len(path)-1], "", false)
		if parent != nil {
			obj := parent.Value.(*hujson.Object)
			if i := member(obj, path[len(path)-1]); i >= 0 {
				removeAt(obj, i)
			}
		}
		pruneEmpty(&root, path[:len(path)-1])
	}
	return root.Pack(), nil
}

// decoded is the Go value of a JSONC value (nil when it does not decode).
func decoded(hv hujson.Value) any {
	c := hv.Clone()
	c.Standardize()
	var v any
	if json.Unmarshal(c.Pack(), &v) != nil {
		return nil
	}
	return v
}

// obj is a JSON object that keeps its keys in the order written, so what
// git konteks inserts reads as the agents' documentation shows it
// ("type", "command", "args").
type obj []kv

type kv struct {
	k string
	v any
}

// MarshalJSON writes the members in order.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.k)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
