package secret

import (
	"bytes"
	"encoding/json"
)

// RedactJSON redacts the credentials in a JSON document: every string
// (keys included) is passed through the detector, so a value copied from
// a file into a derived text (a README paragraph, a package script) is
// replaced by its marker and the document stays valid JSON. It returns b
// itself when there is nothing to redact, and the number of values
// redacted.
func RedactJSON(b []byte) ([]byte, int) {
	if len(Find(b)) == 0 {
		return b, 0
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		// Not JSON: redact the bytes.
		ms := Find(b)
		return Redact(b, ms), len(ms)
	}
	n := 0
	v = redactValue(v, &n)
	var out []byte
	var err error
	if bytes.Contains(b, []byte("\n  ")) {
		out, err = json.MarshalIndent(v, "", "  ")
	} else {
		out, err = json.Marshal(v)
	}
	if err != nil {
		ms := Find(b)
		return Redact(b, ms), len(ms)
	}
	if bytes.HasSuffix(b, []byte("\n")) {
		out = append(out, '\n')
	}
	// A credential spread over the document's structure (split between
	// strings) is redacted in the bytes, when that keeps the JSON valid.
	if ms := Find(out); len(ms) > 0 {
		if r := Redact(out, ms); json.Valid(r) {
			out = r
			n += len(ms)
		}
	}
	return out, n
}

func redactValue(v any, n *int) any {
	switch x := v.(type) {
	case string:
		s, ms := RedactString(x)
		*n += len(ms)
		return s
	case []any:
		for i := range x {
			x[i] = redactValue(x[i], n)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			k2, ms := RedactString(k)
			*n += len(ms)
			out[k2] = redactValue(e, n)
		}
		return out
	}
	return v
}
