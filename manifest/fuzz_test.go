package manifest

import (
	"reflect"
	"testing"
)

// FuzzDecode: a manifest from a hostile peer decodes to one that encodes
// and decodes back the same, or gives an error; never a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"schema":1,"source_commit":"0123456789012345678901234567890123456789","source_tree":"0123456789012345678901234567890123456789","totals":{"skipped":{"secret":1}}}`))
	f.Add([]byte(`{"schema":999}`))
	f.Add([]byte(`{"schema":1,"totals":{"languages":{"Go":-1}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		enc, err := m.Encode()
		if err != nil {
			t.Fatalf("decoded manifest does not encode: %v", err)
		}
		m2, err := Decode(enc)
		if err != nil {
			t.Fatalf("round trip: %v", err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip differs")
		}
	})
}
