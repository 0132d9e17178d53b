package durable

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecode: an entry from a hostile peer decodes to an entry that
// passes Decode's checks and survives a round trip, or gives an error;
// never a panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"id":"0123456789abcdef0123","type":"memory","text":"the store stays in memory","tags":["store"]}`))
	f.Add([]byte(`{"id":"0123456789abcdef0123","type":"tombstone","forgets":"abcdefabcdefabcdefab","reason":"wrong"}`))
	f.Add([]byte(`{"id":"../../etc/passwd","type":"memory"}`))
	f.Add([]byte(`{"id":"0123456789abcdef0123","type":"diary","text":"` + "\u2028" + `"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Decode(b)
		if err != nil {
			return
		}
		if !validID(e.ID) {
			t.Fatalf("accepted bad id %q", e.ID)
		}
		again, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("decoded entry does not encode: %v", err)
		}
		e2, err := Decode(again)
		if err != nil {
			t.Fatalf("round trip: %v", err)
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("round trip differs:\n%+v\n%+v", e, e2)
		}
	})
}

// FuzzDecodeSkill: the same for skill versions.
func FuzzDecodeSkill(f *testing.F) {
	f.Add([]byte(`{"id":"0123456789abcdef0123","type":"skill","name":"release","description":"cut a release","body":"1. tag"}`))
	f.Add([]byte(`{"id":"0123456789abcdef0123","name":"../x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeSkill(b)
		if err != nil {
			return
		}
		if !validID(s.ID) {
			t.Fatalf("accepted bad id %q", s.ID)
		}
	})
}
