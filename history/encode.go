package history

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// appendCommit appends c's JSON line (with its newline) to dst: byte for
// byte what encoding/json's Encoder writes with HTML escaping off, which
// every reader of history segments decodes. Written out by hand because
// the first walk encodes every commit of recent history (10,000 or more)
// while git lists the next ones, and reflection was most of that cost.
func appendCommit(dst []byte, c *Commit) []byte {
	dst = append(dst, `{"h":`...)
	dst = appendString(dst, c.Hash)
	if len(c.Parents) > 0 {
		dst = appendStrings(append(dst, `,"p":`...), c.Parents)
	}
	dst = append(dst, `,"a":`...)
	dst = appendString(dst, c.Author)
	if c.Email != "" {
		dst = append(dst, `,"e":`...)
		dst = appendString(dst, c.Email)
	}
	dst = append(dst, `,"t":`...)
	dst = strconv.AppendInt(dst, c.Time, 10)
	dst = append(dst, `,"s":`...)
	dst = appendString(dst, c.Subject)
	if c.Body != "" {
		dst = append(dst, `,"b":`...)
		dst = appendString(dst, c.Body)
	}
	if len(c.Changes) > 0 {
		dst = append(dst, `,"c":[`...)
		for i := range c.Changes {
			ch := &c.Changes[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"p":`...)
			dst = appendString(dst, ch.Path)
			if ch.Old != "" {
				dst = append(dst, `,"o":`...)
				dst = appendString(dst, ch.Old)
			}
			dst = append(dst, `,"k":`...)
			dst = appendString(dst, ch.Kind)
			dst = append(dst, `,"add":`...)
			dst = strconv.AppendInt(dst, int64(ch.Add), 10)
			dst = append(dst, `,"del":`...)
			dst = strconv.AppendInt(dst, int64(ch.Del), 10)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if c.Files != 0 {
		dst = append(dst, `,"n":`...)
		dst = strconv.AppendInt(dst, int64(c.Files), 10)
	}
	if len(c.Flags) > 0 {
		dst = appendStrings(append(dst, `,"f":`...), c.Flags)
	}
	dst = append(dst, `,"w":`...)
	dst = appendFloat(dst, c.Weight)
	return append(dst, '}', '\n')
}

// appendStrings appends ss as a JSON array of strings.
func appendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

// appendString appends s as a JSON string, as encoding/json writes it
// without HTML escaping. Printable ASCII, newlines, tabs, quotes and
// backslashes (nearly every name, path and message) are written here;
// a string with other bytes is left to encoding/json.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b >= 0x80 || (b < 0x20 && b != '\n' && b != '\t') {
			var q bytes.Buffer
			e := json.NewEncoder(&q)
			e.SetEscapeHTML(false)
			if err := e.Encode(s); err != nil {
				break // cannot happen for a string; write it as below
			}
			return append(dst, bytes.TrimSuffix(q.Bytes(), []byte("\n"))...)
		}
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		var esc byte
		switch s[i] {
		case '"', '\\':
			esc = s[i]
		case '\n':
			esc = 'n'
		case '\t':
			esc = 't'
		default:
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, '\\', esc)
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendFloat appends f as encoding/json writes a float64.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(dst, '0') // never a weight; encoding/json refuses it
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if m := len(dst); m-n >= 4 && dst[m-4] == 'e' && dst[m-3] == '-' && dst[m-2] == '0' {
			dst[m-2] = dst[m-1]
			dst = dst[:m-1]
		}
	}
	return dst
}
