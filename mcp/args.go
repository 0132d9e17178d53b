package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Arguments are checked here, against the tool's published input schema,
// rather than by the SDK's validator: its errors are the validator's
// internals ("validating /properties/limit: minimum: -3/1 is less than
// 1.000000"), and a model acts on words ("limit must be an integer from 1
// to 50"). Every problem is a tool error (isError), so the model sees it
// and can retry, never a protocol error.

// checkArgs validates raw tool arguments against sch and returns them as
// a JSON object ready to decode: nulls are dropped (clients send them for
// arguments left out).
func checkArgs(tool string, sch *jsonschema.Schema, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("the arguments of %s must be a JSON object of named arguments (%s)", tool, argList(sch))
	}
	for k, v := range args {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(args, k)
		}
	}
	var unknown []string
	for k := range args {
		if _, ok := sch.Properties[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		what := "argument"
		if len(unknown) > 1 {
			what += "s"
		}
		return nil, fmt.Errorf("unknown %s %s: %s takes %s", what, quoteAll(unknown), tool, argList(sch))
	}
	for _, name := range sch.Required {
		if _, ok := args[name]; !ok {
			return nil, fmt.Errorf("%s is required: %s", name, describe(name, sch.Properties[name]))
		}
	}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		v, err := checkValue(name, sch.Properties[name], args[name])
		if err != nil {
			return nil, err
		}
		args[name] = v
	}
	return json.Marshal(args)
}

// checkValue checks one argument's value against its schema, and returns
// it. A number or boolean written as a string ("5", "true") is taken as
// the number or boolean: clients that only know strings (the inspector's
// command line, some forms) send them so, and nothing else is meant.
func checkValue(name string, p *jsonschema.Schema, raw json.RawMessage) (json.RawMessage, error) {
	if p == nil {
		return raw, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON: %v", name, err)
	}
	if str, ok := v.(string); ok {
		t := strings.TrimSpace(str)
		switch typeOf(p) {
		case "integer", "number":
			var n json.Number
			if json.Unmarshal([]byte(t), &n) == nil && t != "" {
				v, raw = n, json.RawMessage(t)
			}
		case "boolean":
			if t == "true" || t == "false" {
				v, raw = t == "true", json.RawMessage(t)
			}
		}
	}
	return raw, checkType(name, p, v)
}

// checkType checks a decoded value against its schema.
func checkType(name string, p *jsonschema.Schema, v any) error {
	switch typeOf(p) {
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s must be a string (%s), not %s", name, p.Description, kindOf(v))
		}
		if len(p.Enum) > 0 && !inEnum(p.Enum, str) {
			return fmt.Errorf("%s must be one of %s, not %q", name, enumList(p.Enum), str)
		}
	case "integer":
		n, ok := v.(json.Number)
		f, err := n.Float64()
		if !ok || err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%s must be %s, not %s", name, intRange(p), kindOf(v))
		}
		if p.Minimum != nil && f < *p.Minimum || p.Maximum != nil && f > *p.Maximum {
			return fmt.Errorf("%s must be %s, not %s", name, intRange(p), n)
		}
	case "number":
		if _, ok := v.(json.Number); !ok {
			return fmt.Errorf("%s must be a number, not %s", name, kindOf(v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s must be true or false, not %s", name, kindOf(v))
		}
	case "array":
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s must be a list of strings, e.g. [\"a\", \"b\"], not %s", name, kindOf(v))
		}
		for i, x := range list {
			if _, ok := x.(string); !ok {
				return fmt.Errorf("%s must be a list of strings: item %d is %s", name, i+1, kindOf(x))
			}
		}
	}
	return nil
}

// typeOf is the schema's JSON type, "null" aside (jsonschema.For gives
// slices ["null", "array"]).
func typeOf(p *jsonschema.Schema) string {
	if p.Type != "" {
		return p.Type
	}
	for _, t := range p.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}

func intRange(p *jsonschema.Schema) string {
	switch {
	case p.Minimum != nil && p.Maximum != nil:
		return fmt.Sprintf("an integer from %g to %g", *p.Minimum, *p.Maximum)
	case p.Minimum != nil:
		return fmt.Sprintf("an integer of at least %g", *p.Minimum)
	case p.Maximum != nil:
		return fmt.Sprintf("an integer of at most %g", *p.Maximum)
	}
	return "an integer"
}

// kindOf names a JSON value for an error message.
func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("the string %q", x)
	case json.Number:
		return "the number " + x.String()
	case bool:
		return fmt.Sprintf("%v", x)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func inEnum(enum []any, s string) bool {
	for _, e := range enum {
		if e == s {
			return true
		}
	}
	return false
}

func enumList(enum []any) string {
	var out []string
	for _, e := range enum {
		out = append(out, fmt.Sprint(e))
	}
	return strings.Join(out, ", ")
}

// describe says what an argument is, from its schema.
func describe(name string, p *jsonschema.Schema) string {
	if p == nil || p.Description == "" {
		return "give " + name
	}
	return p.Description
}

// argList lists a tool's arguments, required ones first.
func argList(sch *jsonschema.Schema) string {
	if len(sch.Properties) == 0 {
		return "no arguments"
	}
	req := map[string]bool{}
	for _, r := range sch.Required {
		req[r] = true
	}
	var first, rest []string
	for k := range sch.Properties {
		if req[k] {
			first = append(first, k)
		} else {
			rest = append(rest, k)
		}
	}
	sort.Strings(first)
	sort.Strings(rest)
	var out []string
	for _, k := range first {
		out = append(out, k+" (required)")
	}
	out = append(out, rest...)
	return strings.Join(out, ", ")
}

func quoteAll(ss []string) string {
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%q", s))
	}
	return strings.Join(out, ", ")
}
