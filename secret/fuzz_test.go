package secret

import (
	"bytes"
	"testing"
)

// FuzzFind: any input gives matches in order, inside the input and not
// overlapping; redaction keeps the line count; never a panic.
func FuzzFind(f *testing.F) {
	for i, s := range Samples() {
		if i%3 == 0 {
			f.Add([]byte(s.Text), false)
		}
	}
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\\n\\n-----END"), true)
	f.Add([]byte("password=\\\"x\\\""), true)
	f.Add([]byte("https://a:b@c/"), false)
	f.Fuzz(func(t *testing.T, data []byte, code bool) {
		p := "x.txt"
		if code {
			p = "x.go"
		}
		ms := FindFile(p, data)
		last := 0
		for _, m := range ms {
			if m.Start < last || m.End <= m.Start || m.End > len(data) || m.Kind == "" {
				t.Fatalf("bad match %+v (last end %d, len %d)", m, last, len(data))
			}
			last = m.End
		}
		out := Redact(data, ms)
		if bytes.Count(out, []byte{'\n'}) != bytes.Count(data, []byte{'\n'}) {
			t.Fatal("redaction changed the line count")
		}
		if Contains(data) != (len(Find(data)) > 0) {
			t.Fatal("Contains disagrees with Find")
		}
	})
}
